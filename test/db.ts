/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new schema in the
 * server PostgreSQL named by TEST_DATABASE_URL (dropped again on close). Registers it as the
 * process-wide handle so code under test that calls db() uses it.
 *
 * On the server it is set up as production's server mode (docs/DATA-MODEL.md "Who may do what"):
 * TEST_DATABASE_URL's user owns the schema and runs the migrations; the handle the tests (and the
 * code under test) get connects as the app's role, TEST_APP_ROLE, a login that owns nothing and is
 * granted only what lib/migrate.ts grantAppRole gives it. The role is created when missing (roles are
 * cluster-wide; its grants are per schema, so test files running at once do not disturb each other).
 */
import crypto from "node:crypto";
import { openDatabase, setDatabase, type DatabaseHandle } from "@/lib/db";
import { grantAppRole, migrate } from "@/lib/migrate";

/** The app's role on the test server: no password (the test cluster trusts loopback), no superuser. */
export const TEST_APP_ROLE = "tollgate_test_app";

export interface TestDatabase extends DatabaseHandle {
  /** The server schema in use, or null on PGlite. */
  schema: string | null;
  /** The URL this handle connects with (as the app's role), or null on PGlite. */
  url: string | null;
  /** The role this handle connects as on the server (TEST_APP_ROLE), or null on PGlite (one superuser). */
  appRole: string | null;
  /** Run fn on a handle to the same schema as its owner (TEST_DATABASE_URL's user; on PGlite, this very handle). */
  asOwner<R>(fn: (owner: DatabaseHandle) => Promise<R>): Promise<R>;
}

export function testDatabaseUrl(): string | null {
  return process.env.TEST_DATABASE_URL || null;
}

/** TEST_DATABASE_URL with its user replaced by `role` (same host, database and options). */
export function urlAs(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  u.password = "";
  return u.toString();
}

export async function createTestDatabase(opts: { register?: boolean; poolSize?: number } = {}): Promise<TestDatabase> {
  const ownerUrl = testDatabaseUrl();
  let handle: DatabaseHandle;
  let schema: string | null = null;
  let url: string | null = null;
  if (ownerUrl) {
    schema = `t_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
    const owner = await openDatabase({ url: ownerUrl, schema, poolSize: 1, applicationName: schema });
    try {
      await owner.exec(`CREATE SCHEMA ${schema}`);
      await ensureRole(owner, TEST_APP_ROLE);
      await migrate(owner);
      await grantAppRole(owner, TEST_APP_ROLE);
    } finally {
      await owner.close();
    }
    url = urlAs(ownerUrl, TEST_APP_ROLE);
    handle = await openDatabase({ url, schema, poolSize: opts.poolSize ?? 10, applicationName: schema });
  } else {
    handle = await openDatabase({ pgliteDir: "memory" });
    await migrate(handle);
  }
  if (opts.register !== false) setDatabase(handle);
  const close = handle.close;
  return {
    ...handle,
    schema,
    url,
    appRole: ownerUrl ? TEST_APP_ROLE : null,
    asOwner: async (fn) => {
      if (!ownerUrl || !schema) return fn(handle);
      const owner = await openDatabase({ url: ownerUrl, schema, poolSize: 1, applicationName: schema });
      try {
        return await fn(owner);
      } finally {
        await owner.close();
      }
    },
    close: async () => {
      if (opts.register !== false) setDatabase(undefined);
      await close();
      if (ownerUrl && schema) {
        const admin = await openDatabase({ url: ownerUrl, poolSize: 1 });
        // Connections this test left behind (a client lost in a restart) would
        // hold locks that make DROP SCHEMA wait: end them first. They are named after the schema.
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [schema]);
        // The role's grants in the schema go with it (DROP … CASCADE drops the objects they are on).
        await admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.close();
      }
    },
  };
}

/** Create the login role when missing; test files starting at once may race to create it. */
async function ensureRole(owner: DatabaseHandle, role: string): Promise<void> {
  const exists = await owner.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [role]);
  if (exists.length > 0) return;
  try {
    await owner.exec(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOBYPASSRLS`);
  } catch (err) {
    // Another file created it between the look and the CREATE (duplicate_object, or unique_violation on pg_authid).
    const code = (err as { code?: string }).code;
    if (code !== "42710" && code !== "23505") throw err;
  }
}
