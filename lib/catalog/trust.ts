/** The trust grade's read model: stored grades and daily points, scoring live only what is not graded (docs/TRUST.md "Where it shows"). */
import { db } from "@/lib/db";
import { rows, type Client } from "@/lib/sql";
import { readDailyPoints, readLatestGrades, scoredPartsOf, type ScoredParts, type StoredGrade } from "@/lib/attest/read";
import { DEFAULT_SEED, loadRubric, scoreSubject, valueMetrics, type TrustResult, type TrustRubric, type ValueMetrics } from "@/lib/trust/engine";
import type { Observation, TrustSubject } from "@/lib/trust/observation";
import { readRecentObservations, readTrustSubjects, readTrustSubjectsOfMany } from "@/lib/trust/observe";
import { firstObservedAt } from "@/lib/trust/engine/rollup";
import { bandLabel, type CheckView, type EndpointTrustDetail, type EndpointTrustSummary, type EndpointValueView, type HistoryPoint } from "./trust-view";
import { readListingPrices, readListingValueInputs, type EndpointValueInput } from "./trust-value";
import { listingGlance, trustReading, type TrustReading } from "./trust-words";

export { bandLabel, percentileLabel, usdPerKibLabel, valueSentences, type CheckView, type EndpointTrustDetail, type EndpointTrustSummary, type EndpointValueView, type HistoryPoint } from "./trust-view";

const DAY_MS = 86_400_000;

/** The engine's default, so a page and `npm run trust` draw the same band. */
export const PAGE_SEED = DEFAULT_SEED;
export const HISTORY_DAYS = 30;
export const RECENT_OBSERVATIONS = 40;

let rubricCache: TrustRubric | null = null;
function rubric(): TrustRubric {
  return (rubricCache ??= loadRubric());
}

function valueView(rb: TrustRubric, r: { value: ValueMetrics | null }, input: EndpointValueInput | undefined): EndpointValueView {
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

type EndpointRow = { id: string; method: string; path: string; trustPath: string; payable: boolean };

/** A free endpoint is not judged on payments: when only a paid sample stands between it and a grade, the grade rule decides. */
export function freeVerdict(rb: TrustRubric, r: Pick<TrustResult, "verdict" | "verdictBecause" | "grade" | "confidence">): Pick<TrustResult, "verdict" | "verdictBecause"> {
  const v = rb.file.verdict;
  const notPaid = (b: string) => !b.startsWith("no paid sample");
  if (r.verdict !== "insufficient_evidence") return { verdict: r.verdict, verdictBecause: r.verdictBecause };
  const because = r.verdictBecause.filter(notPaid);
  if (because.length > 0 || r.grade === null) return { verdict: r.verdict, verdictBecause: because };
  if (v.avoid_grades.includes(r.grade)) return { verdict: "avoid", verdictBecause: [`grade ${r.grade}`] };
  const c = [...(v.caution_grades.includes(r.grade) ? [`grade ${r.grade}`] : []), ...(r.confidence && v.caution_confidence.includes(r.confidence) ? [`${r.confidence} confidence`] : [])];
  return c.length ? { verdict: "caution", verdictBecause: c } : { verdict: "ok", verdictBecause: [] };
}

function firstProbeAt(rb: TrustRubric, s: TrustSubject, now: number): string | null {
  const first = firstObservedAt(s, rb.file.verdict.probe_check, now);
  return first === null ? null : new Date(first).toISOString();
}

/** A live TrustResult or a stored grade (gradedOf). */
type Graded = Pick<TrustResult, "endpointId" | "score" | "grade" | "band" | "confidence" | "verdict" | "verdictBecause" | "flags" | "outlook" | "watch" | "watchBecause" | "evidence">;

function gradedOf(g: StoredGrade, endpointId: string): Graded {
  return {
    endpointId,
    score: g.score,
    grade: g.grade,
    band: g.band,
    confidence: g.confidence,
    verdict: g.verdict,
    verdictBecause: g.detail.verdictBecause,
    flags: g.flags,
    outlook: g.detail.outlook,
    watch: g.detail.watch,
    watchBecause: g.detail.watchBecause,
    evidence: g.detail.evidence,
  };
}

const keyOf = (x: { method: string; path: string }) => `${x.method} ${x.path}`;
const endpointKeyOf = (e: { method: string; trustPath: string }) => `${e.method} ${e.trustPath}`;

function summary(rb: TrustRubric, r: Graded, e: EndpointRow, s: TrustSubject | { firstProbeAt: string | null }, value: EndpointValueView, now: number): EndpointTrustSummary {
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
    firstProbeAt: "observations" in s ? firstProbeAt(rb, s, now) : s.firstProbeAt,
    lastPaidAt: r.evidence.lastPaidAt,
    free,
    needs: { probes: v.min_probes, spanDays: v.min_span_days, paidWithinDays: v.paid_within_days },
    value,
  };
}

