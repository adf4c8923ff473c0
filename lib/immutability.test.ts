/**
 * Immutability the owner could bypass (issue #20 item 5; docs/DATA-MODEL.md "Who may do what"):
 * every statement that used to empty or rewrite history is refused from the app's connection.
 *
 * On both databases: TRUNCATE (with and without CASCADE) of every table that keeps history is refused
 * by a statement-level trigger, probe evidence, the moderation audit and the badge revocations refuse
 * UPDATE and DELETE, and a result names its evidence by a foreign key. On the server PostgreSQL the
 * tests' handle is the app's role (test/db.ts), which owns nothing: it cannot disable a trigger, set
 * session_replication_role, become the owner or migrate. PGlite has one user, a superuser, so those
 * role checks cannot apply there and skip with that reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantAppRole, guardBypassRisk, warnIfGuardsBypassable } from "@/lib/migrate";
import { seedListing, seedOwner } from "@/test/analyses";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "@/test/db";

let t: TestDatabase;
const seeded = { listingId: "", resultId: "", evidenceId: "", auditId: "", analysisId: "" };

/** Every table whose history no statement may empty. */
const KEEPS_HISTORY = [
  "catalog_scoring_results",
  "catalog_scoring_attempts",
  "catalog_scoring_analyses",
  "catalog_scoring_analyses_archive",
  "catalog_scoring_attempts_archive",
  "probe_evidence",
  "catalog_scoring_revocations",
  "moderation_audit",
  "trust_observations",
  "trust_endpoint_revisions",
  "canary_runs",
  "canary_samples",
  "router_payments",
];

beforeAll(async () => {
  t = await createTestDatabase();
  const { org, user } = await seedOwner(t.prisma, "moderator");
  seeded.listingId = await seedListing(t.prisma, org.id);
  const evidence = await t.prisma.probeEvidence.create({
    data: { listingId: seeded.listingId, vantage: "test", probedAt: new Date(), ok: true, evidence: { endpoints: [] } },
  });
  seeded.evidenceId = evidence.id;
  const result = await t.prisma.readinessResult.create({
    data: {
      listingId: seeded.listingId, rubricVersion: "readiness/1.0.0", total: 70, rawTotal: 70, band: "Good", provisional: false,
      caps: [], dimensions: [], rules: [], improvements: [], document: {}, evidenceId: evidence.id,
    },
  });
  seeded.resultId = result.id;
  await t.prisma.resultRevocation.create({ data: { resultId: result.id, reason: "test", actorId: user.id } });
  const audit = await t.prisma.moderationAudit.create({ data: { actorId: user.id, listingId: seeded.listingId, action: "featured.set", after: { featuredLevel: 1 }, reason: "test" } });
  seeded.auditId = audit.id;
  const analysis = await t.prisma.analysis.create({ data: { submitter: "guards-test", trigger: "submit", targetUrl: "https://api.example.com" } });
  seeded.analysisId = analysis.id;
  await t.prisma.analysisAttempt.create({ data: { analysisId: analysis.id, attempt: 1, event: "claimed" } });
});
afterAll(() => t.close());

