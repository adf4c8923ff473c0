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
 *
 * Append-only history, on both databases the same way: a ledger row is never deleted and, once
 * confirmed, never updated (while it waits for the chain only its confirmation may be written, never
 * what was paid); a correction is a new row naming the old one and counts in its place; health samples
 * and quotes are insert-only; a revoked key stays revoked; a listing with history is deleted only as a
 * tombstone that keeps it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantAppRole, guardBypassRisk, warnIfGuardsBypassable } from "@/lib/migrate";
import { seedListing, seedOwner } from "@/test/analyses";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "@/test/db";
import { recordHealthSample, recordPayment, recordQuote } from "@/lib/ledger/record";
import { correctPayment } from "@/lib/ledger/correct";
import { ledgerFacts } from "@/lib/facts/aggregate";
import { createApiKey, revokeApiKey } from "@/lib/apikeys";

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
  "trust_observations_archive",
  "trust_endpoint_revisions",
  "canary_runs",
  "canary_samples",
  "router_payments",
  "monitor_health_samples",
  "price_quotes",
  "api_keys",
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
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'catalog_scoring_results_evidenceId_fkey' AND connamespace = current_schema()::regnamespace`,
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
    [`ALTER TABLE "router_payments" DISABLE TRIGGER "router_payments_written_once"`, /must be owner/],
    [`ALTER TABLE "listings" DISABLE TRIGGER "listings_keep_history"`, /must be owner/],
    [`DROP TRIGGER "api_keys_stay_revoked" ON "api_keys"`, /must be owner/],
    [`ALTER TABLE "router_payments" DROP CONSTRAINT "router_payments_listingId_fkey"`, /must be owner/],
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

describe(`append-only history (${testDatabaseUrl() ? "server PostgreSQL, as the app's role" : "PGlite"})`, () => {
  const NOW = new Date();
  const ago = (ms: number) => new Date(NOW.getTime() - ms);
  const HOUR = 3_600_000;
  const payer = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
  const tx = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
  const h = { listingId: "", settled: "", waiting: "", sample: "", quote: "", admin: "" };
  const pay = (over: Partial<Parameters<typeof recordPayment>[0]>) =>
    recordPayment({ listingId: h.listingId, payer: payer(1), status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: "USDC", network: "eip155:8453", ...over });
  const ledgerRow = (id: string) => t.prisma.routerPayment.findUniqueOrThrow({ where: { id } });

  beforeAll(async () => {
    const { org, user } = await seedOwner(t.prisma, "admin");
    h.admin = user.id;
    h.listingId = await seedListing(t.prisma, org.id);
    h.settled = (await pay({ payer: payer(1), transactionId: tx(1), at: ago(2 * HOUR) })).id;
    h.waiting = (await pay({ payer: payer(2), status: "unconfirmed", settledAmount: null, transactionId: tx(2), at: ago(HOUR) })).id;
    h.sample = (await recordHealthSample({ listingId: h.listingId, outcome: "up", confidence: 1, vantage: "test", at: ago(HOUR) })).id;
    h.quote = (await recordQuote({ listingId: h.listingId, amount: "10000", asset: "USDC", network: "eip155:8453", quotedAt: ago(HOUR), source: "test" })).id;
  });

  describe("the settlement ledger", () => {
    it.each([
      [`UPDATE "router_payments" SET "payer" = '0x00000000000000000000000000000000000000ff'`, "payer"],
      [`UPDATE "router_payments" SET "settledAmount" = '99999999', "chainAmount" = '99999999'`, "amount"],
      [`UPDATE "router_payments" SET "status" = 'failed', "settledAmount" = NULL, "reason" = 'unproven'`, "status"],
      [`UPDATE "router_payments" SET "confirmedAt" = NULL`, "confirmation time"],
    ])("a settled row refuses %s (its %s)", async (sql) => {
      await expect(t.exec(`${sql} WHERE "id" = '${h.settled}'`)).rejects.toThrow(/router_payments row \S+ is confirmed \(settled\): written once, UPDATE refused/);
      expect(await ledgerRow(h.settled)).toMatchObject({ payer: payer(1), status: "settled", settledAmount: "10000" });
    });

    it("a settled row refuses Prisma's update too", async () => {
      await expect(t.prisma.routerPayment.update({ where: { id: h.settled }, data: { payer: payer(9) } })).rejects.toThrow(/is confirmed \(settled\): written once/);
    });

    it("no ledger row is ever deleted: neither settled nor waiting, by SQL or Prisma", async () => {
      await expect(t.exec(`DELETE FROM "router_payments" WHERE "id" = '${h.settled}'`)).rejects.toThrow(/router_payments rows are never deleted \(DELETE refused/);
      await expect(t.exec(`DELETE FROM "router_payments"`)).rejects.toThrow(/never deleted/);
      await expect(t.prisma.routerPayment.deleteMany({ where: { id: h.waiting } })).rejects.toThrow(/never deleted/);
      expect(await t.prisma.routerPayment.count({ where: { id: { in: [h.settled, h.waiting] } } })).toBe(2);
    });

    it.each([
      [`"payer" = '0x00000000000000000000000000000000000000ff'`, "payer"],
      [`"advertisedAmount" = '1'`, "advertisedAmount"],
      [`"transactionId" = '${"0x" + "ee".repeat(32)}'`, "transactionId"],
      [`"createdAt" = "createdAt" - interval '40 days'`, "createdAt"],
      [`"house" = true`, "house"],
      [`"quotedPayTo" = '0x00000000000000000000000000000000000000ff'`, "quotedPayTo"],
      [`"httpStatus" = 500`, "httpStatus"],
      [`"paymentResponse" = '{"success": true}'::jsonb`, "paymentResponse"],
    ])("a waiting row refuses SET %s: what was paid never changes", async (set, column) => {
      await expect(t.exec(`UPDATE "router_payments" SET ${set} WHERE "id" = '${h.waiting}'`)).rejects.toThrow(new RegExp(`router_payments row \\S+: ${column} is part of what was paid and never changes`));
      expect(await ledgerRow(h.waiting)).toMatchObject({ payer: payer(2), status: "unconfirmed", advertisedAmount: "10000", transactionId: tx(2), confirmedAt: null });
    });

    it("a waiting row takes its confirmation while it waits (an unreadable chain, then the verdict), once; then it is frozen", async () => {
      // The chain could not be read: still waiting, with the reason.
      await t.exec(`UPDATE "router_payments" SET "reason" = 'chain_unreadable' WHERE "id" = '${h.waiting}'`);
      // The verdict, written once.
      await t.prisma.routerPayment.update({
        where: { id: h.waiting },
        data: { status: "settled", settledAmount: "10000", chainAmount: "10000", chainFrom: payer(2), chainTo: payer(100), blockNumber: 7n, reason: null, confirmedAt: NOW },
      });
      expect(await ledgerRow(h.waiting)).toMatchObject({ status: "settled", settledAmount: "10000", blockNumber: 7n, confirmedAt: NOW });
      await expect(t.exec(`UPDATE "router_payments" SET "blockNumber" = 8 WHERE "id" = '${h.waiting}'`)).rejects.toThrow(/is confirmed \(settled\): written once/);
      await expect(t.exec(`UPDATE "router_payments" SET "status" = 'unconfirmed', "settledAmount" = NULL, "confirmedAt" = NULL WHERE "id" = '${h.waiting}'`)).rejects.toThrow(/written once/);
      // A failed verdict is as final: a row recorded failed is frozen from its insert.
      const failed = await pay({ payer: payer(3), status: "failed", settledAmount: null, reason: "not_settled", at: ago(HOUR) });
      await expect(t.exec(`UPDATE "router_payments" SET "status" = 'settled', "settledAmount" = '10000' WHERE "id" = '${failed.id}'`)).rejects.toThrow(/is confirmed \(failed\): written once/);
    });

    it("a correction is a new row naming the old one, and the facts count it in the old one's place", async () => {
      const before = (await ledgerFacts({ ids: [h.listingId] }, NOW))[0];
      const wrong = await pay({ payer: payer(4), status: "settled", settledAmount: "10000", transactionId: tx(4), at: ago(HOUR / 2) });
      const counted = (await ledgerFacts({ ids: [h.listingId] }, NOW))[0];
      expect(counted.settled30d).toBe(before.settled30d + 1);
      expect(counted.distinctPayers30d).toBe(before.distinctPayers30d + 1);
      const fix = await correctPayment(wrong.id, { status: "failed", reason: "unproven" });
      const row = await ledgerRow(fix.id);
      expect(row).toMatchObject({ correctsId: wrong.id, listingId: h.listingId, payer: payer(4), advertisedAmount: "10000", createdAt: ago(HOUR / 2), status: "failed", reason: "unproven", settledAmount: null });
      expect(row.confirmedAt).toBeInstanceOf(Date);
      // The old row is as it was; the facts read the correction: one failure more, the settlement gone.
      expect(await ledgerRow(wrong.id)).toMatchObject({ status: "settled", settledAmount: "10000" });
      const after = (await ledgerFacts({ ids: [h.listingId] }, NOW))[0];
      expect(after).toMatchObject({ settled30d: before.settled30d, distinctPayers30d: before.distinctPayers30d, distinctAttemptingBuyers30d: before.distinctAttemptingBuyers30d + 1 });
      expect(after.failedSinceLastSettle).toBe(before.failedSinceLastSettle + 1);
      // One correction per row; the correction itself is written once like any confirmed row.
      await expect(correctPayment(wrong.id, { status: "settled", reason: "again", settledAmount: "10000" })).rejects.toMatchObject({ code: "conflict" });
      await expect(t.exec(`INSERT INTO "router_payments" ("id", "correctsId", "payer", "listingId", "advertisedAmount", "asset", "network", "status", "reason", "createdAt", "confirmedAt")
        SELECT 'second-fix', "id", "payer", "listingId", "advertisedAmount", "asset", "network", 'failed', 'again', "createdAt", now() FROM "router_payments" WHERE "id" = '${wrong.id}'`)).rejects.toThrow(/router_payments_correctsId_key/);
      await expect(t.exec(`UPDATE "router_payments" SET "status" = 'settled', "settledAmount" = '10000' WHERE "id" = '${fix.id}'`)).rejects.toThrow(/written once/);
      await expect(t.exec(`DELETE FROM "router_payments" WHERE "id" = '${fix.id}'`)).rejects.toThrow(/never deleted/);
    });

    it("a correction cannot move a payment: another payer, listing, amount or network is refused, and so is correcting a row that still waits", async () => {
      const old = await pay({ payer: payer(5), status: "failed", settledAmount: null, reason: "not_settled", at: ago(HOUR / 3) });
      const insert = (override: string) =>
        t.exec(`INSERT INTO "router_payments" ("id", "correctsId", "payer", "listingId", "advertisedAmount", "asset", "network", "status", "settledAmount", "reason", "createdAt", "confirmedAt")
          SELECT 'moved-${Math.random().toString(36).slice(2, 8)}', "id", ${override}, 'settled', '10000', 'fixed', "createdAt", now() FROM "router_payments" WHERE "id" = '${old.id}'`);
      await expect(insert(`'${payer(99)}', "listingId", "advertisedAmount", "asset", "network"`)).rejects.toThrow(/a correction of router_payments row \S+ keeps its payer/);
      await expect(insert(`"payer", "listingId", '1', "asset", "network"`)).rejects.toThrow(/keeps its advertisedAmount/);
      await expect(insert(`"payer", "listingId", "advertisedAmount", "asset", 'eip155:1'`)).rejects.toThrow(/keeps its network/);
      const other = await seedListing(t.prisma, (await t.prisma.listing.findUniqueOrThrow({ where: { id: h.listingId } })).organizationId);
      await expect(insert(`"payer", '${other}', "advertisedAmount", "asset", "network"`)).rejects.toThrow(/keeps its listingId/);
      // A correction is final: never unconfirmed.
      await expect(t.exec(`INSERT INTO "router_payments" ("id", "correctsId", "payer", "listingId", "advertisedAmount", "asset", "network", "status", "createdAt")
        SELECT 'unconfirmed-fix', "id", "payer", "listingId", "advertisedAmount", "asset", "network", 'unconfirmed', "createdAt" FROM "router_payments" WHERE "id" = '${old.id}'`)).rejects.toThrow(/router_payments_correction_confirmed/);
      // A waiting row is confirmed, not corrected.
      const waiting = await pay({ payer: payer(6), status: "unconfirmed", settledAmount: null, transactionId: tx(6), at: ago(HOUR / 4) });
      await expect(correctPayment(waiting.id, { status: "failed", reason: "unproven" })).rejects.toMatchObject({ code: "conflict" });
      await expect(t.exec(`INSERT INTO "router_payments" ("id", "correctsId", "payer", "listingId", "advertisedAmount", "asset", "network", "status", "reason", "createdAt", "confirmedAt")
        SELECT 'early-fix', "id", "payer", "listingId", "advertisedAmount", "asset", "network", 'failed', 'x', "createdAt", now() FROM "router_payments" WHERE "id" = '${waiting.id}'`)).rejects.toThrow(/still waits for the chain: it is confirmed, not corrected/);
      await expect(correctPayment("no-such-row", { status: "failed", reason: "x" })).rejects.toMatchObject({ code: "not_found" });
      await expect(correctPayment(old.id, { status: "settled", reason: "x" })).rejects.toMatchObject({ code: "bad_request", details: [{ pointer: "/settledAmount" }] });
    });
  });

  describe("health samples and price quotes are insert-only", () => {
    it.each([
      [`UPDATE "monitor_health_samples" SET "outcome" = 'down'`, /monitor_health_samples is append-only \(UPDATE refused\)/],
      [`UPDATE "monitor_health_samples" SET "at" = "at" - interval '31 days'`, /monitor_health_samples is append-only \(UPDATE refused\)/],
      [`DELETE FROM "monitor_health_samples"`, /monitor_health_samples is append-only \(DELETE refused\)/],
      [`UPDATE "price_quotes" SET "amount" = '1'`, /price_quotes is append-only \(UPDATE refused\)/],
      [`DELETE FROM "price_quotes"`, /price_quotes is append-only \(DELETE refused\)/],
    ])("%s is refused", async (sql, refusal) => {
      await expect(t.exec(sql)).rejects.toThrow(refusal);
      expect(await t.prisma.healthSample.findUniqueOrThrow({ where: { id: h.sample } })).toMatchObject({ outcome: "up" });
      expect(await t.prisma.priceQuote.findUniqueOrThrow({ where: { id: h.quote } })).toMatchObject({ amount: "10000" });
    });
  });

  describe("a revoked API key stays revoked", () => {
    it("refuses un-revoking, moving the revocation, rescoping and deleting; only the last use may still be written", async () => {
      const key = await createApiKey({ actorId: h.admin, name: "guards", scopes: ["router:select"] });
      await revokeApiKey({ actorId: h.admin, id: key.id });
      const revokedAt = (await t.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt;
      expect(revokedAt).toBeInstanceOf(Date);
      await expect(t.exec(`UPDATE "api_keys" SET "revokedAt" = NULL WHERE "id" = '${key.id}'`)).rejects.toThrow(/api key \S+ is revoked: it stays revoked \(UPDATE refused\)/);
      await expect(t.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date(Date.now() + 86_400_000) } })).rejects.toThrow(/stays revoked/);
      await expect(t.exec(`UPDATE "api_keys" SET "scopes" = ARRAY['router:select','router:call'] WHERE "id" = '${key.id}'`)).rejects.toThrow(/stays revoked/);
      await expect(t.exec(`UPDATE "api_keys" SET "hash" = 'other' WHERE "id" = '${key.id}'`)).rejects.toThrow(/stays revoked/);
      await expect(t.exec(`DELETE FROM "api_keys" WHERE "id" = '${key.id}'`)).rejects.toThrow(/api_keys rows are revoked, never deleted/);
      await t.exec(`UPDATE "api_keys" SET "lastUsedAt" = now() WHERE "id" = '${key.id}'`);
      expect(await t.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({ revokedAt, scopes: ["router:select"] });
      // A key not yet revoked can still be revoked (and rescoped).
      const live = await createApiKey({ actorId: h.admin, name: "live", scopes: ["router:select"] });
      await t.exec(`UPDATE "api_keys" SET "scopes" = ARRAY['router:call'] WHERE "id" = '${live.id}'`);
      await revokeApiKey({ actorId: h.admin, id: live.id });
    });
  });

  describe("a listing with history is deleted only as a tombstone", () => {
    it("a hard DELETE is refused, naming the history; the tombstone keeps the ledger and cannot be undone", async () => {
      await expect(t.exec(`DELETE FROM "listings" WHERE "id" = '${h.listingId}'`)).rejects.toThrow(/listing \S+ keeps history in router_payments: DELETE refused/);
      // Without the trigger's reading, the foreign keys refuse it too: no cascade into the history.
      for (const table of ["router_payments", "monitor_health_samples", "price_quotes", "probe_evidence"]) {
        const [fk] = await t.query<{ def: string }>(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = '${table}_listingId_fkey' AND connamespace = current_schema()::regnamespace`);
        expect(fk.def, table).toMatch(/REFERENCES "?listings"?\(id\) ON UPDATE RESTRICT ON DELETE RESTRICT/);
      }
      const ledger = await t.prisma.routerPayment.count({ where: { listingId: h.listingId } });
      // A listing with only health samples, or only a quote, is held the same way.
      const org = (await t.prisma.listing.findUniqueOrThrow({ where: { id: h.listingId } })).organizationId;
      const sampled = await seedListing(t.prisma, org);
      await recordHealthSample({ listingId: sampled, outcome: "down", confidence: 0, vantage: "test" });
      await expect(t.exec(`DELETE FROM "listings" WHERE "id" = '${sampled}'`)).rejects.toThrow(/keeps history in monitor_health_samples/);
      const quoted = await seedListing(t.prisma, org);
      await recordQuote({ listingId: quoted, amount: "1", asset: "USDC", network: "eip155:8453", quotedAt: NOW, source: "test" });
      await expect(t.exec(`DELETE FROM "listings" WHERE "id" = '${quoted}'`)).rejects.toThrow(/keeps history in price_quotes/);
      // The tombstone: archived, deletedAt set; a deletedAt on a listing still listed is refused.
      await expect(t.exec(`UPDATE "listings" SET "deletedAt" = now() WHERE "id" = '${h.listingId}'`)).rejects.toThrow(/listings_deleted_is_archived/);
      await t.exec(`UPDATE "listings" SET "publicationState" = 'archived', "deletedAt" = now() WHERE "id" = '${h.listingId}'`);
      expect(await t.prisma.routerPayment.count({ where: { listingId: h.listingId } })).toBe(ledger);
      expect(await t.prisma.healthSample.count({ where: { listingId: h.listingId } })).toBe(1);
      await expect(t.exec(`UPDATE "listings" SET "publicationState" = 'published' WHERE "id" = '${h.listingId}'`)).rejects.toThrow(/was deleted \(a tombstone\): it cannot be restored or republished/);
      await expect(t.exec(`UPDATE "listings" SET "deletedAt" = NULL WHERE "id" = '${h.listingId}'`)).rejects.toThrow(/was deleted \(a tombstone\)/);
      await expect(t.exec(`DELETE FROM "listings" WHERE "id" = '${h.listingId}'`)).rejects.toThrow(/keeps history/);
      // A listing without any history can still be removed outright.
      const bare = await seedListing(t.prisma, org);
      await t.exec(`DELETE FROM "listings" WHERE "id" = '${bare}'`);
      expect(await t.prisma.listing.findUnique({ where: { id: bare } })).toBeNull();
    });
  });
});