const ENDPOINT_COLUMNS = `"id", "method"::text AS "method", "path", "trustPath", "payable"`;

async function endpointsOf(client: Client, listingId: string) {
  return rows<EndpointRow>(client, `SELECT ${ENDPOINT_COLUMNS} FROM "endpoints" WHERE "listingId" = $1 ORDER BY "position"`, listingId);
}

/** endpointsOf for many listings in one statement, each listing's in its order. */
async function endpointsOfMany(client: Client, listingIds: readonly string[]) {
  if (listingIds.length === 0) return [];
  return rows<EndpointRow & { listingId: string }>(
    client,
    `SELECT "listingId", ${ENDPOINT_COLUMNS} FROM "endpoints"
     WHERE "listingId" = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) ORDER BY "listingId", "position"`,
    JSON.stringify([...listingIds]),
  );
}

const instantOf = (now: Date | string | number | undefined) => (now === undefined ? Date.now() : new Date(now).getTime());

export interface TrustReadOptions {
  now?: Date | string | number;
  /** Default when `now` is not given; without them every endpoint is scored here. */
  stored?: boolean;
}

/** By (method, path), and subjects only of endpoints without one. */
async function gradesAndSubjects(client: Client, listingId: string, endpoints: EndpointRow[], stored: boolean, now: number) {
  const grades = new Map((stored ? await readLatestGrades(client, [listingId]) : []).map((g) => [keyOf(g), g]));
  const subjects = endpoints.some((e) => !grades.has(endpointKeyOf(e))) ? await readTrustSubjects(client, listingId, { now }) : [];
  return { grades, subjects };
}

export async function readListingTrust(client: Client, listingId: string, options: TrustReadOptions = {}): Promise<EndpointTrustSummary[]> {
  const now = instantOf(options.now);
  const rb = rubric();
  const live = options.now === undefined;
  const prices = await readListingPrices(client, listingId);
  const endpoints: EndpointRow[] = prices.endpoints;
  const [values, { grades, subjects }] = await Promise.all([
    readListingValueInputs(client, rb, listingId, now, { live, prices }),
    gradesAndSubjects(client, listingId, endpoints, options.stored ?? live, now),
  ]);
  return endpoints.flatMap((e) => {
    const input = values.get(e.id);
    const g = grades.get(endpointKeyOf(e));
    if (g) {
      const value = input ? valueMetrics(rb, input) : null;
      return [summary(rb, gradedOf(g, e.id), e, { firstProbeAt: g.detail.firstProbeAt }, valueView(rb, { value }, input), now)];
    }
    const s = subjects.find((x) => x.endpointId === e.id);
    if (!s) return [];
    const r = scoreSubject(rb, s, { now, seed: PAGE_SEED, band: true, value: input });
    return [summary(rb, r, e, s, valueView(rb, r, input), now)];
  });
}

/**
 * With the band, checks, gates, recent observations, daily history and what to fix first; null when
 * not the listing's. A stored grade that carries its scoring's parts is shown as stored, reading only
 * the latest observations (a bounded read whatever the history); otherwise the endpoint is scored now.
 */
