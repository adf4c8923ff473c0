/** The house wallet's daily budget (docs/CANARY.md "The budget"), enforced in the database before any signature. */
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { exec, rows, type PrismaLike } from "@/lib/sql";
import { listedSql } from "@/lib/listings/visibility";

export const DAY_SCOPE = "*";
export const orgScope = (organizationId: string) => `org:${organizationId}`;
/**
 * A payee's share, per organisation that quotes it: a 402 naming another organisation's payee spends only the
 * quoting organisation's share of it, never the payee's own seller's (lib/canary/payto-share.test.ts).
 */
export const payToScope = (network: string, payTo: string, organizationId: string) => `payto:${network}:${payTo.toLowerCase()}:${organizationId}`;

export interface BudgetCaps {
  day: bigint;
  listing: bigint;
  organization?: bigint;
  payTo?: bigint;
}

export function configuredCaps(): BudgetCaps {
  const e = env();
  return {
    day: BigInt(e.TOLLGATE_CANARY_BUDGET_DAY),
    listing: BigInt(e.TOLLGATE_CANARY_BUDGET_LISTING),
    organization: BigInt(e.TOLLGATE_CANARY_BUDGET_ORGANIZATION),
    payTo: BigInt(e.TOLLGATE_CANARY_BUDGET_PAYTO),
  };
}

const orgCap = (caps: BudgetCaps) => caps.organization ?? caps.day;
const payToCap = (caps: BudgetCaps) => caps.payTo ?? caps.day;

export function utcDay(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}

export type BudgetScope = "day" | "organization" | "listing";
export type Reservation = { ok: true; day: string; amount: bigint; already: boolean } | { ok: false; scope: BudgetScope; day: string; left: bigint };

class Refused extends Error {
  constructor(readonly scope: BudgetScope) {
    super(scope);
  }
}

export async function reserve(input: { runId: string; listingId: string; amount: bigint; caps?: BudgetCaps; at?: Date }): Promise<Reservation> {
  if (input.amount < 0n) throw new AppError("bad_request", "/amount must not be negative", [{ pointer: "/amount", message: "must not be negative" }]);
  const caps = input.caps ?? configuredCaps();
  const day = utcDay(input.at);
  const prisma = await db();
  try {
    return await prisma.$transaction(async (tx) => {
      const [run] = await rows<{ reserved: string | null; budgetDay: string | null }>(
        tx,
        `SELECT "reserved"::text AS "reserved", to_char("budgetDay", 'YYYY-MM-DD') AS "budgetDay" FROM "canary_runs" WHERE "id" = $1 FOR UPDATE`,
        input.runId,
      );
      if (!run) throw new AppError("not_found", `canary run ${input.runId} does not exist`);
      if (run.reserved !== null) return { ok: true as const, day: run.budgetDay ?? day, amount: BigInt(run.reserved), already: true };
      const org = orgScope(await organizationOf(tx, input.listingId));
      await exec(
        tx,
        `INSERT INTO "canary_budget" ("day", "scope") VALUES ($1::date, $2), ($1::date, $3), ($1::date, $4) ON CONFLICT ("day", "scope") DO NOTHING`,
        day,
        DAY_SCOPE,
        org,
        input.listingId,
      );
      const order: Array<readonly [BudgetScope, string, bigint]> = [["day", DAY_SCOPE, caps.day], ["organization", org, orgCap(caps)], ["listing", input.listingId, caps.listing]];
      for (const [scope, key, cap] of order) {
        if (!(await takeShare(tx, day, key, input.amount, cap))) throw new Refused(scope);
      }
      await exec(tx, `UPDATE "canary_runs" SET "reserved" = $2::numeric, "budgetDay" = $3::date WHERE "id" = $1`, input.runId, input.amount.toString(), day);
      return { ok: true as const, day, amount: input.amount, already: false };
    });
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    const left = await budgetLeft(input.listingId, { caps, at: input.at });
    return { ok: false, scope: e.scope, day, left: e.scope === "day" ? left.day : e.scope === "organization" ? left.organization : left.listing };
  }
}

async function organizationOf(tx: PrismaLike, listingId: string): Promise<string> {
  const [row] = await rows<{ organizationId: string }>(tx, `SELECT "organizationId" FROM "listings" WHERE "id" = $1`, listingId);
  if (!row) throw new AppError("not_found", `listing ${listingId} does not exist`);
  return row.organizationId;
}

async function takeShare(client: PrismaLike, day: string, scope: string, amount: bigint, cap: bigint): Promise<boolean> {
  const took = await exec(
    client,
    `UPDATE "canary_budget" SET "spent" = "spent" + $3::numeric, "updatedAt" = now() AT TIME ZONE 'UTC'
      WHERE "day" = $1::date AND "scope" = $2 AND "spent" + $3::numeric <= $4::numeric`,
    day,
    scope,
    amount.toString(),
    cap.toString(),
  );
  return took === 1;
}

/** What it takes stays counted until the authorization expires. */
export async function reservePayTo(input: { network: string; payTo: string; listingId: string; amount: bigint; caps?: BudgetCaps; at?: Date }): Promise<{ ok: true } | { ok: false; left: bigint }> {
  const caps = input.caps ?? configuredCaps();
  const cap = payToCap(caps);
  const day = utcDay(input.at);
  const prisma = await db();
  const scope = payToScope(input.network, input.payTo, await organizationOf(prisma, input.listingId));
  await exec(prisma, `INSERT INTO "canary_budget" ("day", "scope") VALUES ($1::date, $2) ON CONFLICT ("day", "scope") DO NOTHING`, day, scope);
  if (await takeShare(prisma, day, scope, input.amount, cap)) return { ok: true };
  const [row] = await rows<{ spent: string }>(prisma, `SELECT "spent"::text AS "spent" FROM "canary_budget" WHERE "day" = $1::date AND "scope" = $2`, day, scope);
  const left = cap - BigInt(row?.spent ?? "0");
  return { ok: false, left: left < 0n ? 0n : left };
}

