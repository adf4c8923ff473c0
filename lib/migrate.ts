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

export function readMigrations(dir = path.join(process.cwd(), "prisma", "migrations")): MigrationFile[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
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
