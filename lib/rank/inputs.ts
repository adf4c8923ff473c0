/**
 * RankInputs (lib/rank/score/compute.ts) from the ledger, the monitor and the listing: the bridge
 * between the batch aggregate (lib/facts/aggregate.ts) and the pure maths. `rankForListing` is what
 * `npm run rank -- <listing-id>` loads (scripts/rank.ts).
 */
import { computeRank, type RankInputs, type RankResult } from "@/lib/rank/score";
import { ledgerFacts, monitorFactsOf, settleFactsOf, type LedgerFactsRow } from "@/lib/facts/aggregate";
import { applyWash } from "./wash";

/**
 * RankInputs for one aggregate row, at `now`. The settle and monitor facts are the very ones
 * readiness scores H2 and H3 from (aggregate.ts settleFactsOf, monitorFactsOf).
 */
export function rankInputsFromRow(row: LedgerFactsRow, now: Date): RankInputs {
  return {
    now,
    settle: settleFactsOf(row),
    ledger: {
      distinctPayers30d: row.distinctPayers30d,
      distinctAttemptingBuyers30d: row.distinctAttemptingBuyers30d,
      settled30d: row.settled30d,
      medianSettledPrice30d: row.medianSettledPrice30d,
    },
    monitor: monitorFactsOf(row),
    price: {
      advertisedPrice: row.advertisedPrice,
      priceLabel: row.priceLabel,
      quote: row.quotePrice === null || row.quotedAtMs === null ? null : { price: row.quotePrice, quotedAt: new Date(row.quotedAtMs).toISOString() },
    },
    featuredLevel: row.featuredLevel,
    verification: row.verificationStatus,
  };
}

/** RankInputs per listing id (unknown ids are absent from the map), one SQL statement for the lot, washed (./wash.ts). */
export async function rankInputsFor(listingIds: readonly string[], now: Date = new Date()): Promise<Map<string, RankInputs>> {
  const { rows } = await applyWash(await ledgerFacts({ ids: listingIds }, now), now);
  return new Map(rows.map((r) => [r.id, rankInputsFromRow(r, now)]));
}

export type ListingRank = RankResult & { listingId: string; inputs: RankInputs };

/** computeRank's result for one listing, with the inputs (the facts) it was computed from; null when unknown. */
export async function rankForListing(id: string, now: Date = new Date()): Promise<ListingRank | null> {
  const inputs = (await rankInputsFor([id], now)).get(id);
  return inputs ? { listingId: id, inputs, ...computeRank(inputs) } : null;
}
