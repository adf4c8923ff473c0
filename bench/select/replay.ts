/**
 * `npm run bench:select-replay -- FILE`: ordering rules replayed over Tollgate's full answers that
 * `bench:select --dump FILE` wrote (every task's shortlist in order, with relevance, rank score, why
 * and each listed seller's ground truth and monitor uptime), scored by ground truth in seconds
 * instead of a 30-minute history (docs/BENCHMARKS.md "bench:select", "Replayed orders").
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { selectServices } from "@/lib/catalog/select";
import { monitorUptime } from "@/lib/catalog/select-evidence";
import { inputsFromDocument } from "@/lib/rank/sweep-ranks";
import { rows } from "@/lib/sql";
import { expectedSuccess, type Task } from "./market";
import type { Listed } from "./history";

interface DumpItem { id: string; relevance: number; rankScore: number | null; why: string }
interface Dump {
  listings: Record<string, { slug: string; kind: string; capability: string; expected: number; uptime: number | null }>;
  tasks: Array<{ capability: string; text: string; items: DumpItem[] }>;
}

/** Writes every task's full answer (limit 50) with the listings' ground truth and the rank's monitor uptime. */
export async function writeDump(file: string, prisma: PrismaClient, listed: readonly Listed[], tasks: readonly Task[]): Promise<void> {
  const facts = await rows<{ id: string; facts: unknown }>(prisma, `SELECT "listingId" AS id, "facts" FROM "listing_ranks"`);
  const uptime = new Map(facts.map((f) => [f.id, inputsFromDocument(f.facts, new Date())?.monitor ?? null]));
  const listings: Dump["listings"] = {};
  for (const l of listed) {
    const m = uptime.get(l.listingId) ?? null;
    listings[l.listingId] = { slug: l.slug, kind: l.seller.kind, capability: l.seller.capability, expected: expectedSuccess(l.seller), uptime: monitorUptime(m)?.percent ?? null };
  }
  const out: Dump["tasks"] = [];
  for (const task of tasks) {
    const { items } = await selectServices({ task: task.sentence, limit: 50 }, { apiVersion: null });
    out.push({ capability: task.capability, text: task.sentence, items: items.map((i) => ({ id: i.id, relevance: i.relevance, rankScore: i.rankScore, why: i.why })) });
  }
  writeFileSync(file, JSON.stringify({ listings, tasks: out } satisfies Dump));
}

/** The evidence tier an answer's why shows (docs/SELECTION.md "3. Ordering"); the dump keeps the order, not the tier. */
const tierOf = (why: string) => (/\(down\)|× the median/.test(why) ? 2 : /\(caution\)|monitor probes/.test(why) ? 1 : 0);

type Order = (items: Array<DumpItem & { tier: number; uptime: number | null }>, capability: string) => DumpItem;

/** Within the first tier only; the rest never leads. */
const firstTier = <T extends { tier: number }>(xs: T[]) => xs.filter((x) => x.tier === xs[0].tier);
/** The first tier's candidates at least `share` as relevant as its most relevant one. */
const bandOf = <T extends { tier: number; relevance: number }>(items: T[], share: number) => {
  const t = firstTier(items);
  const best = Math.max(...t.map((x) => x.relevance));
  return t.filter((x) => x.relevance >= share * best);
};
const meanUptime = (xs: Array<{ uptime: number | null }>) => {
  const known = xs.flatMap((x) => (x.uptime === null ? [] : [x.uptime]));
  return known.length ? known.reduce((a, b) => a + b, 0) / known.length : 100;
};

function orders(d: Dump, solves: (capability: string, id: string) => number): Array<[string, Order]> {
  const bestByTruth = (xs: DumpItem[], capability: string) => [...xs].sort((a, b) => solves(capability, b.id) - solves(capability, a.id))[0];
  const byUptimeIn = (share: number): Order => (items) => {
    const band = bandOf(items, share);
    const mean = meanUptime(band);
    return [...band].sort((a, b) => (b.uptime ?? mean) - (a.uptime ?? mean))[0];
  };
  const uptimePower = (p: number): Order => (items) => {
    const t = firstTier(items);
    const best = Math.max(...items.map((x) => x.rankScore ?? 0));
    const mean = meanUptime(t);
    const s = (x: (typeof t)[number]) => x.relevance * (1 + 0.25 * (best > 0 ? (x.rankScore ?? 0) / best : 0)) * ((x.uptime ?? mean) / 100) ** p;
    return [...t].sort((a, b) => s(b) - s(a))[0];
  };
  return [
    ["as selected: tiers, then relevance × (1 + 0.25·q)", (items) => items[0]],
    ["× (uptime)² (both requests answered)", uptimePower(2)],
    ["× (uptime)⁴", uptimePower(4)],
    ["relevance ≥ 0.8 of the best, then highest uptime", byUptimeIn(0.8)],
    ["relevance ≥ 0.5 of the best, then highest uptime", byUptimeIn(0.5)],
    ["ceiling: the best by ground truth, relevance ≥ 0.8", (items, cap) => bestByTruth(bandOf(items, 0.8), cap)],
    ["ceiling: the best by ground truth of all returned", (items, cap) => bestByTruth(items, cap)],
  ];
}

export function replay(d: Dump): Array<{ order: string; successPct: number; wrongCapability: number; changed: number }> {
  const solves = (capability: string, id: string) => (d.listings[id]?.capability === capability ? d.listings[id].expected : 0);
  return orders(d, solves).map(([name, order]) => {
    let sum = 0, wrong = 0, changed = 0;
    for (const t of d.tasks) {
      if (t.items.length === 0) continue;
      const pick = order(t.items.map((i) => ({ ...i, tier: tierOf(i.why), uptime: d.listings[i.id]?.uptime ?? null })), t.capability);
      sum += solves(t.capability, pick.id);
      if (d.listings[pick.id]?.capability !== t.capability) wrong++;
      if (pick.id !== t.items[0].id) changed++;
    }
    return { order: name, successPct: (100 * sum) / d.tasks.length, wrongCapability: wrong, changed };
  });
}

if (process.argv[1]?.endsWith("replay.ts")) {
  const file = process.argv[2];
  if (!file) throw new Error("bench:select-replay takes the file `bench:select --dump FILE` wrote");
  const d = JSON.parse(readFileSync(file, "utf8")) as Dump;
  const table = replay(d);
  console.log(`${d.tasks.length} tasks, ${Object.keys(d.listings).length} listings; success by ground truth (uptime² × correctness of the pick, 0 for another capability's seller)`);
  for (const r of table) console.log(`  ${r.order.padEnd(54)} ${r.successPct.toFixed(2).padStart(6)} %   other capability ${String(r.wrongCapability).padStart(3)}   picks changed ${r.changed}`);
  console.log(`RESULT select_replay_as_selected ${table[0].successPct.toFixed(2)} %`);
}
