/**
 * The house wallet's budget (docs/CANARY.md "The budget"): a cap per UTC day over all listings and a
 * cap per listing per day, in atomic units, enforced in the database before anything is signed.
 *
 * A run reserves its worst case once, before its first signature: the sum of its endpoints' listed
 * prices (the canary never signs above a listed price). The reservation is two conditional updates
 * in one transaction, the day's total first and the listing's second (always that order, so two
 * reservations never wait on each other crosswise):
 *
 *     UPDATE canary_budget SET spent = spent + $amount WHERE day = $day AND scope = … AND spent + $amount <= $cap
 *
 * Under READ COMMITTED a second writer waits for the first's row lock and then re-checks the
 * condition against the committed row, so two workers can never take the same headroom; when either
 * row refuses, the transaction rolls back and nothing was reserved. The run row is locked in the
 * same transaction and records what it reserved, so a retried run never reserves twice.
 *
 * When a run finishes, what it reserved for endpoints it never signed for goes back (release()):
 * a signed authorization stays counted even when the seller never settled it, since it could still
 * settle it until it expires.
 */
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

export const DAY_SCOPE = "*";

export interface BudgetCaps {
  /** All listings together, per UTC day (atomic units). */
  day: bigint;
  /** One listing, per UTC day (atomic units). */
  listing: bigint;
}

export function configuredCaps(): BudgetCaps {
  const e = env();
  return { day: BigInt(e.TOLLGATE_CANARY_BUDGET_DAY), listing: BigInt(e.TOLLGATE_CANARY_BUDGET_LISTING) };
}

/** The UTC day of an instant, as YYYY-MM-DD. */
export function utcDay(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}

export type Reservation = { ok: true; day: string; amount: bigint; already: boolean } | { ok: false; scope: "day" | "listing"; day: string; left: bigint };

class Refused extends Error {
  constructor(readonly scope: "day" | "listing") {
    super(scope);
  }
}

/**
 * Reserve `amount` for run `runId` of `listingId` on today's budget, once per run. Refused (nothing
 * reserved) when either cap would be passed; answers how much that cap has left.
 */
export async function reserve(input: { runId: string; listingId: string; amount: bigint; caps?: BudgetCaps; at?: Date }): Promise<Reservation> {
  if (input.amount < 0n) throw new AppError("bad_request", "/amount must not be negative", [{ pointer: "/amount", message: "must not be negative" }]);
  const caps = input.caps ?? configuredCaps();
  const day = utcDay(input.at);
  const prisma = await db();
  try {
    return await prisma.$transaction(async (tx) => {
      const [run] = await tx.$queryRawUnsafe<Array<{ reserved: string | null; budgetDay: string | null }>>(
        `SELECT "reserved"::text AS "reserved", to_char("budgetDay", 'YYYY-MM-DD') AS "budgetDay" FROM "canary_runs" WHERE "id" = $1 FOR UPDATE`,
        input.runId,
      );
      if (!run) throw new AppError("not_found", `canary run ${input.runId} does not exist`);
      if (run.reserved !== null) return { ok: true as const, day: run.budgetDay ?? day, amount: BigInt(run.reserved), already: true };
      await tx.$executeRawUnsafe(
        `INSERT INTO "canary_budget" ("day", "scope") VALUES ($1::date, $2), ($1::date, $3) ON CONFLICT ("day", "scope") DO NOTHING`,
        day,
        DAY_SCOPE,
        input.listingId,
      );
      for (const [scope, key, cap] of [["day", DAY_SCOPE, caps.day], ["listing", input.listingId, caps.listing]] as const) {
        const took = await tx.$executeRawUnsafe(
          `UPDATE "canary_budget" SET "spent" = "spent" + $3::numeric, "updatedAt" = now() AT TIME ZONE 'UTC'
            WHERE "day" = $1::date AND "scope" = $2 AND "spent" + $3::numeric <= $4::numeric`,
          day,
          key,
          input.amount.toString(),
          cap.toString(),
        );
        if (took !== 1) throw new Refused(scope);
      }
      await tx.$executeRawUnsafe(`UPDATE "canary_runs" SET "reserved" = $2::numeric, "budgetDay" = $3::date WHERE "id" = $1`, input.runId, input.amount.toString(), day);
      return { ok: true as const, day, amount: input.amount, already: false };
    });
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    const left = await budgetLeft(input.listingId, { caps, at: input.at });
    return { ok: false, scope: e.scope, day, left: e.scope === "day" ? left.day : left.listing };
  }
}