/**
 * A run's reservation less what its samples signed for, given back (finishRun, and the dead letter in lease.ts).
 * A sample's nonce is written before its payment leaves, so a signed sample counts whether or not it settled.
 */
export async function releaseUnsigned(tx: PrismaLike, runId: string, listingId: string): Promise<void> {
  const [r] = await rows<{ reserved: string | null; budgetDay: string | null; signed: string }>(
    tx,
    `SELECT r."reserved"::text AS reserved, to_char(r."budgetDay", 'YYYY-MM-DD') AS "budgetDay",
            COALESCE((SELECT sum(COALESCE(s."quotedAmount", '0')::numeric) FROM "canary_samples" s
                       WHERE s."runId" = r."id" AND s."authorizationNonce" IS NOT NULL), 0)::text AS signed
       FROM "canary_runs" r WHERE r."id" = $1`,
    runId,
  );
  if (r?.reserved && r.budgetDay) await release(tx, { listingId, budgetDay: r.budgetDay, amount: BigInt(r.reserved) - BigInt(r.signed) });
}

export async function release(tx: PrismaLike, run: { listingId: string; budgetDay: string; amount: bigint }): Promise<void> {
  if (run.amount <= 0n) return;
  await exec(
    tx,
    `UPDATE "canary_budget" SET "spent" = GREATEST("spent" - $3::numeric, 0), "updatedAt" = now() AT TIME ZONE 'UTC'
      WHERE "day" = $1::date AND "scope" IN ($2, $4, (SELECT 'org:' || l."organizationId" FROM "listings" l WHERE l."id" = $4))`,
    run.budgetDay,
    DAY_SCOPE,
    run.amount.toString(),
    run.listingId,
  );
}

export async function budgetLeft(
  listingId: string | null,
  opts: { caps?: BudgetCaps; at?: Date } = {},
): Promise<{ day: bigint; listing: bigint; organization: bigint; spentDay: bigint; spentListing: bigint; spentOrganization: bigint }> {
  const caps = opts.caps ?? configuredCaps();
  const prisma = await db();
  const org = listingId ? orgScope(await organizationOf(prisma, listingId)) : DAY_SCOPE;
  const shares = await rows<{ scope: string; spent: string }>(
    prisma,
    `SELECT "scope", "spent"::text AS "spent" FROM "canary_budget" WHERE "day" = $1::date AND "scope" IN ($2, $3, $4)`,
    utcDay(opts.at),
    DAY_SCOPE,
    listingId ?? DAY_SCOPE,
    org,
  );
  const spentOf = (scope: string) => BigInt(shares.find((r) => r.scope === scope)?.spent ?? "0");
  const spentDay = spentOf(DAY_SCOPE);
  const spentListing = listingId ? spentOf(listingId) : 0n;
  const spentOrganization = listingId ? spentOf(org) : 0n;
  const max0 = (v: bigint) => (v < 0n ? 0n : v);
  return { day: max0(caps.day - spentDay), listing: max0(caps.listing - spentListing), organization: max0(orgCap(caps) - spentOrganization), spentDay, spentListing, spentOrganization };
}

export async function budgetLeftForListings(listingIds: string[], opts: { caps?: BudgetCaps; at?: Date } = {}): Promise<{ day: string; caps: BudgetCaps; leftDay: bigint; spentDay: bigint; leftByListing: Map<string, bigint> }> {
  const caps = opts.caps ?? configuredCaps();
  const day = utcDay(opts.at);
  const prisma = await db();
  const shares = await rows<{ scope: string; spent: string }>(
    prisma,
    `SELECT "scope", "spent"::text AS "spent" FROM "canary_budget" WHERE "day" = $1::date AND ("scope" = $2 OR "scope" = ANY($3::text[]))`,
    day,
    DAY_SCOPE,
    listingIds,
  );
  const spent = new Map(shares.map((r) => [r.scope, BigInt(r.spent)]));
  const max0 = (v: bigint) => (v < 0n ? 0n : v);
  const spentDay = spent.get(DAY_SCOPE) ?? 0n;
  return { day, caps, leftDay: max0(caps.day - spentDay), spentDay, leftByListing: new Map(listingIds.map((id) => [id, max0(caps.listing - (spent.get(id) ?? 0n))])) };
}

export async function organizationShares(opts: { caps?: BudgetCaps; at?: Date } = {}): Promise<Array<{ organizationId: string; name: string; spent: bigint; cap: bigint; listings: number }>> {
  const caps = opts.caps ?? configuredCaps();
  const prisma = await db();
  const orgs = await rows<{ id: string; name: string; spent: string; listings: number }>(
    prisma,
    `SELECT o."id", o."name", COALESCE(b."spent", 0)::text AS "spent",
            (SELECT count(*)::int FROM "listings" l WHERE l."organizationId" = o."id" AND ${listedSql("l")}) AS "listings"
       FROM "organizations" o
       LEFT JOIN "canary_budget" b ON b."day" = $1::date AND b."scope" = 'org:' || o."id"
      WHERE b."spent" > 0 OR EXISTS (SELECT 1 FROM "listings" l WHERE l."organizationId" = o."id" AND ${listedSql("l")})
      ORDER BY COALESCE(b."spent", 0) DESC, o."name", o."id"
      LIMIT 200`,
    utcDay(opts.at),
  );
  return orgs.map((r) => ({ organizationId: r.id, name: r.name, spent: BigInt(r.spent), cap: orgCap(caps), listings: Number(r.listings) }));
}
