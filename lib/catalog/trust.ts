/**
 * The trust grade's read model (docs/TRUST.md, issue #21 item 6 "Where it shows"): what the public
 * listing page, the per-endpoint trust page and the seller's page show. It reads the observations
 * through lib/trust/observe's reader and scores them with the pure engine (lib/trust/engine): each
 * endpoint now with the band (a fixed seed, so the same observations draw the same band on every
 * page view), and for the chart the score at daily points over the last days without the band.
 * The trust grade never enters readiness or rank (docs/spec/scoring-system.md keeps them separate): nothing here is
 * written anywhere.
 */
import { db } from "@/lib/db";
import { rows, type Client } from "@/lib/sql";
import { DEFAULT_SEED, loadRubric, scoreSubject, type TrustResult, type TrustRubric } from "@/lib/trust/engine";
import type { TrustSubject } from "@/lib/trust/observation";
import { readTrustSubjects } from "@/lib/trust/observe";
import { bandLabel, type CheckView, type EndpointTrustDetail, type EndpointTrustSummary, type EndpointValueView, type HistoryPoint } from "./trust-view";
import { readListingValueInputs, type EndpointValueInput } from "./trust-value";
import { listingGlance, trustReading, type TrustReading } from "./trust-words";

export { bandLabel, percentileLabel, usdPerKibLabel, valueSentences, type CheckView, type EndpointTrustDetail, type EndpointTrustSummary, type EndpointValueView, type HistoryPoint } from "./trust-view";

const DAY_MS = 86_400_000;

/** The page's band seed: the engine's default, so a page and `npm run trust` draw the same band. */
export const PAGE_SEED = DEFAULT_SEED;
/** Days of daily points in the chart. */
export const HISTORY_DAYS = 30;
/** Observations listed on an endpoint's page, newest first. */
export const RECENT_OBSERVATIONS = 40;

let rubricCache: TrustRubric | null = null;
function rubric(): TrustRubric {
  return (rubricCache ??= loadRubric());
}

/** The engine's value metrics (computed by scoreSubject from `input`, beside the score) as the pages show them. */
function valueView(rb: TrustRubric, r: TrustResult, input: EndpointValueInput | undefined): EndpointValueView {
  const samples = input?.paidSamples ?? [];
  return {
    priceUsd: input?.priceUsd ?? null,
    category: input?.category ?? null,
    pricePercentile: r.value?.price_percentile ?? null,
    peers: r.value?.peers ?? 0,
    usdPerValidKib: r.value?.usd_per_valid_kib ?? null,
    samples: samples.length,
    validSamples: samples.filter((x) => x.validBytes !== null && x.validBytes > 0).length,
    unpriced: input?.unpriced ?? 0,
    peerRule: { checks: [...rb.pricePeers.checks], minRate: rb.pricePeers.minRate },
  };
}

type EndpointRow = { id: string; method: string; path: string; payable: boolean };

/**
 * A free endpoint (no 402) is not judged on payments: when a paid sample is all that keeps the verdict
 * from a grade, the rubric's grade rule decides it as it would with one (the engine's score is unchanged).
 */
export function freeVerdict(rb: TrustRubric, r: TrustResult): Pick<TrustResult, "verdict" | "verdictBecause"> {
  const v = rb.file.verdict;
  const notPaid = (b: string) => !b.startsWith("no paid sample");
  if (r.verdict !== "insufficient_evidence") return { verdict: r.verdict, verdictBecause: r.verdictBecause };
  const because = r.verdictBecause.filter(notPaid);
  if (because.length > 0 || r.grade === null) return { verdict: r.verdict, verdictBecause: because };
  if (v.avoid_grades.includes(r.grade)) return { verdict: "avoid", verdictBecause: [`grade ${r.grade}`] };
  const c = [...(v.caution_grades.includes(r.grade) ? [`grade ${r.grade}`] : []), ...(r.confidence && v.caution_confidence.includes(r.confidence) ? [`${r.confidence} confidence`] : [])];
  return c.length ? { verdict: "caution", verdictBecause: c } : { verdict: "ok", verdictBecause: [] };
}

/** When the subject's first probe-check observation (the rubric's `probe_check`) was taken. */
function firstProbeAt(rb: TrustRubric, s: TrustSubject, now: number): string | null {
  const first = s.observations.find((o) => o.check === rb.file.verdict.probe_check && Date.parse(o.observedAt) <= now);
  return first?.observedAt ?? null;
}

