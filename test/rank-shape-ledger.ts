/**
 * Demo ledger and health histories for the seed's five listing shapes (docs/spec/scoring-system.md "Both scores on real
 * shapes"), built from test/rank-shapes.ts so that the rank sweep, reading the rows back
 * through the very SQL it uses in production, reproduces each row's facts and so its numbers
 * (92/92, 92/120, 95/81, 37/47, 13/6). Every row is marked demo (price quotes, which have no demo
 * column, carry source DEMO_QUOTE_SOURCE). The ledger, samples and quotes are append-only, so a
 * listing that already holds its demo rows keeps them: a re-run seeds only listings without them.
 *
 * The listing's own price (its payable endpoints' priceUsd and label) comes from the seed script's
 * listing document, not from here; a mismatch with the fixture is returned as a warning because it
 * changes price integrity. Featured level and verification status are the fixture's.
 */
import { createHash } from "node:crypto";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { DAY_MS, type RankInputs } from "@/lib/rank/score";
import { buildRankFixtures, type RankFixtureKey } from "@/test/rank-shapes";
import { HEALTH_CONFIDENCE } from "@/lib/scoring/signals";
import { DEFAULT_ASSET_DECIMALS } from "@/lib/facts/aggregate";

export const DEMO_QUOTE_SOURCE = "demo-seed";
const DEMO_ASSET = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"; // USDC on Base
const DEMO_NETWORK = "eip155:8453";
const MINUTE_MS = 60_000;
/** Samples laid down per uptime window: 100 in the last 7 days, 300 more over days 7–30. */
const SAMPLES_7D = 100;
const SAMPLES_REST = 300;
/** A brand-new listing has a few readings but not yet an uptime (signals.ts MIN_UPTIME_SAMPLES). */
const SAMPLES_NEW = 3;

export interface SeedDemoLedgerOptions {
  listingIdsByShape: Partial<Record<RankFixtureKey, string>>;
  now?: Date;
}

export interface SeedDemoLedgerResult {
  listings: Array<{ shape: RankFixtureKey; listingId: string; payments: number; samples: number; quotes: number }>;
  /** Differences between a listing's own price and its fixture's, which move price integrity. */
  warnings: string[];
}

export async function seedDemoLedger(prisma: PrismaClient, opts: SeedDemoLedgerOptions): Promise<SeedDemoLedgerResult> {
  const now = opts.now ?? new Date();
  const fixtures = buildRankFixtures(now);
  const result: SeedDemoLedgerResult = { listings: [], warnings: [] };
  const entries = Object.entries(opts.listingIdsByShape).filter((e): e is [RankFixtureKey, string] => typeof e[1] === "string");

  for (const [shape, listingId] of entries) {
    const fixture = fixtures[shape];
    if (!fixture) throw new RangeError(`unknown listing shape ${shape}`);
    const listing = await prisma.listing.findUnique({
      where: { id: listingId },
      select: { id: true, endpoints: { where: { payable: true }, orderBy: { position: "asc" }, select: { id: true, priceUsd: true, priceLabel: true, priceDecimals: true } } },
    });
    if (!listing) throw new RangeError(`listing ${listingId} (${shape}) does not exist`);
    const endpoint = listing.endpoints[0] ?? null;
    const inputs = atListingPrice(fixture.inputs, listing.endpoints);
    const decimals = endpoint?.priceDecimals ?? DEFAULT_ASSET_DECIMALS;
    result.warnings.push(...priceWarnings(shape, inputs, listing.endpoints));

    const payments = buildPayments(listingId, endpoint?.id ?? null, decimals, inputs, now);
    const samples = buildSamples(listingId, inputs, now);
    const quotes = inputs.price.quote
      ? [{ listingId, endpointId: endpoint?.id ?? null, amount: toAtomic(inputs.price.quote.price, decimals), asset: DEMO_ASSET, network: DEMO_NETWORK, quotedAt: new Date(inputs.price.quote.quotedAt), source: DEMO_QUOTE_SOURCE }]
      : [];

    if ((await prisma.routerPayment.count({ where: { listingId, demo: true } })) > 0) {
      result.listings.push({ shape, listingId, payments: 0, samples: 0, quotes: 0 });
      continue;
    }
    await prisma.$transaction([
      prisma.routerPayment.createMany({ data: payments }),
      prisma.healthSample.createMany({ data: samples }),
      prisma.priceQuote.createMany({ data: quotes }),
      prisma.listing.update({ where: { id: listingId }, data: { featuredLevel: inputs.featuredLevel, verificationStatus: inputs.verification } }),
    ]);
    result.listings.push({ shape, listingId, payments: payments.length, samples: samples.length, quotes: quotes.length });
  }
  return result;
}

