/**
 * What in a save resets verification (docs/CANARY.md "A change resets verification"). Pure: the save asks, then calls
 * tollgate_reset_verification.
 */

export interface PricedEndpoint {
  method: string;
  path: string;
  payable: boolean;
  priceAmount: string | null;
  priceAsset: string | null;
  priceNetwork: string | null;
  priceDecimals: number | null;
}

export interface ListingShape {
  baseUrl: string;
  endpoints: PricedEndpoint[];
}

const keyOf = (e: { method: string; path: string }) => `${e.method} ${e.path}`;

/** Token units ("0.01"), or the atomic amount when decimals are unknown. */
export function unitsText(amount: string, decimals: number | null): string {
  if (decimals === null || decimals === 0) return amount;
  const s = amount.padStart(decimals + 1, "0");
  const whole = s.slice(0, -decimals);
  const frac = s.slice(-decimals).replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole;
}

/** Exact: a·10^dB vs b·10^dA. */
function raised(old: PricedEndpoint, next: PricedEndpoint): boolean {
  if (!next.priceAmount) return false;
  if (!old.priceAmount) return true;
  const dA = BigInt(old.priceDecimals ?? 0);
  const dB = BigInt(next.priceDecimals ?? 0);
  return BigInt(next.priceAmount) * 10n ** dA > BigInt(old.priceAmount) * 10n ** dB;
}

function priceText(e: PricedEndpoint): string {
  if (!e.priceAmount) return "no machine price";
  const units = unitsText(e.priceAmount, e.priceDecimals);
  return e.priceDecimals === null ? `${units} atomic units` : `$${units}`;
}

const assetOf = (e: PricedEndpoint) => `${(e.priceAsset ?? "").toLowerCase()}@${e.priceNetwork ?? ""}`;
const assetText = (e: PricedEndpoint) => (e.priceAsset || e.priceNetwork ? `${e.priceAsset ?? "no asset"} on ${e.priceNetwork ?? "no network"}` : "none");

/** In words a seller can act on. */
export function verificationResetReasons(old: ListingShape, next: ListingShape): string[] {
  const out: string[] = [];
  if (old.baseUrl !== next.baseUrl) out.push(`base URL changed from ${old.baseUrl} to ${next.baseUrl}`);
  const before = new Map(old.endpoints.map((e) => [keyOf(e), e]));
  const after = new Map(next.endpoints.map((e) => [keyOf(e), e]));
  for (const [k, e] of after) {
    const o = before.get(k);
    if (!o) {
      out.push(`endpoint ${k} added`);
      continue;
    }
    if (o.payable !== e.payable) out.push(`endpoint ${k} made ${e.payable ? "payable" : "not payable"}`);
    if (o.priceAmount && !e.priceAmount && e.payable) {
      // No machine price leaves the canary nothing to hold a 402 to: any amount, asset or network would pass.
      out.push(`machine price removed on ${k} (was ${priceText(o)} in ${assetText(o)})`);
    } else if (o.priceAmount && e.priceAmount && assetOf(o) !== assetOf(e)) {
      out.push(`asset changed on ${k} from ${assetText(o)} to ${assetText(e)}`);
    } else if (raised(o, e)) {
      out.push(`price raised on ${k} from ${priceText(o)} to ${priceText(e)}`);
    }
  }
  for (const k of before.keys()) if (!after.has(k)) out.push(`endpoint ${k} removed`);
  return out;
}
