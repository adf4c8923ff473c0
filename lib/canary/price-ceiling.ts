/**
 * The most the canary pays for one call without a moderator's word (TOLLGATE_CANARY_PRICE_CEILING;
 * docs/CANARY.md "The price ceiling"). An endpoint listed above it gets a sample without a verdict,
 * `price_above_ceiling`, nothing reserved or signed, until a moderator approves the listing's price
 * (lib/moderation/canary-price.ts, audited); the latest approval holds, a raised price needs a new one.
 */
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { rows } from "@/lib/sql";
import { listedSql } from "@/lib/listings/visibility";

export const PRICE_ABOVE_CEILING = "price_above_ceiling";

export function priceCeiling(): bigint {
  return BigInt(env().TOLLGATE_CANARY_PRICE_CEILING);
}

/** The latest approval's price per call for a listing, or null when none was given. */
export async function approvedUpTo(listingId: string): Promise<bigint | null> {
  const prisma = await db();
  const row = await prisma.canaryPriceApproval.findFirst({ where: { listingId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { maxAmount: true } });
  return row ? BigInt(row.maxAmount.toFixed(0)) : null;
}

/** Why a listed price may not be paid without approval, or null when it may. */
export function aboveCeiling(amount: bigint, ceiling: bigint, approved: bigint | null): string | null {
  if (amount <= ceiling || (approved !== null && amount <= approved)) return null;
  const approval = approved === null ? "no moderator approved it" : `a moderator approved up to ${approved}`;
  return `${PRICE_ABOVE_CEILING}: listed ${amount} per call, above the canary's ceiling of ${ceiling} (${approval}; approve it on the canary desk)`;
}

/**
 * Listed listings with an endpoint priced above the ceiling and above their latest approval: what
 * awaits a moderator on the desk, with the highest such price (the approval it needs).
 */
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
