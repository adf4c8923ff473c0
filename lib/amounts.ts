/**
 * The two amount shapes the database functions and constraints accept, in one place for the code
 * that must agree with them:
 * - USD_DECIMAL: a USD price as `tollgate_decimal_or_null` reads one (up to 20 digits, optionally a
 *   point and up to 20 more); browse and select filters, and the advertised price the rank reads.
 * - ATOMIC_AMOUNT: atomic units of a token as an integer string, as `tollgate_atomic_to_units` reads
 *   one and the ledger's CHECK constraints require (migration 20261202180000_rank_streaming).
 */
export const USD_DECIMAL = /^[0-9]{1,20}(\.[0-9]{1,20})?$/;
export const ATOMIC_AMOUNT = /^[0-9]{1,38}$/;

/** An endpoint's listed machine price as saves and trust revisions compare it; null without an amount. */
export interface ListedPrice {
  amount: string;
  /** Lower-cased, so a re-cased address is the same asset. */
  asset: string | null;
  network: string | null;
  mode: string | null;
}

export function listedPrice(e: { priceAmount: string | null; priceAsset: string | null; priceNetwork: string | null; priceMode: string | null }): ListedPrice | null {
  return e.priceAmount ? { amount: e.priceAmount, asset: e.priceAsset?.toLowerCase() ?? null, network: e.priceNetwork ?? null, mode: e.priceMode ?? null } : null;
}
