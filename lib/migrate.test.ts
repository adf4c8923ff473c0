import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, readMigrations } from "@/lib/migrate";
import { createTestDatabase, type TestDatabase } from "@/test/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.close();
});

describe("migrate", () => {
  it(`applied every committed migration on ${process.env.TEST_DATABASE_URL ? "server PostgreSQL" : "PGlite"}, with Prisma's bookkeeping rows`, async () => {
    const rows = await t.query<{ migration_name: string; checksum: string }>(`SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`);
    expect(rows.map((r) => r.migration_name)).toEqual(readMigrations().map((m) => m.name));
    expect(rows.map((r) => r.checksum)).toEqual(readMigrations().map((m) => m.checksum));
  });

  // The migrator is the owner's (on the server the tests' handle is the app's role, which may not migrate).
  it("is a no-op when run again", async () => {
    expect(await t.asOwner((o) => migrate(o))).toEqual([]);
  });

  it("refuses a migration edited after it was applied", async () => {
    const edited = readMigrations().map((m, i) => (i === 0 ? { ...m, checksum: "0".repeat(64) } : m));
    await expect(t.asOwner((o) => migrate(o, edited))).rejects.toThrow(/was edited after it was applied/);
  });

  it("leaves nothing behind when a migration fails half-way", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mig-"));
    fs.mkdirSync(path.join(dir, "29990101000000_broken"));
    fs.writeFileSync(path.join(dir, "29990101000000_broken", "migration.sql"), `CREATE TABLE "half_written" (id int);\nSELECT no_such_function();`);
    await expect(t.asOwner((o) => migrate(o, [...readMigrations(), ...readMigrations(dir)]))).rejects.toThrow(/29990101000000_broken failed/);
    const tables = await t.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half_written'`);
    expect(tables).toHaveLength(0);
    const rows = await t.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '29990101000000_broken'`);
    expect(rows).toHaveLength(0);
  });
});

describe("database constraints", () => {
  async function listing() {
    const org = await t.prisma.organization.create({ data: { slug: `o-${Math.random().toString(36).slice(2)}`, name: "Org" } });
    return t.prisma.listing.create({ data: { slug: `l-${Math.random().toString(36).slice(2)}`, title: "Weather oracle", baseUrl: "https://api.example.com", organizationId: org.id } });
  }

  it("keeps featuredLevel within 0–5", async () => {
    const l = await listing();
    await expect(t.prisma.listing.update({ where: { id: l.id }, data: { featuredLevel: 6 } })).rejects.toThrow(/listings_featured_level_range/);
  });

  it("refuses to update or delete a readiness result", async () => {
    const l = await listing();
    const r = await t.prisma.readinessResult.create({
      data: { listingId: l.id, rubricVersion: "readiness/1.0.0", total: 50, rawTotal: 50, band: "Getting started", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} },
    });
    await expect(t.prisma.readinessResult.update({ where: { id: r.id }, data: { total: 99 } })).rejects.toThrow(/immutable/);
    await expect(t.prisma.readinessResult.delete({ where: { id: r.id } })).rejects.toThrow(/immutable/);
    expect((await t.prisma.readinessResult.findUniqueOrThrow({ where: { id: r.id } })).total).toBe(50);
  });

  it("never lets a provisional result become the published pointer", async () => {
    const l = await listing();
    const r = await t.prisma.readinessResult.create({
      data: { listingId: l.id, rubricVersion: "readiness/1.0.0", total: 40, rawTotal: 40, band: "Getting started", provisional: true, caps: [], dimensions: [], rules: [], improvements: [], document: {} },
    });
    await expect(t.prisma.listing.update({ where: { id: l.id }, data: { currentResultId: r.id } })).rejects.toThrow(/provisional/);
  });

  it("enforces the analysis state machine and one active analysis per submitter", async () => {
    const a = await t.prisma.analysis.create({ data: { submitter: "user-1", trigger: "submit", targetUrl: "https://api.example.com" } });
    await expect(t.prisma.analysis.create({ data: { submitter: "user-1", trigger: "submit", targetUrl: "https://api.example.com" } })).rejects.toThrow(
      /uniq_catalog_scoring_active_subject|Unique constraint/,
    );
    await expect(t.prisma.analysis.update({ where: { id: a.id }, data: { state: "succeeded" } })).rejects.toThrow(/cannot move from queued to succeeded/);
    await t.prisma.analysis.update({ where: { id: a.id }, data: { state: "failed", error: "cancelled" } });
    await expect(t.prisma.analysis.update({ where: { id: a.id }, data: { state: "queued" } })).rejects.toThrow(/cannot move from failed to queued/);
  });

  it("maintains the full-text search document from the listing and its endpoints", async () => {
    const l = await listing();
    await t.prisma.endpoint.create({ data: { listingId: l.id, position: 0, method: "GET", path: "/forecast", description: "Hourly precipitation forecast" } });
    const [row] = await t.query<{ hit: boolean }>(`SELECT "searchVector" @@ websearch_to_tsquery('english', 'precipitation') AS hit FROM listings WHERE id = $1`, [l.id]);
    expect(row.hit).toBe(true);
  });
});
