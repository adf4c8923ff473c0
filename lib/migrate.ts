/**
 * Applies the committed prisma/migrations/<name>/migration.sql files in order, on PGlite and on a
 * server PostgreSQL alike. Prisma's own `migrate deploy` fails through @prisma/adapter-pg on a server
 * (prisma/orm#27403), so this does the same job and writes Prisma's `_prisma_migrations` rows, which
 * keeps `prisma migrate status/deploy` compatible. Concurrent migrators serialise on an advisory lock.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { DatabaseHandle, SqlConnection } from "@/lib/db";

const LOCK_KEY = 724_021_402; // arbitrary, fixed: "tollgate migrations"

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

// turbopackIgnore: the folder is read at run time; without it Turbopack traces the whole project from process.cwd().
export function readMigrations(dir = path.join(/*turbopackIgnore: true*/ process.cwd(), "prisma", "migrations")): MigrationFile[] {
  return fs
    .readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(/*turbopackIgnore: true*/ dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(/*turbopackIgnore: true*/ dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    });
}

export async function migrate(handle: DatabaseHandle, migrations = readMigrations()): Promise<string[]> {
  return handle.session((conn) => migrateOn(conn, migrations));
}

async function migrateOn(handle: SqlConnection, migrations: MigrationFile[]): Promise<string[]> {
  const applied: string[] = [];
  await handle.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
  try {
    await handle.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = await handle.query<{ migration_name: string; checksum: string }>(
      `SELECT "migration_name", "checksum" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
    );
    const byName = new Map(done.map((r) => [r.migration_name, r.checksum]));
    for (const m of migrations) {
      const prior = byName.get(m.name);
      if (prior !== undefined) {
        if (prior !== m.checksum) {
          throw new Error(`migration ${m.name} was edited after it was applied (checksum differs); add a new migration instead`);
        }
        continue;
      }
      // One simple-protocol script runs as one implicit transaction: the migration and its
      // bookkeeping row commit together, or not at all.
      await handle.exec(`${m.sql}\n;\n${bookkeeping(m)}`).catch((err) => {
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      });
      applied.push(m.name);
    }
  } finally {
    await handle.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]);
  }
  return applied;
}

function bookkeeping(m: MigrationFile): string {
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  return `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "applied_steps_count")
    VALUES (${lit(crypto.randomUUID())}, ${lit(m.checksum)}, now(), ${lit(m.name)}, 1);`;
}

/**
 * Server mode's role split (docs/DATA-MODEL.md "Who may do what"): the migrations run as the tables'
 * owner, the app connects as `role`, a login that owns nothing. This grants `role` what the product
 * needs in the migrating connection's schema, and nothing that could undo a guard: USAGE on the
 * schema (no CREATE), SELECT/INSERT/UPDATE/DELETE on its tables (no TRUNCATE, REFERENCES or TRIGGER;
 * only SELECT on `_prisma_migrations`), USAGE/SELECT on its sequences. Not being the owner, the role
 * cannot ALTER a table (so no DISABLE TRIGGER), and not being a superuser it cannot set
 * session_replication_role, so every trigger holds for it. Grants are per schema and idempotent: run
 * after every migration (new tables get theirs), and safe beside other schemas using the same role.
 * Refuses a role that is missing, a superuser, the owner, a member of the owner, or owns anything here.
 */
export async function grantAppRole(handle: DatabaseHandle, role: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(role)) throw new Error(`app role ${JSON.stringify(role)} must be a lower-case PostgreSQL identifier (letters, digits, _)`);
  await handle.session(async (conn) => {
    const [me] = await conn.query<{ owner: string; schema: string }>(`SELECT current_user AS "owner", current_schema() AS "schema"`);
    const [r] = await conn.query<{ rolsuper: boolean; rolbypassrls: boolean; member: boolean; owns: number }>(
      `SELECT r.rolsuper, r.rolbypassrls, pg_has_role(r.oid, $2::name, 'MEMBER') AS member,
              (SELECT count(*)::int FROM pg_class c WHERE c.relowner = r.oid AND c.relnamespace = $3::regnamespace) AS owns
       FROM pg_roles r WHERE r.rolname = $1`,
      [role, me.owner, me.schema],
    );
    if (!r) throw new Error(`app role ${role} does not exist: create it first (CREATE ROLE ${role} LOGIN PASSWORD '…'), then migrate again`);
    if (r.rolsuper || r.rolbypassrls) throw new Error(`app role ${role} is a superuser (or bypasses row security): the app must connect as a role that cannot switch triggers off`);
    if (role === me.owner || r.member) throw new Error(`app role ${role} is, or acts as, ${me.owner}, which owns the tables: the app needs a role of its own`);
    if (r.owns > 0) throw new Error(`app role ${role} owns ${r.owns} relation(s) in schema ${me.schema}: the app's role must own nothing`);
    const s = `"${me.schema.replace(/"/g, '""')}"`;
    await conn.exec(`
      REVOKE ALL ON SCHEMA ${s} FROM ${role};
      GRANT USAGE ON SCHEMA ${s} TO ${role};
      REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ${role};
      GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${role};
      REVOKE INSERT, UPDATE, DELETE ON ${s}."_prisma_migrations" FROM ${role};
      GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${role};`);
  });
}

/**
 * Why this connection could switch the history guards off, or null when it cannot: it is a superuser
 * (or bypasses row security), or it owns, or is a member of the owner of, a table of its schema
 * (docs/DATA-MODEL.md "Who may do what"). A server process checks its own connection at start.
 */
export async function guardBypassRisk(handle: DatabaseHandle): Promise<string | null> {
  const [r] = await handle.query<{ user: string; schema: string; super: boolean; owned: number }>(
    `SELECT current_user AS "user", current_schema() AS "schema", (r.rolsuper OR r.rolbypassrls) AS "super",
            (SELECT count(*)::int FROM pg_class c
              WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
                AND pg_has_role(current_user, c.relowner, 'MEMBER')) AS "owned"
       FROM pg_roles r WHERE r.rolname = current_user`,
  );
  if (!r) return null;
  if (r.super) return `the database role ${r.user} is a superuser (or bypasses row security), so it can switch the history guards off`;
  if (r.owned > 0) return `the database role ${r.user} owns (or acts as the owner of) ${r.owned} table(s) in schema ${r.schema}, so it can switch the history guards off`;
  return null;
}

/**
 * Server mode, at a web process's start (instrumentation.ts): say when its database role could switch
 * the history guards off, i.e. the deployment skipped the app role `db:migrate` grants. A warning, not
 * a refusal: the product works, only the database's own defence against its app is missing.
 */
export async function warnIfGuardsBypassable(handle: DatabaseHandle, log: (line: string) => void = (l) => console.error(l)): Promise<void> {
  try {
    const risk = await guardBypassRisk(handle);
    if (risk) log(`tollgate: warning: ${risk}; run the app as a role that owns nothing (TOLLGATE_MIGRATE_URL for db:migrate; docs/DATA-MODEL.md "Who may do what")`);
  } catch (err) {
    log(`tollgate: could not check the database role's privileges: ${(err as Error).message}`);
  }
}

/** The user name in a postgresql:// URL (the role it logs in as). */
export function urlRole(url: string): string {
  const u = new URL(url);
  return decodeURIComponent(u.username) || (process.env.PGUSER ?? process.env.USER ?? "");
}
