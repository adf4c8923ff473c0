/**
 * The most the canary pays per call without a moderator's approval (TOLLGATE_CANARY_PRICE_CEILING; docs/CANARY.md
 * "The price ceiling"). The latest approval holds.
 */
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { rows } from "@/lib/sql";
import { listedSql } from "@/lib/listings/visibility";

export const PRICE_ABOVE_CEILING = "price_above_ceiling";

export function priceCeiling(): bigint {
  return BigInt(env().TOLLGATE_CANARY_PRICE_CEILING);
}

/** Null when none was given. */
export async function approvedUpTo(listingId: string): Promise<bigint | null> {
  const prisma = await db();
  const row = await prisma.canaryPriceApproval.findFirst({ where: { listingId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { maxAmount: true } });
  return row ? BigInt(row.maxAmount.toFixed(0)) : null;
}

/** Null when it may be paid. */
export function aboveCeiling(amount: bigint, ceiling: bigint, approved: bigint | null): string | null {
  if (amount <= ceiling || (approved !== null && amount <= approved)) return null;
  const approval = approved === null ? "no moderator approved it" : `a moderator approved up to ${approved}`;
  return `${PRICE_ABOVE_CEILING}: listed ${amount} per call, above the canary's ceiling of ${ceiling} (${approval}; approve it on the canary desk)`;
}

/** What awaits a moderator, with the price it needs approved. */
export async function awaitingPriceApproval(ceiling: bigint = priceCeiling()): Promise<Array<{ listingId: string; slug: string; title: string; highest: bigint; approved: bigint | null }>> {
  const prisma = await db();
  const found = await rows<{ id: string; slug: string; title: string; highest: string; approved: string | null }>(
    prisma,
    `SELECT l."id", l."slug", l."title", max(e."priceAmount"::numeric)::text AS "highest",
            (SELECT a."maxAmount"::text FROM "canary_price_approvals" a WHERE a."listingId" = l."id" ORDER BY a."createdAt" DESC, a."id" DESC LIMIT 1) AS "approved"
       FROM "listings" l JOIN "endpoints" e ON e."listingId" = l."id"
      WHERE ${listedSql("l")} AND e."payable" AND e."priceAmount" ~ '^[0-9]{1,60}$' AND e."priceAmount"::numeric > $1::numeric
      GROUP BY l."id", l."slug", l."title"
      ORDER BY l."slug"`,
    ceiling.toString(),
  );
  return found
    .map((r) => ({ listingId: r.id, slug: r.slug, title: r.title, highest: BigInt(r.highest), approved: r.approved === null ? null : BigInt(r.approved) }))
    .filter((r) => r.approved === null || r.highest > r.approved);
}
