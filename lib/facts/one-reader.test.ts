/**
 * One facts reader: for the same rows (payments, health samples, quotes written through
 * lib/ledger/record.ts), readiness's facts (ledgerFactsForScoring, what the completion scores H2, H3
 * and the knownUnpayable cap from) and rank's (the rank sweep's stored inputs, gate and liveness)
 * are identical, edge cases included: fewer than MIN_UPTIME_SAMPLES samples, none, exactly enough,
 * and a listing whose healthStatus column disagrees with its latest reading.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { fullEvidence, fullListing } from "@/test/readiness";
import { recordHealthSample, recordPayment, recordQuote } from "@/lib/ledger/record";
import { ledgerFactsForScoring } from "@/lib/facts/aggregate";
import { inputsFromDocument, runRankSweep } from "@/lib/rank/sweep-ranks";
import { computeRank, DAY_MS } from "@/lib/rank/score";
import { CURRENT_RUBRIC, scoreReadiness } from "@/lib/scoring/readiness";
import { liveness, MIN_UPTIME_SAMPLES, settleGate, type HealthStatus, type LivenessFacts, type SettleFacts } from "@/lib/scoring/signals";
import { clientOr, transaction } from "@/lib/sql";

let t: TestDatabase;
const NOW = new Date("2026-12-02T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const HOUR = 3_600_000;
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

const pay = (listingId: string, payer: number, status: "settled" | "failed", at: Date) =>
  recordPayment({ listingId, payer: wallet(payer), status, advertisedAmount: "10000", settledAmount: status === "settled" ? "10000" : null, asset: "USDC", network: "eip155:8453", at });
/** `n` samples an hour apart, the newest `startMs` ago; the first `down` of them (the newest) down. */
async function samples(listingId: string, n: number, opts: { startMs?: number; confidence?: number; down?: number; stepMs?: number } = {}) {
  for (let i = 0; i < n; i++) {
    await recordHealthSample({
      listingId,
      at: ago((opts.startMs ?? HOUR) + i * (opts.stepMs ?? HOUR)),
      outcome: i < (opts.down ?? 0) ? "down" : "up",
      confidence: opts.confidence ?? 1,
      vantage: "test",
    });
  }
}
const setColumn = (id: string, healthStatus: HealthStatus) => t.prisma.listing.update({ where: { id }, data: { healthStatus } });

type Facts = { settle: SettleFacts; liveness: LivenessFacts };
const ids: Record<string, string> = {};
/** What each listing's facts must be, whichever reader reads them. */
const expected: Record<string, { settle?: Partial<SettleFacts>; liveness: Partial<LivenessFacts>; gate: string }> = {};

