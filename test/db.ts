/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new schema in the
 * server PostgreSQL named by TEST_DATABASE_URL (dropped again on close). Registers it as the
 * process-wide handle so code under test that calls db() uses it.
 */
import crypto from "node:crypto";
import { openDatabase, setDatabase, type DatabaseHandle } from "@/lib/db";
import { migrate } from "@/lib/migrate";

export interface TestDatabase extends DatabaseHandle {
  /** The server schema in use, or null on PGlite. */
  schema: string | null;
  url: string | null;
}

export function testDatabaseUrl(): string | null {
  return process.env.TEST_DATABASE_URL || null;
}

export async function createTestDatabase(opts: { register?: boolean; poolSize?: number } = {}): Promise<TestDatabase> {
  const url = testDatabaseUrl();
  let handle: DatabaseHandle;
  let schema: string | null = null;
  if (url) {
    schema = `t_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
    const admin = await openDatabase({ url, poolSize: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    await admin.close();
    handle = await openDatabase({ url, schema, poolSize: opts.poolSize ?? 10, applicationName: schema });
  } else {
    handle = await openDatabase({ pgliteDir: "memory" });
  }
  await migrate(handle);
  if (opts.register !== false) setDatabase(handle);
  const close = handle.close;
  return {
    ...handle,
    schema,
    url,
    close: async () => {
      if (opts.register !== false) setDatabase(undefined);
      await close();
      if (url && schema) {
        const admin = await openDatabase({ url, poolSize: 1 });
        // Connections this test left behind (a client lost in a restart) would
        // hold locks that make DROP SCHEMA wait: end them first. They are named after the schema.
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [schema]);
        await admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.close();
      }
    },
  };
}
