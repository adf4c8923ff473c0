/**
 * bench:select's three selectors, each over the candidates and relevance of the catalog's own search
 * (searchHits read as a sentence, payable listings only), so only the quality signal differs: `bazaar` (relevance ×
 * (1 + q), q from 30-day calls and unique payers), `volume` (settled USDC, x402scan's order) and
 * `tollgate` (selectServices). Baselines keep hits of at least half the best relevance.
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { rows } from "@/lib/sql";
import { searchHits } from "@/lib/catalog/search";
import { ROUTER_POOL, selectServices } from "@/lib/catalog/select";

export const SELECTORS = ["bazaar", "volume", "tollgate"] as const;
export type SelectorName = (typeof SELECTORS)[number];

export const SELECTOR_LABELS: Record<SelectorName, string> = {
  bazaar: "(a) relevance + 30-day calls and unique payers (Bazaar)",
  volume: "(b) settled volume (x402scan)",
  tollgate: "(c) Tollgate selectServices",
};

export interface Signals {
  calls30d: number;
  payers30d: number;
  /** Settled atomic units over 30 days. */
  volume30d: number;
}

/** Every listing's ledger signals over 30 days, buyers only (house rows are the canary's). */
export async function readSignals(prisma: PrismaClient, now = new Date()): Promise<Map<string, Signals>> {
  const rs = await rows<{ listingId: string; calls: number; payers: number; volume: string | null }>(
    prisma,
    `SELECT "listingId",
            count(*) FILTER (WHERE "status" IN ('settled', 'failed'))::int AS calls,
            count(DISTINCT "payer") FILTER (WHERE "status" = 'settled')::int AS payers,
            sum(COALESCE("chainAmount", "settledAmount", "advertisedAmount")::numeric) FILTER (WHERE "status" = 'settled')::text AS volume
       FROM "router_payments"
      WHERE NOT "house" AND COALESCE("relayedAt", "createdAt") > $1::timestamptz - interval '30 days'
      GROUP BY "listingId"`,
    now.toISOString(),
  );
  return new Map(rs.map((r) => [r.listingId, { calls30d: r.calls, payers30d: r.payers, volume30d: Number(r.volume ?? 0) }]));
}

const NONE: Signals = { calls30d: 0, payers30d: 0, volume30d: 0 };

/** The listing ids a selector would pay for `task`, best first (at most `limit`). */
export async function choose(selector: SelectorName, task: string, signals: Map<string, Signals>, limit: number): Promise<string[]> {
  if (selector === "tollgate") {
    const { items } = await selectServices({ task, limit: Math.min(limit, 50) }, { apiVersion: null });
    return items.map((i) => i.id);
  }
  // The same sentence relevance selectServices reads (OR over the task's words; docs/SELECTION.md).
  const { hits } = await searchHits({ query: task, limit: ROUTER_POOL, endpoint: {}, sentence: true });
  if (hits.length === 0) return [];
  const best = hits[0].relevance;
  const relevant = hits.filter((h) => h.relevance >= best / 2).map((h) => ({ ...h, s: signals.get(h.listingId) ?? NONE }));
  let scored: Array<{ id: string; key: number; tie: number }>;
  if (selector === "bazaar") {
    const maxCalls = Math.max(...relevant.map((h) => Math.log1p(h.s.calls30d)), 0);
    const maxPayers = Math.max(...relevant.map((h) => Math.log1p(h.s.payers30d)), 0);
    scored = relevant.map((h) => {
      const q = 0.5 * (maxCalls ? Math.log1p(h.s.calls30d) / maxCalls : 0) + 0.5 * (maxPayers ? Math.log1p(h.s.payers30d) / maxPayers : 0);
      return { id: h.listingId, key: h.relevance * (1 + q), tie: h.relevance };
    });
  } else scored = relevant.map((h) => ({ id: h.listingId, key: h.s.volume30d, tie: h.relevance }));
  scored.sort((a, b) => b.key - a.key || b.tie - a.tie || (a.id < b.id ? -1 : 1));
  return scored.slice(0, limit).map((x) => x.id);
}