export async function readEndpointTrust(
  client: Client,
  listingId: string,
  endpointId: string,
  options: TrustReadOptions & { days?: number; recent?: number; values?: Map<string, EndpointValueInput>; grades?: StoredGrade[] } = {},
): Promise<EndpointTrustDetail | null> {
  const now = instantOf(options.now);
  const days = options.days ?? HISTORY_DAYS;
  const recentCount = options.recent ?? RECENT_OBSERVATIONS;
  const live = options.now === undefined;
  const useStored = options.stored ?? live;
  const [endpoints, grades] = await Promise.all([endpointsOf(client, listingId), useStored ? (options.grades ?? readLatestGrades(client, [listingId])) : Promise.resolve([])]);
  const e = endpoints.find((x) => x.id === endpointId);
  if (!e) return null;
  const rb = rubric();
  const byId = new Map(rb.file.checks.map((c) => [c.id, c]));
  const stored = grades.find((g) => g.listingId === listingId && keyOf(g) === endpointKeyOf(e)) ?? null;
  const values = options.values ?? (await readListingValueInputs(client, rb, listingId, now, { live }));
  const input = values.get(endpointId);

  let scored: { graded: Graded; parts: ScoredParts; value: { value: ValueMetrics | null }; first: TrustSubject | { firstProbeAt: string | null }; observed: Observation[]; head: Pick<EndpointTrustDetail, "rubric" | "reading" | "now" | "seed" | "uncappedScore"> };
  if (stored?.detail.scored) {
    const observed = await readRecentObservations(client, listingId, e, recentCount, now);
    scored = {
      graded: gradedOf(stored, endpointId),
      parts: scoredPartsOf(stored.detail.scored),
      value: { value: input ? valueMetrics(rb, input) : null },
      first: { firstProbeAt: stored.detail.firstProbeAt },
      observed,
      head: { rubric: stored.rubricRef, reading: stored.readingRef, now: stored.scoredAt, seed: stored.seed, uncappedScore: stored.detail.uncappedScore },
    };
  } else {
    const subject = (await readTrustSubjects(client, listingId, { now })).find((s) => s.endpointId === endpointId);
    if (!subject) return null;
    // Grade and band are the stored one's when there is one.
    const r = scoreSubject(rb, subject, { now, seed: PAGE_SEED, band: !stored, value: input });
    scored = {
      graded: stored ? gradedOf(stored, endpointId) : r,
      parts: r,
      value: r,
      first: stored ? { firstProbeAt: stored.detail.firstProbeAt } : subject,
      // Not the subject's rows: those its hour rollups summarise are not among them.
      observed: await readRecentObservations(client, listingId, e, recentCount, now),
      head: { rubric: r.rubric, reading: r.reading, now: stored ? stored.scoredAt : r.now, seed: r.seed, uncappedScore: stored ? stored.detail.uncappedScore : r.uncappedScore },
    };
  }
  const { parts } = scored;
  const history = stored ? await storedHistory(client, listingId, e, days, now) : await scoredHistory(client, rb, listingId, endpointId, days, now);

  const gateOf = new Map<string, string>();
  for (const g of parts.gates) if (g.fired) gateOf.set(g.check, g.flag);
  const fixFirst = parts.checks
    .filter((c) => c.status === "measured" && c.rate !== null && (c.rate < 1 || gateOf.has(c.id)) && (c.facts.fails > 0 || c.metric === "curve"))
    .map((c) => ({ id: c.id, title: byId.get(c.id)?.title ?? c.id, dimension: c.dimension, weight: c.weight, rate: c.rate!, lost: Math.round(c.weight * (1 - c.rate!) * 10) / 10, gate: gateOf.get(c.id) ?? null }))
    .filter((c) => c.lost > 0 || c.gate)
    // A fired gate caps the score whatever the weights: those first.
    .sort((a, b) => Number(!!b.gate) - Number(!!a.gate) || b.lost - a.lost || a.id.localeCompare(b.id));

  const recent = scored.observed.map((o) => ({ check: o.check, kind: o.kind, outcome: o.outcome, value: o.value, observedAt: o.observedAt, vantage: o.vantage, revision: o.revision, receipt: o.receipt, title: byId.get(o.check)?.title ?? o.check }));

  return {
    ...summary(rb, scored.graded, e, scored.first, valueView(rb, scored.value, input), now),
    ...scored.head,
    dimensions: parts.dimensions,
    checks: parts.checks.map((c) => {
      const rc = byId.get(c.id);
      return { ...c, title: rc?.title ?? c.id, measure: rc?.measure ?? "", validity: rc?.validity ?? "" };
    }),
    gatesFired: parts.gates.filter((g) => g.fired),
    gates: parts.gates,
    recent,
    history,
    fixFirst,
  };
}