async function counts(): Promise<Record<string, number>> {
  const [row] = await t.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM "listings") AS listings, (SELECT count(*)::int FROM "catalog_scoring_results") AS results,
            (SELECT count(*)::int FROM "probe_evidence") AS evidence, (SELECT count(*)::int FROM "moderation_audit") AS audit,
            (SELECT count(*)::int FROM "catalog_scoring_revocations") AS revocations, (SELECT count(*)::int FROM "catalog_scoring_attempts") AS attempts`,
  );
  return row;
}

const EXPECTED = { listings: 1, results: 1, evidence: 1, audit: 1, revocations: 1, attempts: 1 };

describe(`history cannot be emptied or rewritten (${testDatabaseUrl() ? "server PostgreSQL, as the app's role" : "PGlite"})`, () => {
  it.each(KEEPS_HISTORY)("TRUNCATE %s is refused, with and without CASCADE", async (table) => {
    // The app's role on the server has no TRUNCATE privilege; on PGlite the trigger refuses (or, for a
    // table others reference, the foreign keys do first; CASCADE is what got past them).
    await expect(t.exec(`TRUNCATE "${table}"`)).rejects.toThrow(/keeps history|append-only|permission denied|cannot truncate a table referenced/);
    await expect(t.exec(`TRUNCATE "${table}" CASCADE`)).rejects.toThrow(/keeps history|append-only|permission denied/);
    expect(await counts()).toEqual(EXPECTED);
  });

  it.each(KEEPS_HISTORY)("TRUNCATE %s is refused by its trigger even for the tables' owner", async (table) => {
    await t.asOwner(async (owner) => {
      await expect(owner.exec(`TRUNCATE "${table}" CASCADE`)).rejects.toThrow(/keeps history: TRUNCATE refused|append-only \(TRUNCATE refused\)/);
    });
    expect(await counts()).toEqual(EXPECTED);
  });

  it("TRUNCATE listings CASCADE, which once emptied results and listings, is refused for the owner too", async () => {
    await expect(t.exec(`TRUNCATE "listings" CASCADE`)).rejects.toThrow(/keeps history|permission denied/);
    await t.asOwner((owner) => expect(owner.exec(`TRUNCATE "listings" CASCADE`)).rejects.toThrow(/keeps history: TRUNCATE refused/));
    expect(await counts()).toEqual(EXPECTED);
  });

  it("probe evidence refuses UPDATE and DELETE, through Prisma and raw SQL", async () => {
    await expect(t.prisma.probeEvidence.update({ where: { id: seeded.evidenceId }, data: { ok: false } })).rejects.toThrow(/probe_evidence rows are immutable \(UPDATE refused\)/);
    await expect(t.exec(`UPDATE "probe_evidence" SET "evidence" = '{}'::jsonb`)).rejects.toThrow(/probe_evidence rows are immutable \(UPDATE refused\)/);
    await expect(t.exec(`DELETE FROM "probe_evidence"`)).rejects.toThrow(/probe_evidence rows are immutable \(DELETE refused\)/);
    expect((await t.prisma.probeEvidence.findUniqueOrThrow({ where: { id: seeded.evidenceId } })).ok).toBe(true);
  });

  it("the moderation audit is append-only", async () => {
    await expect(t.exec(`UPDATE "moderation_audit" SET "reason" = 'rewritten'`)).rejects.toThrow(/moderation_audit is append-only \(UPDATE refused\)/);
    await expect(t.exec(`DELETE FROM "moderation_audit"`)).rejects.toThrow(/moderation_audit is append-only \(DELETE refused\)/);
    expect((await t.prisma.moderationAudit.findUniqueOrThrow({ where: { id: seeded.auditId } })).reason).toBe("test");
  });

  it("badge revocations are append-only: a revoked result stays revoked", async () => {
    await expect(t.exec(`UPDATE "catalog_scoring_revocations" SET "reason" = 'never mind'`)).rejects.toThrow(/catalog_scoring_revocations is append-only \(UPDATE refused\)/);
    await expect(t.prisma.resultRevocation.delete({ where: { resultId: seeded.resultId } })).rejects.toThrow(/catalog_scoring_revocations is append-only \(DELETE refused\)/);
    expect(await t.prisma.resultRevocation.count()).toBe(1);
  });

  it("results and the attempt log still refuse UPDATE and DELETE", async () => {
    await expect(t.exec(`UPDATE "catalog_scoring_results" SET "total" = 100`)).rejects.toThrow(/immutable \(UPDATE refused\)/);
    await expect(t.exec(`DELETE FROM "catalog_scoring_results"`)).rejects.toThrow(/immutable \(DELETE refused\)/);
    await expect(t.exec(`UPDATE "catalog_scoring_attempts" SET "event" = 'x'`)).rejects.toThrow(/append-only \(UPDATE refused/);
    await expect(t.exec(`DELETE FROM "catalog_scoring_attempts"`)).rejects.toThrow(/append-only \(DELETE refused/);
    expect(await counts()).toEqual(EXPECTED);
  });

  it("a result names its evidence by a foreign key", async () => {
    const insert = (evidenceId: string | null) =>
      t.prisma.readinessResult.create({
        data: {
          listingId: seeded.listingId, rubricVersion: "readiness/1.0.0", total: 50, rawTotal: 50, band: "Fair", provisional: true,
          caps: [], dimensions: [], rules: [], improvements: [], document: {}, evidenceId,
        },
      });
    await expect(insert("no-such-evidence")).rejects.toThrow(/catalog_scoring_results_evidenceId_fkey|Foreign key constraint/);
    // A result without evidence (a stand-in in tests, the seeded demo's provisional rows) keeps it null.
    expect((await insert(null)).evidenceId).toBeNull();
    EXPECTED.results += 1;
    const [fk] = await t.query<{ def: string }>(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'catalog_scoring_results_evidenceId_fkey'`,
    );
    expect(fk.def).toMatch(/FOREIGN KEY \("evidenceId"\) REFERENCES "?probe_evidence"?\(id\) ON UPDATE RESTRICT ON DELETE RESTRICT/);
  });
});

const onServer = testDatabaseUrl() !== null;
if (!onServer) console.warn("[immutability] role checks skipped: PGlite has one user, a superuser, who can switch triggers off (docs/DATA-MODEL.md \"On PGlite\"); set TEST_DATABASE_URL to run them");

