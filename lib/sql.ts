/**
 * The one door for raw SQL (rows, exec, rowsWithSettings; parameters always, never values spliced
 * into the text), on either path:
 * - server Postgres: single statements straight through the pg pool of lib/db's handle (Prisma's
 *   raw-query layer costs about 0.7 ms per statement on top of pg's 0.1–0.4 ms, measured here);
 *   a run of statements that needs one connection (session settings, a session advisory lock)
 *   through session(); transactions through Prisma (see transaction() for why);
 * - PGlite: through Prisma (its raw queries and $transaction), because PGlite is one connection and
 *   Prisma's adapter serialises transactions on it; a side channel could interleave with them.
 * Model calls off the hot path (creating a row, reading progress) use Prisma either way: prismaOf().
 *
 * Time: the timestamp columns are `timestamp(3)` without time zone holding UTC (Prisma's convention),
 * so SQL computes "now" as `now() AT TIME ZONE 'UTC'` whatever the session's TimeZone says, and
 * timestamps leave SQL as ISO strings with a Z (never as driver-parsed local times).
 */
import { database, type DatabaseHandle, type SqlConnection } from "@/lib/db";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { TransactionClient } from "@/lib/generated/prisma/internal/prismaNamespace";

export type PrismaLike = PrismaClient | TransactionClient;
/** Anything a queue function can run on: a handle, a pooled connection in a transaction, or Prisma. */
export type Client = PrismaLike | DatabaseHandle | SqlConnection;

export const NOW_UTC = `(now() AT TIME ZONE 'UTC')`;

/** An ISO-8601 UTC string from a timestamp-without-time-zone column or expression. */
export function isoOf(expr: string): string {
  return `to_char(${expr}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A JS instant as a SQL timestamp in UTC (parameter placeholder `$n`). */
export function utcParam(n: number): string {
  return `($${n}::timestamptz AT TIME ZONE 'UTC')`;
}

const isPrisma = (c: Client): c is PrismaLike => typeof (c as PrismaLike).$queryRawUnsafe === "function";
const isHandle = (c: Client): c is DatabaseHandle => typeof (c as DatabaseHandle).session === "function" && "prisma" in c;

/** The default: the process-wide handle on server Postgres, its Prisma client on PGlite. */
export async function clientOr(client?: Client): Promise<Client> {
  if (client) return client;
  const h = await database();
  return h.kind === "postgres" ? h : h.prisma;
}

/** A Prisma client for model calls, from whatever the caller passed. */
export async function prismaOf(client?: Client): Promise<PrismaLike> {
  if (!client) return (await database()).prisma;
  if (isPrisma(client)) return client;
  if (isHandle(client)) return client.prisma;
  throw new Error("this operation needs a Prisma client, not a bare SQL connection");
}

export async function rows<T>(client: Client, sql: string, ...params: unknown[]): Promise<T[]> {
  if (isPrisma(client)) return (await client.$queryRawUnsafe(sql, ...params)) as T[];
  return client.query<T>(sql, params);
}

/**
 * Run one parameterised statement for its effect; answers how many rows it changed. Through Prisma
 * (a handle's client on either backend, or the caller's transaction), like every write here.
 */
export async function exec(client: PrismaLike | DatabaseHandle, sql: string, ...params: unknown[]): Promise<number> {
  const prisma = isHandle(client) ? client.prisma : client;
  return prisma.$executeRawUnsafe(sql, ...params);
}

/**
 * rows() with transaction-local settings (`set_config(name, value, true)`, values as parameters):
 * the settings and the statement go as one Prisma batch transaction, so the settings stay on its
 * connection and end with it.
 */
export async function rowsWithSettings<T>(prisma: PrismaClient, settings: Record<string, string>, sql: string, ...params: unknown[]): Promise<T[]> {
  const set = Object.entries(settings).map(([name, value]) => prisma.$queryRawUnsafe(`SELECT set_config($1, $2, true)`, name, value));
  const answers = await prisma.$transaction([...set, prisma.$queryRawUnsafe(sql, ...params)]);
  return answers[answers.length - 1] as T[];
}

/**
 * rows() for the queue's hot statements: on a server connection, a named prepared statement (parsed
 * and planned once per connection; bench:queue's claim and completion each ran 0.2–0.3 ms faster).
 * `name` must be unique to this SQL text. Through Prisma (PGlite, transactions) it is rows().
 */
export async function preparedRows<T>(client: Client, name: string, sql: string, ...params: unknown[]): Promise<T[]> {
  if (isPrisma(client)) return (await client.$queryRawUnsafe(sql, ...params)) as T[];
  return client.query<T>(sql, params, { prepare: `tollgate_${name}` });
}

/** Session settings for session(): `set` statements run first on the connection, `reset` after. */
export interface SessionSettings {
  set: readonly string[];
  reset: string;
}

/**
 * Run fn on one connection of its own. On server Postgres (a handle): a pooled connection (lib/db's
 * handle.session), with `settings` applied before fn and reset after, so they never reach another
 * statement of the pool. Anywhere else fn runs on the client itself, which already is one connection:
 * PGlite (through its Prisma client, as everywhere here), or a transaction or connection the caller
 * holds; `settings` are then left out, so only give settings that no statement's answer depends on
 * (planner settings).
 */
export async function session<R>(client: Client, fn: (conn: Client) => Promise<R>, settings?: SessionSettings): Promise<R> {
  if (!isHandle(client)) return fn(client);
  if (client.kind !== "postgres") return fn(client.prisma);
  return client.session(async (conn) => {
    if (!settings) return fn(conn);
    for (const s of settings.set) await conn.exec(s);
    try {
      return await fn(conn);
    } finally {
      await conn.exec(settings.reset);
    }
  });
}

/**
 * Run fn in one transaction: Prisma's interactive transaction (both backends), or the caller's own
 * when handed a transaction client or connection. One transaction path for both backends (on PGlite
 * it must be Prisma's, see above). Not handle.session() + BEGIN on server Postgres, though that is
 * faster: this was chosen when lib/db's session() checked a pg client out without an 'error' listener
 * and a database restart crashed the process; session() now listens and discards a broken client,
 * so that reason is gone, but the transactions have not been moved or measured since.
 */
export async function transaction<R>(client: Client, fn: (tx: Client) => Promise<R>): Promise<R> {
  const prisma = isHandle(client) ? client.prisma : isPrisma(client) && "$transaction" in client ? client : null;
  if (prisma) return prisma.$transaction((tx) => fn(tx), { timeout: 20_000, maxWait: 10_000 });
  return fn(client);
}

export function isUniqueViolation(e: unknown, index?: string): boolean {
  const text = String((e as { message?: string })?.message ?? "") + JSON.stringify((e as { meta?: unknown })?.meta ?? {});
  const code = (e as { code?: string })?.code;
  const unique = code === "P2002" || code === "23505" || /unique constraint|duplicate key|23505/i.test(text);
  return unique && (!index || text.includes(index) || code === "P2002");
}