describe("readiness's facts are rank's facts", () => {
  beforeAll(async () => {
    const make = async (key: string) => (ids[key] = await createTestListing(t.prisma, { title: key }));

    // Fewer than 12 samples (10, all up, a valid challenge): no uptime yet, the reading's status.
    await make("fewSamples");
    await samples(ids.fewSamples, 10);
    await pay(ids.fewSamples, 1, "settled", ago(2 * DAY_MS));
    expected.fewSamples = { liveness: { uptime7d: null, uptime30d: null, healthStatus: "operational", healthConfidence: 1, settlementUnproven: false }, gate: "settleable" };

    // Exactly 12 samples in 7 days, 3 of them down: the uptime counts (9 of 12).
    await make("twelve");
    await samples(ids.twelve, MIN_UPTIME_SAMPLES, { down: 3 });
    expected.twelve = { liveness: { uptime7d: 75, uptime30d: 75, healthStatus: "operational", healthConfidence: 1 }, gate: "unknown" };

    // 11 samples in 7 days, 14 in 30: no 7-day uptime, a 30-day one.
    await make("thirtyOnly");
    await samples(ids.thirtyOnly, 11, { confidence: 0.6 });
    await samples(ids.thirtyOnly, 3, { startMs: 10 * DAY_MS, confidence: 0.6 });
    expected.thirtyOnly = { liveness: { uptime7d: null, uptime30d: 100, healthStatus: "degraded", healthConfidence: 0.6 }, gate: "unknown" };

    // No samples at all (and one older than 30 days): the listing column is the baseline, uncapped.
    await make("noSamples");
    await setColumn(ids.noSamples, "degraded");
    await samples(ids.noSamples, 1, { startMs: 31 * DAY_MS, confidence: 0 });
    expected.noSamples = { liveness: { uptime7d: null, uptime30d: null, healthStatus: "degraded", healthConfidence: 1, settlementUnproven: false }, gate: "unknown" };

    // The column says operational, the latest reading (0.3, another answer) says degraded.
    await make("columnDisagrees");
    await setColumn(ids.columnDisagrees, "operational");
    await samples(ids.columnDisagrees, 13, { startMs: 2 * HOUR });
    await recordHealthSample({ listingId: ids.columnDisagrees, at: ago(HOUR), outcome: "down", confidence: 0.3, vantage: "test" });
    expected.columnDisagrees = { liveness: { uptime7d: (100 * 13) / 14, uptime30d: (100 * 13) / 14, healthStatus: "degraded", healthConfidence: 0.3 }, gate: "unknown" };

    // The column says unavailable, the latest reading is a valid challenge: operational, whatever the column says.
    await make("columnStale");
    await setColumn(ids.columnStale, "unavailable");
    await samples(ids.columnStale, 2);
    expected.columnStale = { liveness: { uptime7d: null, uptime30d: null, healthStatus: "operational", healthConfidence: 1 }, gate: "unknown" };

    // Known unpayable: 3 failures from 2 buyers since the last settlement (readiness's knownUnpayable cap).
    await make("unpayable");
    await pay(ids.unpayable, 1, "settled", ago(20 * DAY_MS));
    await pay(ids.unpayable, 2, "failed", ago(3 * DAY_MS));
    await pay(ids.unpayable, 3, "failed", ago(2 * DAY_MS));
    await pay(ids.unpayable, 3, "failed", ago(DAY_MS));
    await samples(ids.unpayable, 20, { confidence: 0.6 });
    expected.unpayable = {
      settle: { lastSettledAt: ago(20 * DAY_MS).toISOString(), failedAttemptsSinceLastSettle: 3, distinctFailingBuyersSinceLastSettle: 2 },
      liveness: { uptime7d: 100, healthStatus: "degraded", healthConfidence: 0.6, settlementUnproven: false },
      gate: "unpayable",
    };

    // Settlement unproven: two buyers tried within 30 days (one of them exactly 30 days ago, the
    // window's inclusive end) and none settled; the uptime is withheld from liveness.
    await make("unproven");
    await pay(ids.unproven, 1, "failed", ago(30 * DAY_MS));
    await pay(ids.unproven, 2, "failed", ago(DAY_MS));
    await samples(ids.unproven, 12);
    await recordQuote({ listingId: ids.unproven, amount: "10000", asset: "USDC", network: "eip155:8453", quotedAt: ago(DAY_MS), source: "test" });
    expected.unproven = { liveness: { uptime7d: 100, settlementUnproven: true }, gate: "unknown" };

    const swept = await runRankSweep({ now: NOW });
    expect(swept.leader).toBe(true);
    expect(swept.scanned).toBe(Object.keys(ids).length);
  });

  async function rankOf(listingId: string) {
    const stored = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId } });
    const inputs = inputsFromDocument(stored.facts, stored.rankedAt!)!;
    expect(inputs).not.toBeNull();
    const components = stored.components as { gate: string; liveness: number };
    return { inputs, gate: stored.gate, liveness: components.liveness, computed: computeRank(inputs) };
  }

  const KEYS = ["fewSamples", "twelve", "thirtyOnly", "noSamples", "columnDisagrees", "columnStale", "unpayable", "unproven"];

  it.each(KEYS)("%s: the same settle, uptime, health and confidence facts, gate and liveness", async (key) => {
    const id = ids[key];
    // As the completion reads them: on its own transaction.
    const inTx = await transaction(await clientOr(), (tx) => ledgerFactsForScoring(tx, id, NOW));
    const outside: Facts = await ledgerFactsForScoring(t.prisma, id, NOW);
    expect(inTx).toEqual(outside);
    const rank = await rankOf(id);

    // The facts themselves.
    expect(outside.settle).toEqual(rank.inputs.settle);
    const l = outside.liveness;
    expect({ uptime7d: l.uptime7d, uptime30d: l.uptime30d, healthStatus: l.healthStatus, healthConfidence: l.healthConfidence }).toEqual(rank.inputs.monitor);
    // The whole LivenessFacts rank fed signals.liveness, settlementUnproven (derived from the ledger) included.
    const rankLiveness = rank.computed.components.liveness.facts as { facts: LivenessFacts };
    expect(outside.liveness).toEqual(rankLiveness.facts);
    // …and what each score makes of them: the gate (H3, knownUnpayable) and liveness (H2).
    expect(settleGate(outside.settle, NOW).gate).toBe(rank.gate);
    expect(liveness(outside.liveness).value).toBe(rank.liveness);

    // The rule, stated: both readers agreeing on a wrong value would fail here.
    const want = expected[key];
    expect(outside.liveness).toMatchObject(want.liveness);
    if (want.settle) expect(outside.settle).toEqual(want.settle);
    expect(rank.gate).toBe(want.gate);
  });

  it.each(KEYS)("%s: readiness scores H2 as 5 × rank's liveness, H3 and knownUnpayable from rank's gate", async (key) => {
    const facts = await ledgerFactsForScoring(t.prisma, ids[key], NOW);
    const rank = await rankOf(ids[key]);
    const listing = fullListing();
    const r = scoreReadiness(listing, fullEvidence(listing, facts), CURRENT_RUBRIC, { now: NOW });
    const rule = (id: string) => r.rules.find((x) => x.id === id)!;
    expect(rule("H2").earned).toBeCloseTo(5 * rank.liveness, 12);
    expect(rule("H3").earned).toBe(CURRENT_RUBRIC.settleability[rank.gate as "settleable" | "unknown" | "unpayable"]);
    expect(r.caps.some((c) => c.id === "knownUnpayable")).toBe(rank.gate === "unpayable");
  });
});
