/**
 * RankInputs (lib/rank/score/compute.ts) from the ledger, the monitor and the listing: the bridge
 * between the batch aggregate (./aggregate.ts) and the pure maths. `rankForListing` is what
 * `npm run rank -- <listing-id>` loads (scripts/rank.ts).
 */
import { computeRank, type RankInputs, type RankResult } from "@/lib/rank/score";
import { healthStatusFor, ledgerFacts, MIN_UPTIME_SAMPLES, type LedgerFactsRow } from "@/lib/facts/aggregate";

/** RankInputs for one aggregate row, at `now`. */
export function rankInputsFromRow(row: LedgerFactsRow, now: Date): RankInputs {
  const reading = row.latestConfidence;
  return {
    now,
    settle: {
      lastSettledAt: row.lastSettledAtMs === null ? null : new Date(row.lastSettledAtMs).toISOString(),
      failedAttemptsSinceLastSettle: row.failedSinceLastSettle,
      distinctFailingBuyersSinceLastSettle: row.failingBuyersSinceLastSettle,
    },
    ledger: {
      distinctPayers30d: row.distinctPayers30d,
      distinctAttemptingBuyers30d: row.distinctAttemptingBuyers30d,
      settled30d: row.settled30d,
      medianSettledPrice30d: row.medianSettledPrice30d,
    },
    monitor: {
      uptime7d: uptime(row.up7d, row.samples7d),
      uptime30d: uptime(row.up30d, row.samples30d),
      // No reading yet: the stored status is the baseline and nothing caps it (aggregate.ts).
      healthStatus: reading === null ? row.listingHealthStatus : healthStatusFor(reading),
      healthConfidence: reading === null ? 1 : reading,
    },
    price: {
      advertisedPrice: row.advertisedPrice,
      priceLabel: row.priceLabel,
      quote: row.quotePrice === null || row.quotedAtMs === null ? null : { price: row.quotePrice, quotedAt: new Date(row.quotedAtMs).toISOString() },
    },
    featuredLevel: row.featuredLevel,
    verification: row.verificationStatus,
  };
}

/** Percent of "up" samples, or null below MIN_UPTIME_SAMPLES. (100·up)/n keeps 388 of 400 at exactly 97. */
function uptime(up: number, n: number): number | null {
  return n >= MIN_UPTIME_SAMPLES ? (100 * up) / n : null;
}

/** RankInputs per listing id (unknown ids are absent from the map), one SQL statement for the lot. */
export async function rankInputsFor(listingIds: readonly string[], now: Date = new Date()): Promise<Map<string, RankInputs>> {
  const rows = await ledgerFacts({ ids: listingIds }, now);
  return new Map(rows.map((r) => [r.id, rankInputsFromRow(r, now)]));
}

export type ListingRank = RankResult & { listingId: string; inputs: RankInputs };

/** computeRank's result for one listing, with the inputs (the facts) it was computed from; null when unknown. */
export async function rankForListing(id: string, now: Date = new Date()): Promise<ListingRank | null> {
  const inputs = (await rankInputsFor([id], now)).get(id);
  return inputs ? { listingId: id, inputs, ...computeRank(inputs) } : null;
}