interface PaymentRow {
  listingId: string;
  endpointId: string | null;
  payer: string;
  advertisedAmount: string;
  settledAmount: string | null;
  asset: string;
  network: string;
  status: "settled" | "failed";
  transactionId: string | null;
  demo: true;
  createdAt: Date;
}

/**
 * Settled payments: settled30d of them, round-robin over distinctPayers30d wallets (so each payer
 * pays at least once), the latest exactly at lastSettledAt. Amounts are spread symmetrically, −4 %
 * to +4 % in five equal steps, around the fixture's median, so the median is the fixture's exactly.
 * Failures since the last settlement come from new wallets where the attempting-buyer count leaves
 * room, else from payers; any attempting buyer still unaccounted for failed once before it.
 */
function buildPayments(listingId: string, endpointId: string | null, decimals: number, inputs: RankInputs, now: Date): PaymentRow[] {
  const { ledger, settle, price } = inputs;
  const rows: PaymentRow[] = [];
  const nowMs = now.getTime();
  const lastMs = settle.lastSettledAt ? Date.parse(settle.lastSettledAt) : null;
  const median = ledger.medianSettledPrice30d ?? price.advertisedPrice ?? price.quote?.price ?? 0.01;
  const base = BigInt(toAtomic(median, decimals));
  const step = (base * 2n) / 100n;
  const advertised = toAtomic(price.advertisedPrice ?? median, decimals);
  const wallet = (kind: string, i: number) => `0x${createWallet(listingId, kind, i)}`;
  const row = (payer: string, status: "settled" | "failed", settledAmount: string | null, at: number, n: number): PaymentRow => ({
    listingId, endpointId, payer, advertisedAmount: advertised, settledAmount, asset: DEMO_ASSET, network: DEMO_NETWORK, status,
    transactionId: status === "settled" ? `demo-${listingId}-${n}` : null, demo: true, createdAt: new Date(at),
  });

  if (lastMs !== null && ledger.settled30d > 0) {
    // Oldest first, spread over [now − 29 d, lastSettledAt]; the last one is the last settlement.
    const oldest = nowMs - 29 * DAY_MS;
    const span = Math.max(0, lastMs - oldest);
    for (let i = 0; i < ledger.settled30d; i++) {
      const k = BigInt((i % 5) - 2);
      const at = ledger.settled30d === 1 ? lastMs : oldest + Math.floor((span * i) / (ledger.settled30d - 1));
      rows.push(row(wallet("payer", i % Math.max(1, ledger.distinctPayers30d)), "settled", (base + k * step).toString(), at, i));
    }
  }

  const extra = Math.max(0, ledger.distinctAttemptingBuyers30d - ledger.distinctPayers30d);
  const failingBuyers = settle.distinctFailingBuyersSinceLastSettle;
  const newFailing = Math.min(extra, failingBuyers);
  const since = lastMs ?? nowMs - 29 * DAY_MS;
  for (let i = 0; i < settle.failedAttemptsSinceLastSettle; i++) {
    const b = failingBuyers > 0 ? i % failingBuyers : 0;
    const payer = b < newFailing ? wallet("failing", b) : wallet("payer", b - newFailing);
    const at = since + Math.floor(((nowMs - since) * (i + 1)) / (settle.failedAttemptsSinceLastSettle + 1));
    rows.push(row(payer, "failed", null, at, rows.length));
  }
  for (let i = newFailing; i < extra; i++) {
    // Failed once, before the last settlement: counted as attempting, not as failing since.
    const at = (lastMs ?? nowMs) - (i + 1) * 6 * 3_600_000;
    rows.push(row(wallet("failing", i), "failed", null, at, rows.length));
  }
  return rows;
}

/**
 * Samples every 7 d ÷ 100 over the last week and every 23 d ÷ 300 before it, so
 * uptime7d = up7/100 and uptime30d = (up7 + upRest)/400. "Down" samples (no answer, confidence 0)
 * are the oldest of each window, so the latest reading is an up sample at the fixture's confidence.
 */
interface SampleRow {
  listingId: string;
  at: Date;
  outcome: string;
  httpStatus: number | null;
  latencyMs: number | null;
  confidence: number;
  challengeKind: string | null;
  vantage: string;
  demo: boolean;
}