/** Give back `amount` of run `runId`'s reservation (never more than it reserved; once per run finish). */
export async function release(tx: { $executeRawUnsafe: (q: string, ...v: unknown[]) => Promise<number> }, run: { listingId: string; budgetDay: string; amount: bigint }): Promise<void> {
  if (run.amount <= 0n) return;
  await tx.$executeRawUnsafe(
    `UPDATE "canary_budget" SET "spent" = GREATEST("spent" - $3::numeric, 0), "updatedAt" = now() AT TIME ZONE 'UTC'
      WHERE "day" = $1::date AND "scope" IN ($2, $4)`,
    run.budgetDay,
    DAY_SCOPE,
    run.amount.toString(),
    run.listingId,
  );
}

/** What today's caps have left, overall and for one listing (atomic units, never negative). */
export async function budgetLeft(listingId: string | null, opts: { caps?: BudgetCaps; at?: Date } = {}): Promise<{ day: bigint; listing: bigint; spentDay: bigint; spentListing: bigint }> {
  const caps = opts.caps ?? configuredCaps();
  const prisma = await db();
  const rows = await prisma.$queryRawUnsafe<Array<{ scope: string; spent: string }>>(
    `SELECT "scope", "spent"::text AS "spent" FROM "canary_budget" WHERE "day" = $1::date AND "scope" IN ($2, $3)`,
    utcDay(opts.at),
    DAY_SCOPE,
    listingId ?? DAY_SCOPE,
  );
  const spentDay = BigInt(rows.find((r) => r.scope === DAY_SCOPE)?.spent ?? "0");
  const spentListing = listingId ? BigInt(rows.find((r) => r.scope === listingId)?.spent ?? "0") : 0n;
  const max0 = (v: bigint) => (v < 0n ? 0n : v);
  return { day: max0(caps.day - spentDay), listing: max0(caps.listing - spentListing), spentDay, spentListing };
}

/**
 * What today's caps have left for the day and for each of `listingIds` (atomic units, never
 * negative), in one read: the moderators' desk shows it beside every run.
 */
export async function budgetLeftForListings(listingIds: string[], opts: { caps?: BudgetCaps; at?: Date } = {}): Promise<{ day: string; caps: BudgetCaps; leftDay: bigint; spentDay: bigint; leftByListing: Map<string, bigint> }> {
  const caps = opts.caps ?? configuredCaps();
  const day = utcDay(opts.at);
  const prisma = await db();
  const rows = await prisma.$queryRawUnsafe<Array<{ scope: string; spent: string }>>(
    `SELECT "scope", "spent"::text AS "spent" FROM "canary_budget" WHERE "day" = $1::date AND ("scope" = $2 OR "scope" = ANY($3::text[]))`,
    day,
    DAY_SCOPE,
    listingIds,
  );
  const spent = new Map(rows.map((r) => [r.scope, BigInt(r.spent)]));
  const max0 = (v: bigint) => (v < 0n ? 0n : v);
  const spentDay = spent.get(DAY_SCOPE) ?? 0n;
  return { day, caps, leftDay: max0(caps.day - spentDay), spentDay, leftByListing: new Map(listingIds.map((id) => [id, max0(caps.listing - (spent.get(id) ?? 0n))])) };
}
