/** The value metrics (rubric `value`): price_percentile and usd_per_valid_kib, beside the score and never read by it. */
import type { TrustRubric } from "../rubric";

export interface ValuePeer {
  endpointId: string;
  category: string;
  priceUsd: number;
  /** Check id → pass rate; null when not measured. */
  rates: Record<string, number | null>;
}

export interface ValueInput {
  priceUsd: number | null;
  category: string | null;
  peers?: ValuePeer[];
  /** USD paid, and the output's bytes when valid (R5 pass), else null. */
  paidSamples?: Array<{ usd: number; validBytes: number | null }>;
}

export interface ValueMetrics {
  price_percentile: number | null;
  peers: number;
  usd_per_valid_kib: number | null;
}

export function pricePeers(rubric: TrustRubric, category: string, peers: ValuePeer[], self?: string): ValuePeer[] {
  const { checks, minRate } = rubric.pricePeers;
  return peers.filter((p) => p.endpointId !== self && p.category === category && checks.every((c) => (p.rates[c] ?? -1) >= minRate));
}

export function pricePercentile(price: number, peerPrices: number[]): number | null {
  if (peerPrices.length === 0) return null;
  let below = 0;
  let same = 0;
  for (const p of peerPrices) {
    if (p < price) below++;
    else if (p === price) same++;
  }
  return Math.round(((below + same / 2) / peerPrices.length) * 1000) / 10;
}

export function usdPerValidKib(samples: Array<{ usd: number; validBytes: number | null }>): number | null {
  let usd = 0;
  let bytes = 0;
  for (const s of samples) {
    usd += s.usd;
    if (s.validBytes !== null && s.validBytes > 0) bytes += s.validBytes;
  }
  return bytes > 0 ? usd / (bytes / 1024) : null;
}

export function valueMetrics(rubric: TrustRubric, input: ValueInput, self?: string): ValueMetrics {
  const peers = input.category === null ? [] : pricePeers(rubric, input.category, input.peers ?? [], self);
  return {
    price_percentile: input.priceUsd === null ? null : pricePercentile(input.priceUsd, peers.map((p) => p.priceUsd)),
    peers: peers.length,
    usd_per_valid_kib: usdPerValidKib(input.paidSamples ?? []),
  };
}