describe.skipIf(onServer)("on PGlite", () => {
  it("the start-up check reads the one user as a superuser, which is what docs/DATA-MODEL.md says cannot hold", async () => {
    expect(await guardBypassRisk(t)).toMatch(/^the database role postgres is a superuser/);
  });
});

describe.skipIf(!onServer)("the app's role owns nothing, so it cannot switch a guard off (server PostgreSQL only: PGlite's one user is a superuser)", () => {
  it("connects as a role that is no superuser and owns nothing in its schema", async () => {
    const [me] = await t.query<{ user: string; superuser: boolean; owned: number }>(
      `SELECT current_user AS "user", (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
              (SELECT count(*)::int FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)) AS owned`,
    );
    expect(me).toEqual({ user: t.appRole, superuser: false, owned: 0 });
  });

  it.each([
    [`ALTER TABLE "catalog_scoring_results" DISABLE TRIGGER "results_immutable"`, /must be owner/],
    [`ALTER TABLE "catalog_scoring_attempts" DISABLE TRIGGER ALL`, /must be owner/],
    [`ALTER TABLE "probe_evidence" DISABLE TRIGGER USER`, /must be owner/],
    [`ALTER TABLE "catalog_scoring_results" DISABLE TRIGGER "results_no_truncate"`, /must be owner/],
    [`DROP TRIGGER "moderation_audit_append_only" ON "moderation_audit"`, /must be owner/],
    [`ALTER TABLE "catalog_scoring_results" DROP CONSTRAINT "catalog_scoring_results_evidenceId_fkey"`, /must be owner/],
    [`SET session_replication_role = replica`, /permission denied/],
    [`SET ROLE postgres`, /permission denied to set role/],
    [`CREATE TRIGGER "x" BEFORE UPDATE ON "moderation_audit" FOR EACH ROW EXECUTE FUNCTION tollgate_keep_history_no_truncate()`, /permission denied|must be owner/],
    [`CREATE TABLE "mine" (id int)`, /permission denied for schema/],
    [`DELETE FROM "_prisma_migrations"`, /permission denied for table _prisma_migrations/],
    [`ALTER TABLE "catalog_scoring_results" OWNER TO CURRENT_USER`, /must be owner/],
  ])("refuses %s", async (sql, refusal) => {
    await expect(t.exec(sql)).rejects.toThrow(refusal);
    expect(await counts()).toEqual(EXPECTED);
  });

  it("the session setting that turns triggers off stays off on every pooled connection", async () => {
    await t.session(async (conn) => {
      await expect(conn.exec(`SET session_replication_role = replica`)).rejects.toThrow(/permission denied/);
      const [row] = await conn.query<{ role: string }>(`SELECT current_setting('session_replication_role') AS role`);
      expect(row.role).toBe("origin");
      await expect(conn.exec(`DELETE FROM "probe_evidence"`)).rejects.toThrow(/immutable/);
    });
  });

  it("a server process's start-up check finds no risk in the app's role and names the owner's", async () => {
    expect(await guardBypassRisk(t)).toBeNull();
    const risk = await t.asOwner((owner) => guardBypassRisk(owner));
    expect(risk).toMatch(/^the database role \S+ (is a superuser \(or bypasses row security\)|owns \(or acts as the owner of\) \d+ table\(s\) in schema t_\S+), so it can switch the history guards off$/);
    // What a server process logs at start: nothing as the app's role, one warning naming the owner's.
    const lines: string[] = [];
    await warnIfGuardsBypassable(t, (l) => lines.push(l));
    expect(lines).toEqual([]);
    await t.asOwner((owner) => warnIfGuardsBypassable(owner, (l) => lines.push(l)));
    expect(lines).toEqual([`tollgate: warning: ${risk}; run the app as a role that owns nothing (TOLLGATE_MIGRATE_URL for db:migrate; docs/DATA-MODEL.md "Who may do what")`]);
  });

  it("the migrator grants only a role of the app's own", async () => {
    await t.asOwner(async (owner) => {
      await expect(grantAppRole(owner, "tollgate_no_such_role")).rejects.toThrow(/app role tollgate_no_such_role does not exist: create it first/);
      const [me] = await owner.query<{ user: string }>(`SELECT current_user AS "user"`);
      await expect(grantAppRole(owner, me.user)).rejects.toThrow(/is a superuser|is, or acts as/);
      await expect(grantAppRole(owner, "Robert'); DROP TABLE x; --")).rejects.toThrow(/must be a lower-case PostgreSQL identifier/);
      // Again for the real role: idempotent, and the role still owns nothing.
      await grantAppRole(owner, t.appRole!);
    });
    expect(await counts()).toEqual(EXPECTED);
  });
});