function summary(rb: TrustRubric, r: TrustResult, e: EndpointRow, s: TrustSubject, value: EndpointValueView, now: number): EndpointTrustSummary {
  const free = !e.payable;
  const { verdict, verdictBecause } = free ? freeVerdict(rb, r) : r;
  const v = rb.file.verdict;
  return {
    endpointId: r.endpointId,
    method: e.method,
    path: e.path,
    score: r.score,
    grade: r.grade,
    band: r.band,
    confidence: r.confidence,
    verdict,
    verdictBecause,
    flags: r.flags,
    outlook: r.outlook,
    watch: r.watch,
    watchBecause: r.watchBecause,
    label: bandLabel(r),
    probes: r.evidence.probes,
    probeSpanDays: r.evidence.probeSpanDays,
    firstProbeAt: firstProbeAt(rb, s, now),
    lastPaidAt: r.evidence.lastPaidAt,
    free,
    needs: { probes: v.min_probes, spanDays: v.min_span_days, paidWithinDays: v.paid_within_days },
    value,
  };
}

async function endpointsOf(client: Client, listingId: string) {
  return rows<EndpointRow>(client, `SELECT "id", "method"::text AS "method", "path", "payable" FROM "endpoints" WHERE "listingId" = $1 ORDER BY "position"`, listingId);
}

const instantOf = (now: Date | string | number | undefined) => (now === undefined ? Date.now() : new Date(now).getTime());

/** Every endpoint of the listing scored now, with the band, in the listing's endpoint order. */
export async function readListingTrust(client: Client, listingId: string, options: { now?: Date | string | number } = {}): Promise<EndpointTrustSummary[]> {
  const now = instantOf(options.now);
  const rb = rubric();
  const live = options.now === undefined;
  const [subjects, endpoints, values] = await Promise.all([readTrustSubjects(client, listingId), endpointsOf(client, listingId), readListingValueInputs(client, rb, listingId, now, { live })]);
  return subjects.map((s) => {
    const e = endpoints.find((x) => x.id === s.endpointId)!;
    const input = values.get(s.endpointId);
    const r = scoreSubject(rb, s, { now, seed: PAGE_SEED, band: true, value: input });
    return summary(rb, r, e, s, valueView(rb, r, input), now);
  });
}

/**
 * One endpoint of the listing: the score now with the band, every check with its rubric text, the
 * gates, the recent observations with their receipts, the daily history (no band) and what to fix
 * first. Null when the endpoint is not one of the listing's.
 */
export async function readEndpointTrust(
  client: Client,
  listingId: string,
  endpointId: string,
  options: { now?: Date | string | number; days?: number; recent?: number; values?: Map<string, EndpointValueInput> } = {},
): Promise<EndpointTrustDetail | null> {
  const now = instantOf(options.now);
  const days = options.days ?? HISTORY_DAYS;
  const [subjects, endpoints] = await Promise.all([readTrustSubjects(client, listingId), endpointsOf(client, listingId)]);
  const subject = subjects.find((s) => s.endpointId === endpointId);
  const e = endpoints.find((x) => x.id === endpointId);
  if (!subject || !e) return null;
  const rb = rubric();
  const byId = new Map(rb.file.checks.map((c) => [c.id, c]));
  const values = options.values ?? (await readListingValueInputs(client, rb, listingId, now, { live: options.now === undefined }));
  const input = values.get(endpointId);
  const r = scoreSubject(rb, subject, { now, seed: PAGE_SEED, band: true, value: input });

  const history: HistoryPoint[] = [];
  for (let d = days; d >= 0; d--) {
    const at = now - d * DAY_MS;
    const h = scoreSubject(rb, subject, { now: at, band: false });
    history.push({ at: new Date(at).toISOString(), score: h.score, grade: h.grade, verdict: h.verdict });
  }

  const gateOf = new Map<string, string>();
  for (const g of r.gates) if (g.fired) gateOf.set(g.check, g.flag);
  const fixFirst = r.checks
    .filter((c) => c.status === "measured" && c.rate !== null && (c.rate < 1 || gateOf.has(c.id)) && (c.facts.fails > 0 || c.metric === "curve"))
    .map((c) => ({ id: c.id, title: byId.get(c.id)?.title ?? c.id, dimension: c.dimension, weight: c.weight, rate: c.rate!, lost: Math.round(c.weight * (1 - c.rate!) * 10) / 10, gate: gateOf.get(c.id) ?? null }))
    .filter((c) => c.lost > 0 || c.gate)
    // A fired gate caps the score whatever the weights say: those first, then the weight lost.
    .sort((a, b) => Number(!!b.gate) - Number(!!a.gate) || b.lost - a.lost || a.id.localeCompare(b.id));

  const observed = subject.observations.filter((o) => Date.parse(o.observedAt) <= now);
  const recent = observed
    .slice(-(options.recent ?? RECENT_OBSERVATIONS))
    .reverse()
    .map((o) => ({ check: o.check, kind: o.kind, outcome: o.outcome, value: o.value, observedAt: o.observedAt, vantage: o.vantage, revision: o.revision, receipt: o.receipt, title: byId.get(o.check)?.title ?? o.check }));

  return {
    ...summary(rb, r, e, subject, valueView(rb, r, input), now),
    rubric: r.rubric,
    reading: r.reading,
    now: r.now,
    seed: r.seed,
    uncappedScore: r.uncappedScore,
    dimensions: r.dimensions,
    checks: r.checks.map((c) => {
      const rc = byId.get(c.id);
      return { ...c, title: rc?.title ?? c.id, measure: rc?.measure ?? "", validity: rc?.validity ?? "" };
    }),
    gatesFired: r.gates.filter((g) => g.fired),
    gates: r.gates,
    recent,
    history,
    fixFirst,
  };
}

