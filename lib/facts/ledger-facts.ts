/**
 * Minimal ledger facts for scoring (H2 liveness, H3 settleability and the knownUnpayable cap), read
 * straight from `router_payments` and `monitor_health_samples` in one SQL statement. Another module
 * (lib/ledger/) grows the full aggregation; this one is deliberately small and named so it can be
 * swapped for it: same inputs, same SettleFacts/LivenessFacts out.
 */
import type { ProbeEvidence } from "@/lib/evidence";
import { HEALTH_CONFIDENCE, SETTLED_WITHIN_DAYS, settlementUnproven, type HealthStatus, type LivenessFacts, type SettleFacts } from "@/lib/scoring/signals";
import { isoOf, rows, utcParam, type Client } from "@/lib/sql";

interface Row {
  lastSettledAt: string | null;
  failedSince: number;
  failingBuyersSince: number;
  attempting30d: number;
  settled30d: number;
  samples7d: number;
  up7d: number;
  samples30d: number;
  up30d: number;
  latestConfidence: number | null;
  healthStatus: HealthStatus | null;
}

/**
 * Monitor confidence when there are no health samples yet: read from this probe with the same
 * ladder the monitor uses (lib/scoring/signals HEALTH_CONFIDENCE): a valid challenge 1.0, a
 * structured 4xx 0.6, another answer 0.3, nothing 0.
 */
export function confidenceFromProbe(probe: ProbeEvidence | null): number {
  if (!probe) return HEALTH_CONFIDENCE.noAnswer;
  let best: number = HEALTH_CONFIDENCE.noAnswer;
  for (const e of probe.endpoints) {
    if (!e.reachable) continue;
    const c = e.challenge?.valid
      ? HEALTH_CONFIDENCE.validChallenge
      : e.status !== null && e.status >= 400 && e.status < 500
        ? HEALTH_CONFIDENCE.structured4xx
        : HEALTH_CONFIDENCE.otherAnswer;
    best = Math.max(best, c);
  }
  return best;
}

export async function ledgerFactsForScoring(
  client: Client,
  listingId: string,
  now: Date,
  probe: ProbeEvidence | null,
): Promise<{ settle: SettleFacts; liveness: LivenessFacts }> {
  const [r] = await rows<Row>(
    client,
    `WITH p AS (
       SELECT "payer", "status", "createdAt" FROM "router_payments" WHERE "listingId" = $1 AND "createdAt" <= ${utcParam(2)}
     ), lastok AS (
       SELECT max("createdAt") AS "at" FROM p WHERE "status" = 'settled'
     ), fails AS (
       SELECT count(*)::int AS "n", count(DISTINCT p."payer")::int AS "buyers" FROM p, lastok
       WHERE p."status" = 'failed' AND (lastok."at" IS NULL OR p."createdAt" > lastok."at")
     ), w30 AS (
       SELECT count(DISTINCT "payer")::int AS "attempting", (count(*) FILTER (WHERE "status" = 'settled'))::int AS "settled"
       FROM p WHERE "createdAt" > ${utcParam(2)} - make_interval(days => $3::int)
     ), s AS (
       SELECT "outcome", "at", "confidence" FROM "monitor_health_samples"
       WHERE "listingId" = $1 AND "at" <= ${utcParam(2)} AND "at" > ${utcParam(2)} - make_interval(days => $3::int)
     ), up AS (
       SELECT (count(*) FILTER (WHERE "at" > ${utcParam(2)} - interval '7 days'))::int AS "n7",
              (count(*) FILTER (WHERE "at" > ${utcParam(2)} - interval '7 days' AND "outcome" = 'up'))::int AS "up7",
              count(*)::int AS "n30", (count(*) FILTER (WHERE "outcome" = 'up'))::int AS "up30"
       FROM s
     )
     SELECT ${isoOf(`lastok."at"`)} AS "lastSettledAt", fails."n" AS "failedSince", fails."buyers" AS "failingBuyersSince",
            w30."attempting" AS "attempting30d", w30."settled" AS "settled30d",
            up."n7" AS "samples7d", up."up7" AS "up7d", up."n30" AS "samples30d", up."up30" AS "up30d",
            (SELECT "confidence" FROM s ORDER BY "at" DESC LIMIT 1) AS "latestConfidence",
            (SELECT "healthStatus"::text FROM "listings" WHERE "id" = $1) AS "healthStatus"
     FROM lastok, fails, w30, up`,
    listingId,
    now.toISOString(),
    SETTLED_WITHIN_DAYS,
  );
  const pct = (up: number, n: number) => (n === 0 ? null : Math.round((10_000 * up) / n) / 100);
  return {
    settle: {
      lastSettledAt: r.lastSettledAt,
      failedAttemptsSinceLastSettle: r.failedSince,
      distinctFailingBuyersSinceLastSettle: r.failingBuyersSince,
    },
    liveness: {
      uptime7d: pct(r.up7d, r.samples7d),
      uptime30d: pct(r.up30d, r.samples30d),
      healthStatus: r.healthStatus ?? "unverified",
      healthConfidence: r.latestConfidence ?? confidenceFromProbe(probe),
      settlementUnproven: settlementUnproven(r.attempting30d, r.settled30d),
    },
  };
}