function buildSamples(listingId: string, inputs: RankInputs, now: Date) {
  const { uptime7d, uptime30d, healthConfidence } = inputs.monitor;
  const nowMs = now.getTime();
  const up = (at: number): SampleRow => ({ listingId, at: new Date(at), outcome: healthConfidence >= HEALTH_CONFIDENCE.structured4xx ? "up" : "down", httpStatus: 402, latencyMs: 120, confidence: healthConfidence, challengeKind: "x402-v2", vantage: "demo", demo: true });
  const down = (at: number): SampleRow => ({ listingId, at: new Date(at), outcome: "down", httpStatus: null, latencyMs: null, confidence: HEALTH_CONFIDENCE.noAnswer, challengeKind: null, vantage: "demo", demo: true });

  if (uptime7d === null && uptime30d === null) {
    return Array.from({ length: SAMPLES_NEW }, (_, i) => up(nowMs - (SAMPLES_NEW - i) * 5 * MINUTE_MS));
  }
  const samples: SampleRow[] = [];
  const window = (count: number, upCount: number, fromMs: number, toMs: number) => {
    for (let i = 0; i < count; i++) {
      const at = fromMs + Math.floor(((toMs - fromMs) * (i + 1)) / (count + 1));
      samples.push(i < count - upCount ? down(at) : up(at));
    }
  };
  const up7 = Math.round(((uptime7d ?? uptime30d)! * SAMPLES_7D) / 100);
  window(SAMPLES_7D, up7, nowMs - 7 * DAY_MS, nowMs);
  if (uptime30d !== null) {
    const upRest = Math.round((uptime30d * (SAMPLES_7D + SAMPLES_REST)) / 100) - up7;
    window(SAMPLES_REST, Math.min(SAMPLES_REST, Math.max(0, upRest)), nowMs - 29 * DAY_MS, nowMs - 7 * DAY_MS - MINUTE_MS);
  }
  return samples;
}

function priceWarnings(shape: string, inputs: RankInputs, endpoints: Array<{ priceUsd: string | null; priceLabel: string | null }>): string[] {
  const prices = endpoints.map((e) => (e.priceUsd !== null && /^\d+(\.\d+)?$/.test(e.priceUsd) ? Number(e.priceUsd) : null)).filter((p): p is number => p !== null);
  const advertised = prices.length ? Math.min(...prices) : null;
  const label = endpoints.map((e) => e.priceLabel).find((l) => !!l && l.trim() !== "") ?? null;
  const out: string[] = [];
  if (advertised !== inputs.price.advertisedPrice) out.push(`${shape}: the listing advertises ${advertised ?? "no price"}, the fixture ${inputs.price.advertisedPrice ?? "no price"}`);
  if ((label === null) !== (inputs.price.priceLabel === null)) out.push(`${shape}: the listing's price label is ${JSON.stringify(label)}, the fixture's ${JSON.stringify(inputs.price.priceLabel)}`);
  return out;
}

/**
 * The fixture's prices moved onto the listing's own advertised price: the same ratio of settled to
 * advertised (so the same divergence and price integrity), in the listing's own money. Without it a
 * demo listing priced at $0.001 would "settle" at the fixture's $0.0275 and read as 100 % drift.
 */
export function atListingPrice(inputs: RankInputs, endpoints: Array<{ priceUsd: string | null }>): RankInputs {
  const prices = endpoints.map((e) => (e.priceUsd !== null && /^\d+(\.\d+)?$/.test(e.priceUsd) ? Number(e.priceUsd) : null)).filter((p): p is number => p !== null && p > 0);
  const listed = prices.length ? Math.min(...prices) : null;
  const fixtureAdvertised = inputs.price.advertisedPrice;
  if (listed === null || !fixtureAdvertised || listed === fixtureAdvertised) return inputs;
  const k = listed / fixtureAdvertised;
  return {
    ...inputs,
    price: { ...inputs.price, advertisedPrice: listed, quote: inputs.price.quote ? { ...inputs.price.quote, price: inputs.price.quote.price * k } : null },
    ledger: { ...inputs.ledger, medianSettledPrice30d: inputs.ledger.medianSettledPrice30d === null ? null : inputs.ledger.medianSettledPrice30d * k },
  };
}

/** A USD amount as atomic units (demo prices have at most 6 decimal places). */
function toAtomic(usd: number, decimals: number): string {
  const micro = BigInt(Math.round(usd * 1e6));
  return (decimals >= 6 ? micro * 10n ** BigInt(decimals - 6) : micro / 10n ** BigInt(6 - decimals)).toString();
}

/** A stable 40-hex-digit pseudo-address per (listing, role, index), so re-runs write the same wallets. */
function createWallet(listingId: string, kind: string, i: number): string {
  return createHash("sha256").update(`${listingId}:${kind}:${i}`).digest("hex").slice(0, 40);
}
