/**
 * `npm run db:migrate` — apply the committed migrations (prisma/migrations/<name>/migration.sql, in
 * name order, lib/migrate.ts) to the configured database: the server PostgreSQL at DATABASE_URL,
 * else the embedded PGlite folder in TOLLGATE_DATA_DIR (default .data/pglite). Safe to run again
 * (applied migrations are skipped) and beside another migrator (they serialise on an advisory lock).
 * Exit codes: 0 migrated or already up to date; 1 a migration failed (its error is printed).
 */
import { database } from "@/lib/db";
import { env } from "@/lib/env";
import { migrate } from "@/lib/migrate";

async function main(): Promise<number> {
  const e = env();
  const handle = await database();
  try {
    const applied = await migrate(handle);
    const where = e.DATABASE_URL ? "the server PostgreSQL at DATABASE_URL" : `PGlite in ${e.dataDir}`;
    console.log(applied.length ? `applied ${applied.length} migration(s) to ${where}: ${applied.join(", ")}` : `${where} is up to date`);
    return 0;
  } finally {
    await handle.close();
  }
}

main().then((code) => process.exit(code), (err: unknown) => {
  console.error(`db:migrate: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
