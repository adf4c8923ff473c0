/**
 * Raw SQL helpers for the queue. Every statement goes through Prisma ($queryRawUnsafe), so the same
 * code runs on PGlite and server Postgres and inside an interactive transaction.
 *
 * Time: the timestamp columns are `timestamp(3)` without time zone holding UTC (Prisma's convention),
 * so SQL computes "now" as `now() AT TIME ZONE 'UTC'` whatever the session's TimeZone says, and
 * timestamps leave SQL as ISO strings with a Z (never as driver-parsed local times).
 */
import { db } from "@/lib/db";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { TransactionClient } from "@/lib/generated/prisma/internal/prismaNamespace";

export type Client = PrismaClient | TransactionClient;

export const NOW_UTC = `(now() AT TIME ZONE 'UTC')`;

/** An ISO-8601 UTC string from a timestamp-without-time-zone column or expression. */
export function isoOf(expr: string): string {
  return `to_char(${expr}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A JS instant as a SQL timestamp in UTC (parameter placeholder `$n`). */
export function utcParam(n: number): string {
  return `($${n}::timestamptz AT TIME ZONE 'UTC')`;
}

export async function clientOr(client?: Client): Promise<Client> {
  return client ?? (await db());
}

export async function rows<T>(client: Client, sql: string, ...params: unknown[]): Promise<T[]> {
  return (await client.$queryRawUnsafe(sql, ...params)) as T[];
}

export function isUniqueViolation(e: unknown, index?: string): boolean {
  const text = String((e as { message?: string })?.message ?? "") + JSON.stringify((e as { meta?: unknown })?.meta ?? {});
  const code = (e as { code?: string })?.code;
  const unique = code === "P2002" || code === "23505" || /unique constraint|duplicate key|23505/i.test(text);
  return unique && (!index || text.includes(index) || code === "P2002");
}
