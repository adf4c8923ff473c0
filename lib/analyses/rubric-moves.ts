/**
 * Which listings a rubric release moves: each latest result re-scored from identical inputs under two rubric
 * versions, so every difference is the rubric's. `npm run rubric:moves -- [--from 1.1.0] [--to 1.2.0] [--format
 * text|json]`
 */
import type { ListingDocument } from "@/lib/listing-document/document";
import { splitStoredEvidence } from "@/lib/evidence";
import { ledgerFactsForScoring } from "@/lib/facts/aggregate";
import { checkReadinessEvidence } from "@/lib/scoring/readiness/evidence";
import { scoreReadiness } from "@/lib/scoring/readiness/engine";
import { loadRubric, rubricVersionString } from "@/lib/scoring/readiness/rubric";
import type { ReadinessResult, RuleStatus } from "@/lib/scoring/readiness/types";
import { rows, type Client } from "@/lib/sql";

export interface RuleMove {
  id: string;
  /** Null when the older version has no such rule. */
  from: { status: RuleStatus; earned: number } | null;
  to: { status: RuleStatus; earned: number };
  /** Under the newer version (what the seller reads). */
  reason: string;
}

export interface ListingMove {
  listingId: string;
  slug: string;
  title: string;
  storedVersion: string;
  /** Scored without probe evidence (provisional, or its evidence is gone). */
  provisional: boolean;
  from: { total: number; rawTotal: number; band: string };
  to: { total: number; rawTotal: number; band: string };
  delta: number;
  /** Rules whose status or points differ, in rubric order. */
  rules: RuleMove[];
}

export interface RubricMoves {
  from: string;
  to: string;
  listings: ListingMove[];
  moved: number;
}

interface Row {
  listingId: string;
  slug: string;
  title: string;
  rubricVersion: string;
  provisional: boolean;
  document: ListingDocument;
  evidence: unknown | null;
}

export async function rubricMoves(client: Client, opts: { from: string; to: string; now?: Date }): Promise<RubricMoves> {
  const from = loadRubric(opts.from);
  const to = loadRubric(opts.to);
  const now = opts.now ?? new Date();
  const latest = await rows<Row>(
    client,
    `SELECT DISTINCT ON (r."listingId") r."listingId", l."slug", l."title", r."rubricVersion", r."provisional", r."document", e."evidence"
       FROM "catalog_scoring_results" r
       JOIN "listings" l ON l."id" = r."listingId"
       LEFT JOIN "probe_evidence" e ON e."id" = r."evidenceId"
      ORDER BY r."listingId", r."createdAt" DESC, r."id" DESC`,
  );
  const listings: ListingMove[] = [];
  for (const row of latest.sort((a, b) => a.slug.localeCompare(b.slug))) {
    const stored = row.provisional || row.evidence === null ? null : splitStoredEvidence(row.evidence);
    // Facts stored beside the probe (the demo's fixtures) are the ones that result was scored with.
    const facts = stored?.settle && stored.liveness ? { settle: stored.settle, liveness: stored.liveness } : await ledgerFactsForScoring(client, row.listingId, now);
    const evidence = stored?.probe ? checkReadinessEvidence({ probe: stored.probe, ...facts }) : null;
    if (evidence && !evidence.ok) throw new Error(`listing ${row.slug}: stored evidence is invalid at ${evidence.errors[0].pointer}: ${evidence.errors[0].message}`);
    const input = evidence ? evidence.value : null;
    const a = scoreReadiness(row.document, input, from, { now });
    const b = scoreReadiness(row.document, input, to, { now });
    listings.push({
      listingId: row.listingId,
      slug: row.slug,
      title: row.title,
      storedVersion: row.rubricVersion,
      provisional: input === null,
      from: summary(a),
      to: summary(b),
      delta: b.total - a.total,
      rules: ruleMoves(a, b),
    });
  }
  return { from: rubricVersionString(from), to: rubricVersionString(to), listings, moved: listings.filter((l) => l.delta !== 0).length };
}

const summary = (r: ReadinessResult) => ({ total: r.total, rawTotal: r.rawTotal, band: r.band.label });

function ruleMoves(a: ReadinessResult, b: ReadinessResult): RuleMove[] {
  const before = new Map(a.rules.map((r) => [r.id, r]));
  return b.rules.flatMap((r) => {
    const old = before.get(r.id);
    if (old && old.status === r.status && Math.abs(old.earned - r.earned) < 1e-9) return [];
    return [{ id: r.id, from: old ? { status: old.status, earned: old.earned } : null, to: { status: r.status, earned: r.earned }, reason: r.reason }];
  });
}

const points = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

export function formatMoves(m: RubricMoves): string {
  const lines = [`${m.from} → ${m.to}: ${m.moved} of ${m.listings.length} listings move (same inputs on both sides)`, ""];
  for (const l of m.listings) {
    const sign = l.delta > 0 ? `+${l.delta}` : l.delta === 0 ? "±0" : String(l.delta);
    lines.push(`${l.slug.padEnd(32)} ${String(l.from.total).padStart(3)} ${l.from.band.padEnd(15)} → ${String(l.to.total).padStart(3)} ${l.to.band.padEnd(15)} ${sign.padStart(4)}${l.provisional ? "  (no probe evidence)" : ""}`);
    for (const r of l.rules) lines.push(`    ${r.id}: ${r.from ? `${r.from.status} ${points(r.from.earned)}` : "(new rule)"} → ${r.to.status} ${points(r.to.earned)}  ${r.reason}`);
  }
  return lines.join("\n") + "\n";
}
