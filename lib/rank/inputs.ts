/** RankInputs from the batch facts aggregate (lib/facts/aggregate.ts). */
import { computeRank, type RankInputs, type RankResult } from "@/lib/rank/score";
import { ledgerFacts, monitorFactsOf, settleFactsOf, type LedgerFactsRow } from "@/lib/facts/aggregate";
import { applyWash } from "./wash";

/** The settle and monitor facts are the very ones readiness scores H2 and H3 from. */
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

/** One SQL statement for the lot, washed (./wash.ts); unknown ids are absent. */
export async function rankInputsFor(listingIds: readonly string[], now: Date = new Date()): Promise<Map<string, RankInputs>> {
  const { rows } = await applyWash(await ledgerFacts({ ids: listingIds }, now), now);
  return new Map(rows.map((r) => [r.id, rankInputsFromRow(r, now)]));
}

export type ListingRank = RankResult & { listingId: string; inputs: RankInputs };

export async function rankForListing(id: string, now: Date = new Date()): Promise<ListingRank | null> {
  const inputs = (await rankInputsFor([id], now)).get(id);
  return inputs ? { listingId: id, inputs, ...computeRank(inputs) } : null;
}