/** Each UTC day's last stored grade, oldest first; a missing day is a gap. */
async function storedHistory(client: Client, listingId: string, e: EndpointRow, days: number, now: number): Promise<HistoryPoint[]> {
  const from = new Date(now - days * DAY_MS);
  const points = await readDailyPoints(client, listingId, new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate())));
  const byDay = new Map(points.filter((p) => keyOf(p) === endpointKeyOf(e)).map((p) => [p.day, p]));
  const history: HistoryPoint[] = [];
  for (let d = days; d >= 0; d--) {
    const at = new Date(now - d * DAY_MS).toISOString();
    const p = byDay.get(at.slice(0, 10));
    history.push(p ? { at: p.at, score: p.score, grade: p.grade, verdict: p.verdict as HistoryPoint["verdict"] } : { at, score: null, grade: null, verdict: "insufficient_evidence" });
  }
  return history;
}

/** Without stored grades: scored at past instants, so from every row. */
async function scoredHistory(client: Client, rb: TrustRubric, listingId: string, endpointId: string, days: number, now: number): Promise<HistoryPoint[]> {
  const rawSubject = (await readTrustSubjects(client, listingId, { raw: true })).find((s) => s.endpointId === endpointId);
  if (!rawSubject) return [];
  const history: HistoryPoint[] = [];
  for (let d = days; d >= 0; d--) {
    const at = now - d * DAY_MS;
    const h = scoreSubject(rb, rawSubject, { now: at, band: false });
    history.push({ at: new Date(at).toISOString(), score: h.score, grade: h.grade, verdict: h.verdict });
  }
  return history;
}

/** For tiles and select: scored now without band or value metrics, read as the least reassuring endpoint's reading. */
export async function readTrustGlances(client: Client, listingIds: readonly string[], options: TrustReadOptions = {}): Promise<{ listings: Map<string, TrustReading>; endpoints: Map<string, TrustReading> }> {
  const now = instantOf(options.now);
  const rb = rubric();
  const listings = new Map<string, TrustReading>();
  const byEndpoint = new Map<string, TrustReading>();
  const ids = [...new Set(listingIds)];
  const useStored = options.stored ?? options.now === undefined;
  // A page's listings in two statements, then the live readings of those with an ungraded endpoint together: a
  // read per listing made a catalog page of 48 ungraded tiles send 240 statements (docs/BENCHMARKS.md "bench:load").
  const [allGrades, allEndpoints] = await Promise.all([useStored ? readLatestGrades(client, ids) : [], endpointsOfMany(client, ids)]);
  const gradesBy = new Map(ids.map((id) => [id, new Map<string, StoredGrade>()]));
  for (const g of allGrades) gradesBy.get(g.listingId)?.set(keyOf(g), g);
  const endpointsBy = new Map(ids.map((id) => [id, [] as EndpointRow[]]));
  for (const { listingId, ...e } of allEndpoints) endpointsBy.get(listingId)?.push(e);
  const live = ids.filter((id) => endpointsBy.get(id)!.some((e) => !gradesBy.get(id)!.has(endpointKeyOf(e))));
  const subjectsOf = await readTrustSubjectsOfMany(client, live, { now });
  for (const listingId of ids) {
    const endpoints = endpointsBy.get(listingId)!;
    const grades = gradesBy.get(listingId)!;
    const subjects = subjectsOf.get(listingId) ?? [];
    const summaries = endpoints.flatMap((e) => {
      const g = grades.get(endpointKeyOf(e));
      if (g) return [summary(rb, gradedOf(g, e.id), e, { firstProbeAt: g.detail.firstProbeAt }, valueView(rb, { value: null }, undefined), now)];
      const s = subjects.find((x) => x.endpointId === e.id);
      if (!s) return [];
      // The band's draws cost ~ms per endpoint and a page has many tiles: the score stands in.
      const r = scoreSubject(rb, s, { now, band: false });
      return [summary(rb, r, e, s, valueView(rb, r, undefined), now)];
    });
    for (const x of summaries) byEndpoint.set(x.endpointId, trustReading(x, now));
    const glance = listingGlance(summaries, now);
    if (glance) listings.set(listingId, glance);
  }
  return { listings, endpoints: byEndpoint };
}

