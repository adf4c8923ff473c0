import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db";
import { rowsWithSettings } from "@/lib/sql";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "@/test/db";

// Server PostgreSQL only: PGlite is one in-process connection that no server can take away.
describe.skipIf(!testDatabaseUrl())("server database handle", () => {
  let t: TestDatabase;
  const uncaught: unknown[] = [];
  const record = (err: unknown) => uncaught.push(err);
  beforeAll(async () => {
    // One connection: a slot lost with the dead client would leave the pool with none.
    t = await createTestDatabase({ poolSize: 1 });
    process.on("uncaughtException", record);
  });
  afterAll(async () => {
    process.off("uncaughtException", record);
    await t.close();
  });

  it("a connection killed under a Prisma transaction fails that transaction, crashes nothing, and the pool goes on", async () => {
    const attempt = t.prisma.$transaction(async (tx) => {
      const [{ pid }] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      // What a server restart does to every connection: the backend is ended under the client.
      const admin = await openDatabase({ url: testDatabaseUrl()!, poolSize: 1 });
      await admin.query(`SELECT pg_terminate_backend($1)`, [pid]);
      await admin.close();
      await new Promise((r) => setTimeout(r, 300));
      await tx.$queryRaw`SELECT 1`;
    });
    await expect(attempt).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    expect(uncaught).toEqual([]);
    // The dead client went back to the pool and was discarded: the one slot serves again, through
    // Prisma and through raw SQL, within a bound (a leaked slot would wait forever).
    const within = <T,>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, no) => setTimeout(() => no(new Error("the pool has no free connection")), 3_000))]);
    expect(await within(t.prisma.$queryRaw<{ one: number }[]>`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    expect(await within(t.query<{ two: number }>(`SELECT 2 AS two`))).toEqual([{ two: 2 }]);
    expect(await within(t.prisma.$transaction(async (tx) => tx.$queryRaw<{ three: number }[]>`SELECT 3 AS three`))).toEqual([{ three: 3 }]);
  });

  it("a transaction waits for a busy pool longer than Prisma's default 2 s (a saturated web server's search), as a plain query does", async () => {
    // The pool's one connection is held for 3 s; a batch transaction asked for meanwhile must wait, not fail with P2028.
    const held = t.session(async (conn) => {
      await conn.query(`SELECT pg_sleep(3)`);
    });
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const rows = await rowsWithSettings<{ four: number }>(t.prisma, { "pg_trgm.word_similarity_threshold": "0.45" }, `SELECT 4 AS four`);
    expect(rows).toEqual([{ four: 4 }]);
    expect(Date.now() - started).toBeGreaterThan(2_000);
    await held;
  });
});
