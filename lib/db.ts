/**
 * The one Prisma client. With DATABASE_URL unset it opens PGlite (real PostgreSQL compiled to WASM)
 * in the git-ignored data folder; with it set, a server PostgreSQL through @prisma/adapter-pg.
 * Both speak the same schema and the same committed migrations (lib/migrate.ts applies them).
 */
import fs from "node:fs";
import path from "node:path";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { env } from "@/lib/env";

export interface DatabaseHandle {
  prisma: PrismaClient;
  kind: "pglite" | "postgres";
  /** Run a multi-statement SQL script (migrations). */
  exec(sql: string): Promise<void>;
  /** Run one parameterised statement outside Prisma (migrator bookkeeping, advisory locks, lib/sql.ts's raw SQL). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
  /** Run fn on one dedicated connection (session-level advisory locks need it). */
  session<R>(fn: (conn: SqlConnection) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}

export interface SqlConnection {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
}

export interface QueryOptions {
  /**
   * Server mode: run as a named prepared statement, parsed and planned once per connection and
   * reused after (for the queue's hot statements). One name must always carry the same SQL text.
   * PGlite ignores it.
   */
  prepare?: string;
}

export interface OpenOptions {
  /** A postgresql:// URL; when absent, PGlite is used. */
  url?: string;
  /** PGlite folder, or "memory" for an in-memory database (tests). */
  pgliteDir?: string;
  /** Server mode only: the schema to use (tests create a fresh one per run). */
  schema?: string;
  /** Pool size for server mode. */
  poolSize?: number;
  /** Server mode: the application_name its connections carry (tests name them after their schema). */
  applicationName?: string;
}

export async function openDatabase(opts: OpenOptions): Promise<DatabaseHandle> {
  if (opts.url) return openPostgres(opts.url, opts.schema, opts.poolSize, opts.applicationName);
  return openPglite(opts.pgliteDir ?? "memory");
}

async function openPglite(dir: string): Promise<DatabaseHandle> {
  const [{ PGlite }, { pg_trgm }, { PrismaPGlite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
    import("pglite-prisma-adapter"),
  ]);
  if (dir !== "memory") fs.mkdirSync(dir, { recursive: true });
  const pglite = new PGlite({ dataDir: dir === "memory" ? undefined : dir, extensions: { pg_trgm } });
  await pglite.waitReady;
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  const conn: SqlConnection = {
    exec: async (sql) => {
      await pglite.exec(sql);
    },
    query: async <T,>(sql: string, params: unknown[] = []) => (await pglite.query<T>(sql, params)).rows,
  };
  return {
    prisma,
    kind: "pglite",
    ...conn,
    // PGlite is a single connection already.
    session: (fn) => fn(conn),
    close: async () => {
      await prisma.$disconnect();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/**
 * How long a Prisma transaction waits for a pooled connection before it fails (P2028 "Unable to start
 * a transaction in the given time"). Prisma's default is 2 s, while a plain query waits in the pool's
 * queue as long as it takes: under load (bench:load, 200 clients on a pool of 10) the catalog's search,
 * whose threshold and query share one transaction, and the health sweep failed with 500s where every
 * other page only slowed down. A transaction now waits like a query, bounded.
 */
export const TRANSACTION_MAX_WAIT_MS = 30_000;

async function openPostgres(url: string, schema?: string, poolSize = 10, applicationName?: string): Promise<DatabaseHandle> {
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
  const options = schema ? `-c search_path=${quoteIdent(schema)},public` : undefined;
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options, application_name: applicationName });
  // An idle client losing its server (a restart) must not crash the process; the pool reconnects.
  pool.on("error", () => {});
  returnDeadClients(pool);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, schema ? { schema } : undefined), transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS } });
  return {
    prisma,
    kind: "postgres",
    exec: async (sql) => {
      await pool.query(sql);
    },
    query: async <T,>(sql: string, params: unknown[] = [], opts?: QueryOptions) => (await pool.query(queryConfig(sql, params, opts))).rows as T[],
    session: async (fn) => {
      const client = await pool.connect();
      // A server going away under this client is returnDeadClients' (it hands the client back at
      // once). A query that failed on a dead connection without that event hands it back as broken.
      let broken: Error | undefined;
      try {
        return await fn({
          exec: async (sql) => {
            await client.query(sql);
          },
          query: async <T,>(sql: string, params: unknown[] = [], opts?: QueryOptions) => (await client.query(queryConfig(sql, params, opts))).rows as T[],
        });
      } catch (err) {
        broken ??= err instanceof Error && /terminat|connection/i.test(err.message) ? err : undefined;
        throw err;
      } finally {
        client.release(broken);
      }
    },
    close: async () => {
      // A client lost in a server restart can keep pool.end() waiting forever: bound the wait.
      const ended = prisma.$disconnect().then(() => pool.end());
      const timedOut = await Promise.race([ended.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 10_000).unref())]);
      if (timedOut) console.error("database pool did not drain within 10 s; closing anyway");
    },
  };
}

type PgPool = import("pg").Pool;
type PgPoolClient = import("pg").PoolClient;

/**
 * A checked-out client whose server goes away (a restart, an administrator's terminate) emits
 * 'error' on itself. Two things must not follow from that:
 * - an uncaught exception: some holders (Prisma's transactions between statements, pg-pool's
 *   one-shot query listener after its first error) have no listener at that moment, so every
 *   client gets one for its life;
 * - a pool slot lost for good: Prisma does not release a transaction's client when its ROLLBACK
 *   fails on the dead connection, so each transaction open at a restart would shrink the pool by
 *   one until the process restarts. The dead client is handed back with its error at once (pg-pool
 *   then discards it), and the holder's own later release becomes a no-op.
 */
function returnDeadClients(pool: PgPool): void {
  const checkedOut = new WeakSet<PgPoolClient>();
  pool.on("acquire", (client) => checkedOut.add(client));
  pool.on("release", (_err, client) => checkedOut.delete(client));
  pool.on("connect", (client) => {
    client.on("error", (err) => {
      if (!checkedOut.has(client)) return; // idle: pg-pool's own listener removes it
      const release = client.release.bind(client);
      client.release = () => {};
      release(err);
    });
  });
}

/** node-pg's query config: a named prepared statement when asked for (QueryOptions.prepare). */
function queryConfig(sql: string, params: unknown[], opts?: QueryOptions): { text: string; values: unknown[]; name?: string } {
  return opts?.prepare ? { name: opts.prepare, text: sql, values: params } : { text: sql, values: params };
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`invalid schema name ${JSON.stringify(name)}`);
  return name;
}

/** The embedded default's PGlite folder. */
export function pgliteDataDir(): string {
  return path.join(env().dataDir, "pglite");
}

const globalForDb = globalThis as unknown as { tollgateDb?: Promise<DatabaseHandle> };

/** The process-wide database handle (opened on first use, reused everywhere). */
export function database(): Promise<DatabaseHandle> {
  if (!globalForDb.tollgateDb) {
    const e = env();
    globalForDb.tollgateDb = openDatabase(e.DATABASE_URL ? { url: e.DATABASE_URL } : { pgliteDir: pgliteDataDir() });
  }
  return globalForDb.tollgateDb;
}

/** The process-wide handle's Prisma client, for model calls; raw SQL goes through the handle itself (database(), lib/sql.ts). */
export async function db(): Promise<PrismaClient> {
  return (await database()).prisma;
}

/** Use a handle opened elsewhere (tests, the demo script) as the process-wide one. */
export function setDatabase(handle: DatabaseHandle | undefined): void {
  globalForDb.tollgateDb = handle ? Promise.resolve(handle) : undefined;
}
