/** The one door for raw SQL, always parameterised (docs/DATA-MODEL.md "Raw SQL"). */
import { randomBytes } from "node:crypto";
import { database, type DatabaseHandle, type SqlConnection } from "@/lib/db";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { TransactionClient } from "@/lib/generated/prisma/internal/prismaNamespace";

export type PrismaLike = PrismaClient | TransactionClient;
export type Client = PrismaLike | DatabaseHandle | SqlConnection;

export const NOW_UTC = `(now() AT TIME ZONE 'UTC')`;

/** An id for a row a raw INSERT writes (Prisma's `@default(cuid())` is not applied there): the prefix, then 24 random base-36 digits. */
export function randomRowId(prefix: string): string {
  return prefix + BigInt("0x" + randomBytes(16).toString("hex")).toString(36).padStart(25, "0").slice(0, 24);
}

let sortableCounter = 0;
/** A 25-character id as Prisma's cuid(): "c", the time in base 36, a counter and random digits, so ids still sort roughly by creation. */
export function sortableRowId(): string {
  sortableCounter = (sortableCounter + 1) % 36 ** 4;
  const random = BigInt("0x" + randomBytes(10).toString("hex")).toString(36).padStart(12, "0").slice(-12);
  return "c" + Date.now().toString(36).padStart(8, "0") + sortableCounter.toString(36).padStart(4, "0") + random;
}

export function isoOf(expr: string): string {
  return `to_char(${expr}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

export function utcParam(n: number): string {
  return `($${n}::timestamptz AT TIME ZONE 'UTC')`;
}

const isPrisma = (c: Client): c is PrismaLike => typeof (c as PrismaLike).$queryRawUnsafe === "function";
const isHandle = (c: Client): c is DatabaseHandle => typeof (c as DatabaseHandle).session === "function" && "prisma" in c;

export async function clientOr(client?: Client): Promise<Client> {
  if (client) return client;
  const h = await database();
  return h.kind === "postgres" ? h : h.prisma;
}

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

export async function exec(client: PrismaLike | DatabaseHandle, sql: string, ...params: unknown[]): Promise<number> {
  const prisma = isHandle(client) ? client.prisma : client;
  return prisma.$executeRawUnsafe(sql, ...params);
}

export async function rowsWithSettings<T>(prisma: PrismaClient, settings: Record<string, string>, sql: string, ...params: unknown[]): Promise<T[]> {
  // Every setting in one statement.
  const entries = Object.entries(settings);
  const set = entries.length ? [prisma.$queryRawUnsafe(`SELECT ${entries.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(", ")}`, ...entries.flat())] : [];
  const answers = await prisma.$transaction([...set, prisma.$queryRawUnsafe(sql, ...params)]);
  return answers[answers.length - 1] as T[];
}

/** bench:queue: 0.2–0.3 ms faster on a server. */
export async function preparedRows<T>(client: Client, name: string, sql: string, ...params: unknown[]): Promise<T[]> {
  if (isPrisma(client)) return (await client.$queryRawUnsafe(sql, ...params)) as T[];
  return client.query<T>(sql, params, { prepare: `tollgate_${name}` });
}

export interface SessionSettings {
  set: readonly string[];
  reset: string;
}

/** Elsewhere settings are left out, so give only planner settings. */
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
