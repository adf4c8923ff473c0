/**
 * The amount shapes the database's functions and constraints accept: USD_DECIMAL as `tollgate_decimal_or_null` reads
 * a USD price, ATOMIC_AMOUNT as `tollgate_atomic_to_units` and the ledger's CHECKs require.
 */
export const USD_DECIMAL = /^[0-9]{1,20}(\.[0-9]{1,20})?$/;
export const ATOMIC_AMOUNT = /^[0-9]{1,38}$/;

/** As saves and trust revisions compare it; null without an amount. */
export interface ListedPrice {
  amount: string;
  /** Lower-cased: a re-cased address is the same asset. */
  asset: string | null;
  network: string | null;
  mode: string | null;
}

export function listedPrice(e: { priceAmount: string | null; priceAsset: string | null; priceNetwork: string | null; priceMode: string | null }): ListedPrice | null {
  return e.priceAmount ? { amount: e.priceAmount, asset: e.priceAsset?.toLowerCase() ?? null, network: e.priceNetwork ?? null, mode: e.priceMode ?? null } : null;
}

/** A USD decimal as atomic units of a `decimals`-place token, rounded up (null: not a USD_DECIMAL). */
export function usdToAtomicCeil(usd: string, decimals: number): bigint | null {
  if (!USD_DECIMAL.test(usd) || !Number.isSafeInteger(decimals) || decimals < 0) return null;
  const [whole, frac = ""] = usd.split(".");
  const kept = frac.slice(0, decimals).padEnd(decimals, "0");
  const atomic = BigInt(whole + kept);
  return /[1-9]/.test(frac.slice(decimals)) ? atomic + 1n : atomic;
}

/**
 * Rule `asks_above_stated`: a fixed-price endpoint paid in a USD stablecoin whose machine price (what
 * its 402 asks, kept by the import) is above the USD price its listing states. Null when it is not,
 * or when either is missing, the price is dynamic, or the asset is not a USD token.
 */
export function askedAboveStated(p: { usd: string | null; amount: string | null; decimals: number | null; mode: string | null; usdToken: boolean }): { asked: string; stated: string } | null {
  if (p.usd === null || p.amount === null || p.decimals === null || p.mode === "dynamic" || !p.usdToken || !ATOMIC_AMOUNT.test(p.amount)) return null;
  const stated = usdToAtomicCeil(p.usd, p.decimals);
  if (stated === null || BigInt(p.amount) <= stated) return null;
  const asked = BigInt(p.amount);
  const unit = 10n ** BigInt(p.decimals);
  const frac = (asked % unit).toString().padStart(p.decimals, "0").replace(/0+$/, "");
  return { asked: `${asked / unit}${frac ? `.${frac}` : ""}`, stated: p.usd };
}
