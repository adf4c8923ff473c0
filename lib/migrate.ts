/**
 * Applies prisma/migrations on both backends, writing Prisma's `_prisma_migrations` rows (`migrate deploy` fails
 * through @prisma/adapter-pg, prisma/orm#27403).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { DatabaseHandle, SqlConnection } from "@/lib/db";

const LOCK_KEY = 724_021_402; // arbitrary, fixed

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

// turbopackIgnore: read at run time; otherwise Turbopack traces the whole project.
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
      // One simple-protocol script is one implicit transaction: migration and bookkeeping commit together.
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
 * Grants the app's role what the product needs and nothing that could undo a guard (docs/DATA-MODEL.md "Who may do
 * what").
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

/** A warning, not a refusal: the database's own defence is missing. */
export async function warnIfGuardsBypassable(handle: DatabaseHandle, log: (line: string) => void = (l) => console.error(l)): Promise<void> {
  try {
    const risk = await guardBypassRisk(handle);
    if (risk) log(`tollgate: warning: ${risk}; run the app as a role that owns nothing (TOLLGATE_MIGRATE_URL for db:migrate; docs/DATA-MODEL.md "Who may do what")`);
  } catch (err) {
    log(`tollgate: could not check the database role's privileges: ${(err as Error).message}`);
  }
}

export function urlRole(url: string): string {
  const u = new URL(url);
  return decodeURIComponent(u.username) || (process.env.PGUSER ?? process.env.USER ?? "");
}
