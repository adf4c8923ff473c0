/**
 * `npm run db:migrate` — apply the committed migrations (prisma/migrations/<name>/migration.sql, in
 * name order, lib/migrate.ts) to the configured database: the server PostgreSQL at DATABASE_URL,
 * else the embedded PGlite folder in TOLLGATE_DATA_DIR (default .data/pglite). Safe to run again
 * (applied migrations are skipped) and beside another migrator (they serialise on an advisory lock).
 *
 * Server mode with TOLLGATE_MIGRATE_URL (the tables' owner): the migrations run as that owner, and
 * DATABASE_URL's user, the app's role, is then granted what the app needs and nothing that could
 * switch a guard off (lib/migrate.ts grantAppRole; docs/DATA-MODEL.md "Who may do what"). Without
 * it the app's own login migrates and owns the tables, and this says so.
 * Exit codes: 0 migrated or already up to date; 1 a migration (or the grant) failed (its error is printed).
 */
import { database, openDatabase } from "@/lib/db";
import { env } from "@/lib/env";
import { grantAppRole, migrate, urlRole } from "@/lib/migrate";

async function main(): Promise<number> {
  const e = env();
  const owner = e.TOLLGATE_MIGRATE_URL;
  const handle = owner ? await openDatabase({ url: owner, poolSize: 1 }) : await database();
  try {
    const applied = await migrate(handle);
    const where = e.DATABASE_URL ? "the server PostgreSQL at DATABASE_URL" : `PGlite in ${e.dataDir}`;
    console.log(applied.length ? `applied ${applied.length} migration(s) to ${where}: ${applied.join(", ")}` : `${where} is up to date`);
    if (owner && e.DATABASE_URL) {
      const role = urlRole(e.DATABASE_URL);
      await grantAppRole(handle, role);
      console.log(`granted the app's role ${role} its privileges (it owns nothing, so it cannot switch triggers off)`);
    } else if (e.DATABASE_URL) {
      console.warn("warning: TOLLGATE_MIGRATE_URL is unset, so DATABASE_URL's user owns the tables and could switch their guards off; see docs/DATA-MODEL.md \"Who may do what\"");
    }
    return 0;
  } finally {
    await handle.close();
  }
}

main().then((code) => process.exit(code), (err: unknown) => {
  console.error(`db:migrate: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