/**
 * The glance for catalog tiles and select answers: each listing's endpoints scored now without the band
 * (the value metrics left out: they are the listing page's), read as the least reassuring endpoint's
 * plain reading, and per endpoint. Listings without endpoints are absent.
 */
export async function readTrustGlances(client: Client, listingIds: readonly string[], options: { now?: Date | string | number } = {}): Promise<{ listings: Map<string, TrustReading>; endpoints: Map<string, TrustReading> }> {
  const now = instantOf(options.now);
  const rb = rubric();
  const listings = new Map<string, TrustReading>();
  const byEndpoint = new Map<string, TrustReading>();
  for (const listingId of new Set(listingIds)) {
    const [subjects, endpoints] = await Promise.all([readTrustSubjects(client, listingId), endpointsOf(client, listingId)]);
    const summaries = subjects.flatMap((s) => {
      const e = endpoints.find((x) => x.id === s.endpointId);
      if (!e) return [];
      // Without the band (its draws cost ~ms per endpoint, and a page has many tiles): the score stands in for it.
      const r = scoreSubject(rb, s, { now, band: false });
      return [summary(rb, r, e, s, valueView(rb, r, undefined), now)];
    });
    for (const x of summaries) byEndpoint.set(x.endpointId, trustReading(x, now));
    const glance = listingGlance(summaries, now);
    if (glance) listings.set(listingId, glance);
  }
  return { listings, endpoints: byEndpoint };
}

export async function getTrustGlances(listingIds: readonly string[]) {
  return readTrustGlances(await db(), listingIds);
}

/** The pages' entry points: the catalog's database handle. */
export async function getListingTrust(listingId: string): Promise<EndpointTrustSummary[]> {
  return readListingTrust(await db(), listingId);
}

export async function getEndpointTrust(listingId: string, endpointId: string): Promise<EndpointTrustDetail | null> {
  return readEndpointTrust(await db(), listingId, endpointId);
}

/** The seller's page: every endpoint of the listing in full (the caller has checked the seller owns it). */
export async function readListingTrustDetails(client: Client, listingId: string, options: { now?: Date | string | number } = {}): Promise<EndpointTrustDetail[]> {
  const endpoints = await endpointsOf(client, listingId);
  const now = instantOf(options.now);
  const values = await readListingValueInputs(client, rubric(), listingId, now, { live: options.now === undefined });
  const out: EndpointTrustDetail[] = [];
  for (const e of endpoints) {
    const d = await readEndpointTrust(client, listingId, e.id, { now, recent: 10, values });
    if (d) out.push(d);
  }
  return out;
}

export async function getListingTrustDetails(listingId: string): Promise<EndpointTrustDetail[]> {
  return readListingTrustDetails(await db(), listingId);
}

/**
 * The endpoints (of `pairs`) whose trust verdict now is `avoid`, for `/router/select`'s
 * `filters.excludeAvoid`. Scored without the band: `avoid` rests on a gate or an F with enough
 * evidence, neither of which reads the band.
 */
export async function avoidEndpoints(client: Client, pairs: Array<{ listingId: string; endpointId: string }>, options: { now?: Date | string | number } = {}): Promise<Set<string>> {
  const now = instantOf(options.now);
  const out = new Set<string>();
  const rb = rubric();
  for (const listingId of new Set(pairs.map((p) => p.listingId))) {
    const wanted = new Set(pairs.filter((p) => p.listingId === listingId).map((p) => p.endpointId));
    for (const s of await readTrustSubjects(client, listingId)) {
      if (wanted.has(s.endpointId) && scoreSubject(rb, s, { now, band: false }).verdict === "avoid") out.add(s.endpointId);
    }
  }
  return out;
}
