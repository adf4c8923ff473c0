/**
 * The attempt log's append-only trigger names its own table in its refusal (issue #20 item 6: it
 * named catalog_scoring_results). Read through the handle's raw SQL, which keeps the server's
 * message (Prisma's PGlite adapter drops it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await t.query(`INSERT INTO "catalog_scoring_attempts" ("analysisId", "attempt", "event") VALUES ('an-analysis', 1, 'claimed')`);
});
afterAll(() => t?.close());

describe("catalog_scoring_attempts: append-only, and the refusal says so", () => {
  for (const [op, sql] of [
    ["UPDATE", `UPDATE "catalog_scoring_attempts" SET "event" = 'succeeded' WHERE "analysisId" = 'an-analysis'`],
    ["DELETE", `DELETE FROM "catalog_scoring_attempts" WHERE "analysisId" = 'an-analysis'`],
  ] as const) {
    it(`${op} is refused with a message naming catalog_scoring_attempts, not catalog_scoring_results`, async () => {
      const err = await t.query(sql).then(() => null, (e: Error) => e);
      expect(err).not.toBeNull();
      expect(err!.message).toContain("catalog_scoring_attempts");
      expect(err!.message).toContain(`${op} refused`);
      expect(err!.message).not.toContain("catalog_scoring_results");
      expect(await t.query(`SELECT "event" FROM "catalog_scoring_attempts" WHERE "analysisId" = 'an-analysis'`)).toEqual([{ event: "claimed" }]);
    });
  }
});
