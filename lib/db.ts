/** The one Prisma client: PGlite without DATABASE_URL, else server PostgreSQL through @prisma/adapter-pg. */
import fs from "node:fs";
import path from "node:path";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { env } from "@/lib/env";

export interface DatabaseHandle {
  prisma: PrismaClient;
  kind: "pglite" | "postgres";
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
  session<R>(fn: (conn: SqlConnection) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}

export interface SqlConnection {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
}

export interface QueryOptions {
  /** Server mode: a named prepared statement; one name, one SQL text. */
  prepare?: string;
}

export interface OpenOptions {
  url?: string;
  pgliteDir?: string;
  schema?: string;
  poolSize?: number;
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
    session: (fn) => fn(conn),
    close: async () => {
      await prisma.$disconnect();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** Prisma's 2 s default failed pages with 500s under load (bench:load). */
export const TRANSACTION_MAX_WAIT_MS = 30_000;

async function openPostgres(url: string, schema?: string, poolSize = 10, applicationName?: string): Promise<DatabaseHandle> {
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
  const options = schema ? `-c search_path=${quoteIdent(schema)},public` : undefined;
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options, application_name: applicationName });
  // An idle client losing its server must not crash the process.
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
      // A client lost in a restart can keep pool.end() waiting forever.
      const ended = prisma.$disconnect().then(() => pool.end());
      const timedOut = await Promise.race([ended.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 10_000).unref())]);
      if (timedOut) console.error("database pool did not drain within 10 s; closing anyway");
    },
  };
}

type PgPool = import("pg").Pool;
type PgPoolClient = import("pg").PoolClient;

/**
 * A dead checked-out client is handed back at once: Prisma would not release it after a failed ROLLBACK, shrinking
 * the pool for good.
 */
function returnDeadClients(pool: PgPool): void {
  const checkedOut = new WeakSet<PgPoolClient>();
  pool.on("acquire", (client) => checkedOut.add(client));
  pool.on("release", (_err, client) => checkedOut.delete(client));
  pool.on("connect", (client) => {
    client.on("error", (err) => {
      if (!checkedOut.has(client)) return;
      const release = client.release.bind(client);
      client.release = () => {};
      release(err);
    });
  });
}

function queryConfig(sql: string, params: unknown[], opts?: QueryOptions): { text: string; values: unknown[]; name?: string } {
  return opts?.prepare ? { name: opts.prepare, text: sql, values: params } : { text: sql, values: params };
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`invalid schema name ${JSON.stringify(name)}`);
  return name;
}

export function pgliteDataDir(): string {
  return path.join(env().dataDir, "pglite");
}

const globalForDb = globalThis as unknown as { tollgateDb?: Promise<DatabaseHandle> };

export function database(): Promise<DatabaseHandle> {
  if (!globalForDb.tollgateDb) {
    const e = env();
    globalForDb.tollgateDb = openDatabase(e.DATABASE_URL ? { url: e.DATABASE_URL } : { pgliteDir: pgliteDataDir() });
  }
  return globalForDb.tollgateDb;
}

export async function db(): Promise<PrismaClient> {
  return (await database()).prisma;
}

export function setDatabase(handle: DatabaseHandle | undefined): void {
  globalForDb.tollgateDb = handle ? Promise.resolve(handle) : undefined;
}