/** Read by the caller's statement, for readPickReadings. */
export interface PickEvidenceRow {
  listingId: string;
  endpoint: EndpointRow;
  grade: Pick<StoredGrade, "score" | "grade" | "band" | "confidence" | "verdict" | "flags" | "detail"> | null;
  /** Without a stored grade: any observation or revision. */
  observed: boolean;
  listingCreatedAt: string;
}

/** Selection's pool (docs/SELECTION.md "Speed"): from joined stored grades; only observed, ungraded endpoints are scored live. */
export async function readPickReadings(client: Client, picks: readonly PickEvidenceRow[], options: { now?: number } = {}): Promise<Map<string, TrustReading>> {
  const now = options.now ?? Date.now();
  const rb = rubric();
  const out = new Map<string, TrustReading>();
  // The observed, ungraded picks' histories in one read.
  const subjectsOf = await readTrustSubjectsOfMany(client, picks.filter((p) => !p.grade && p.observed).map((p) => p.listingId), { now });
  for (const p of picks) {
    const e = p.endpoint;
    if (p.grade) {
      const g = { ...p.grade, listingId: p.listingId, endpointId: e.id, method: e.method, path: e.trustPath } as StoredGrade;
      out.set(e.id, trustReading(summary(rb, gradedOf(g, e.id), e, { firstProbeAt: g.detail.firstProbeAt }, valueView(rb, { value: null }, undefined), now), now));
      continue;
    }
    const s = p.observed
      ? subjectsOf.get(p.listingId)?.find((x) => x.endpointId === e.id)
      : { endpointId: e.id, observations: [], revisions: [{ revision: 1, startedAt: p.listingCreatedAt, changes: [], note: null }] };
    if (!s) continue;
    const r = scoreSubject(rb, s, { now, band: false });
    out.set(e.id, trustReading(summary(rb, r, e, s, valueView(rb, r, undefined), now), now));
  }
  return out;
}

export async function readListingTrustDetails(client: Client, listingId: string, options: TrustReadOptions = {}): Promise<EndpointTrustDetail[]> {
  const endpoints = await endpointsOf(client, listingId);
  const now = instantOf(options.now);
  const stored = options.stored ?? options.now === undefined;
  const values = await readListingValueInputs(client, rubric(), listingId, now, { live: options.now === undefined });
  const grades = stored ? await readLatestGrades(client, [listingId]) : [];
  const out: EndpointTrustDetail[] = [];
  for (const e of endpoints) {
    const d = await readEndpointTrust(client, listingId, e.id, { now, recent: 10, values, stored, grades });
    if (d) out.push(d);
  }
  return out;
}

export async function getListingTrustDetails(listingId: string): Promise<EndpointTrustDetail[]> {
  return readListingTrustDetails(await db(), listingId);
}

