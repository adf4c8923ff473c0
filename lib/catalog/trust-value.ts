/** The value metrics' inputs: listed price, the category's peers, and the R5-judged paid samples valued in USD (docs/TRUST.md "value"). */
import { rows, utcParam, type Client } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { scoreSubject, type TrustRubric, type ValueInput, type ValuePeer } from "@/lib/trust/engine";
import { readTrustSubjects } from "@/lib/trust/observe";
import { readCategoryPeers } from "@/lib/attest/peers";
import { usdNumber } from "./price";

export const VALID_OUTPUT_CHECK = "R5";

export interface EndpointValueInput extends ValueInput {
  /** No listed USD price, or paid in another asset or network. */
  unpriced: number;
}

type EndpointPrice = { id: string; method: string; path: string; trustPath: string; priceUsd: string | null; priceAmount: string | null; priceAsset: string | null; priceNetwork: string | null };

/** The peer rule: every named check's rate at least the rule's rate. */
const meetsPeerRule = (rubric: TrustRubric, rates: Record<string, number | null>) => rubric.pricePeers.checks.every((c) => (rates[c] ?? -1) >= rubric.pricePeers.minRate);

/** Same-category endpoints with a USD price passing the peer rule; only listings with a pass of each named check are scored. */
export async function readValuePeers(client: Client, rubric: TrustRubric, category: string, now: number): Promise<ValuePeer[]> {
  const { checks } = rubric.pricePeers;
  const listings = await rows<{ id: string }>(
    client,
    `SELECT l."id" FROM "listings" l
      WHERE l."category" = $1 AND ${publicSql("l")}
        AND (SELECT count(DISTINCT o."check") FROM "trust_observations" o
              WHERE o."listingId" = l."id" AND o."check" = ANY($2::text[]) AND o."outcome" = 'pass' AND o."observedAt" <= ${utcParam(3)}) = $4::int
      ORDER BY l."id"`,
    category,
    checks,
    new Date(now).toISOString(),
    checks.length,
  );
  const peers: ValuePeer[] = [];
  for (const { id } of listings) {
    const prices = await rows<EndpointPrice>(client, `SELECT "id", "method"::text AS "method", "path", "trustPath", "priceUsd", "priceAmount", "priceAsset", "priceNetwork" FROM "endpoints" WHERE "listingId" = $1`, id);
    for (const s of await readTrustSubjects(client, id, { now })) {
      const priceUsd = usdNumber(prices.find((p) => p.id === s.endpointId)?.priceUsd ?? null);
      if (priceUsd === null) continue;
      const r = scoreSubject(rubric, s, { now, band: false });
      const rates = Object.fromEntries(checks.map((c) => [c, r.checks.find((x) => x.id === c)?.rate ?? null]));
      if (meetsPeerRule(rubric, rates)) peers.push({ endpointId: s.endpointId, category, priceUsd, rates });
    }
  }
  return peers;
}

type SampleRow = { method: string; path: string; outcome: string; chainAmount: string | null; chainAsset: string | null; chainNetwork: string | null; responseBytes: number | null };

async function readSampleRows(client: Client, listingId: string, now: number): Promise<Map<string, SampleRow[]>> {
  const found = await rows<SampleRow>(
    client,
    `SELECT o."method", o."path", o."outcome", s."chainAmount", s."chainAsset", s."chainNetwork", s."responseBytes"
       FROM "trust_observations" o JOIN "canary_samples" s ON s."id" = o."sourceId"
      WHERE o."source" = 'canary' AND o."check" = $1 AND o."outcome" IN ('pass', 'fail')
        AND o."listingId" = $2 AND o."observedAt" <= ${utcParam(3)}
      ORDER BY o."observedAt", o."id"`,
    VALID_OUTPUT_CHECK,
    listingId,
    new Date(now).toISOString(),
  );
  const out = new Map<string, SampleRow[]>();
  for (const r of found) {
    const k = `${r.method} ${r.path}`;
    out.set(k, [...(out.get(k) ?? []), r]);
  }
  return out;
}

function valueSamples(e: EndpointPrice, found: SampleRow[]): { samples: Array<{ usd: number; validBytes: number | null }>; unpriced: number } {
  const listedUsd = usdNumber(e.priceUsd);
  const listedAmount = e.priceAmount !== null && /^[0-9]+$/.test(e.priceAmount) && BigInt(e.priceAmount) > 0n ? Number(e.priceAmount) : null;
  const samples: Array<{ usd: number; validBytes: number | null }> = [];
  let unpriced = 0;
  for (const s of found) {
    const validBytes = s.outcome === "pass" && s.responseBytes !== null ? Number(s.responseBytes) : null;
    if (s.chainAmount === null) {
      samples.push({ usd: 0, validBytes });
      continue;
    }
    const listedAsset = !!e.priceAsset && !!s.chainAsset && e.priceAsset.toLowerCase() === s.chainAsset.toLowerCase() && e.priceNetwork === s.chainNetwork;
    if (!listedAsset || listedUsd === null || listedAmount === null) {
      unpriced++;
      continue;
    }
    samples.push({ usd: (Number(s.chainAmount) * listedUsd) / listedAmount, validBytes });
  }
  return { samples, unpriced };
}

/**
 * The peers a live page reads: its category's row of the stored peers (lib/attest/peers.ts, written by
 * the attest sweep from each endpoint's latest stored grade), filtered by the peer rule. Nothing is
 * scored or joined here; an endpoint not graded yet is no peer until the sweep grades it (within its
 * minute), and a price or category changed since is seen by the next refresh (PEERS_REFRESH_MS).
 */
export async function readStoredValuePeers(client: Client, rubric: TrustRubric, category: string): Promise<ValuePeer[]> {
  const { checks } = rubric.pricePeers;
  return (await readCategoryPeers(client, category)).flatMap((r) => {
    const priceUsd = usdNumber(r.priceUsd);
    const rates = Object.fromEntries(checks.map((c) => [c, typeof r.rates?.[c] === "number" ? r.rates[c] : null]));
    return priceUsd !== null && meetsPeerRule(rubric, rates) ? [{ endpointId: r.endpointId, category, priceUsd, rates }] : [];
  });
}

/** In endpoint order, one statement; none when the listing is gone. */
export type ListingPrices = { category: string | null; endpoints: Array<EndpointPrice & { payable: boolean }> };
export async function readListingPrices(client: Client, listingId: string): Promise<ListingPrices> {
  const found = await rows<EndpointPrice & { payable: boolean; category: string | null }>(
    client,
    `SELECT e."id", e."method"::text AS "method", e."path", e."trustPath", e."payable", e."priceUsd", e."priceAmount", e."priceAsset", e."priceNetwork", l."category"
       FROM "listings" l JOIN "endpoints" e ON e."listingId" = l."id" WHERE l."id" = $1 ORDER BY e."position"`,
    listingId,
  );
  return { category: found[0]?.category ?? null, endpoints: found.map(({ category: _c, ...e }) => e) };
}

/** By endpoint id, each left out of its own peers; `live` reads them from stored grades, `prices` if the caller has them. */
export async function readListingValueInputs(client: Client, rubric: TrustRubric, listingId: string, now: number, options: { live?: boolean; prices?: ListingPrices } = {}): Promise<Map<string, EndpointValueInput>> {
  const [prices, sampled] = await Promise.all([options.prices ?? readListingPrices(client, listingId), readSampleRows(client, listingId, now)]);
  const category = prices.category?.trim() ? prices.category : null;
  const peers = category === null ? [] : await (options.live ? readStoredValuePeers(client, rubric, category) : readValuePeers(client, rubric, category, now));
  const out = new Map<string, EndpointValueInput>();
  for (const e of prices.endpoints) {
    const { samples, unpriced } = valueSamples(e, sampled.get(`${e.method} ${e.trustPath}`) ?? []);
    out.set(e.id, { priceUsd: usdNumber(e.priceUsd), category, peers: peers.filter((p) => p.endpointId !== e.id), paidSamples: samples, unpriced });
  }
  return out;
}
