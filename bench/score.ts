/**
 * bench:score — how fast readiness scoring is next to just parsing the listings it scores.
 *
 * Generates N varied listing documents (seeded; 0–12 endpoints, schemas, missing fields, duplicates)
 * with matching evidence, serialises the listings to JSON strings, then in the same process and for
 * several rounds measures (a) JSON.parse of every string, (b) scoreReadiness of every parsed document
 * with its evidence under the current rubric (CURRENT_RUBRIC, whose D3 reads each endpoint's docs
 * page from format-2 evidence), and (c) the same under readiness/1.0.0 with format-1 evidence, side
 * by side. Reports medians. Target: scoring under the current rubric ≤ 0.5× parsing (it was ≤ 2×).
 *
 *   npm run bench:score [-- --count 100000 --rounds 7]
 *
 * The last line is always `RESULT score_parse_ratio <ratio>`.
 */
import { performance } from "node:perf_hooks";
import { generateListingCorpus } from "@/test/readiness-corpus";
import { scoreReadiness } from "../lib/scoring/readiness/engine";
import { CURRENT_RUBRIC, loadRubric, rubricVersionString } from "../lib/scoring/readiness/rubric";
import type { ListingDocument } from "@/lib/listing-document/document";
import type { EndpointDocsEvidence } from "@/lib/evidence";
import type { ReadinessEvidence } from "@/lib/scoring/readiness/types";
import { printLoadAverage } from "./machine";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

const COUNT = arg("count", 100_000);
const ROUNDS = arg("rounds", 7);
const SEED = 20261202;
const NOW = new Date("2026-12-02T12:00:00Z");

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString("en-US")}/s`;

const t0 = performance.now();
const corpus = generateListingCorpus(SEED, COUNT);
const strings = corpus.map((c) => JSON.stringify(c.listing));
const evidence = corpus.map((c) => c.evidence);
const evidenceV2 = corpus.map((c, i) => withEndpointDocs(c.listing, c.evidence, i));
const PREVIOUS_RUBRIC = loadRubric("1.0.0");
const bytes = strings.reduce((a, s) => a + s.length, 0);
const endpoints = corpus.reduce((a, c) => a + c.listing.endpoints.length, 0);
corpus.length = 0; // only the strings and the evidence stay: the parsed documents are what we score
console.log(`generated ${COUNT.toLocaleString("en-US")} listings in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${mb(bytes)} of JSON, ${(bytes / COUNT).toFixed(0)} B and ${(endpoints / COUNT).toFixed(1)} endpoints per listing on average`);

/**
 * Format-2 evidence for readiness/1.1.0: what a probe would record on each endpoint's docs page. The
 * corpus generator's random stream is pinned by other tests, so the pages are derived from the index:
 * one endpoint in five has no docs page, the rest show the path, most of their schemas' property names
 * and, two in three, an example; D3's judging path runs for every endpoint with a docsUrl.
 */
function withEndpointDocs(listing: ListingDocument, ev: ReadinessEvidence, i: number): ReadinessEvidence {
  const endpointDocs: EndpointDocsEvidence[] = listing.endpoints.map((e, k) => {
    const names = [e.requestSchema, e.responseSchema].flatMap((s) => Object.keys((s as { properties?: object } | null)?.properties ?? {}));
    const present = e.docsUrl != null && (i + k) % 5 !== 0;
    return {
      method: e.method,
      path: e.path,
      url: e.docsUrl ?? null,
      ok: present,
      status: present ? 200 : e.docsUrl ? 404 : null,
      contentType: present ? "text/html" : null,
      truncated: false,
      pathShown: present,
      names: present ? names.slice(0, Math.max(1, names.length - ((i + k) % 2))) : [],
      example: present && (i + k) % 3 !== 0,
    };
  });
  return { ...ev, probe: { ...ev.probe, version: 2, endpointDocs } };
}

let checksum = 0; // consumed below, so neither loop can be optimised away
function parseAll(): { ms: number; docs: ListingDocument[] } {
  const docs: ListingDocument[] = new Array(strings.length);
  const start = performance.now();
  for (let i = 0; i < strings.length; i++) docs[i] = JSON.parse(strings[i]);
  return { ms: performance.now() - start, docs };
}
function scoreAll(docs: ListingDocument[], rubric = CURRENT_RUBRIC, ev = evidenceV2): number {
  const start = performance.now();
  for (let i = 0; i < docs.length; i++) checksum += scoreReadiness(docs[i], ev[i], rubric, { now: NOW }).total;
  return performance.now() - start;
}
const scorePrevious = (docs: ListingDocument[]) => scoreAll(docs, PREVIOUS_RUBRIC, evidence);

// One warm-up round lets the JIT settle on every path before anything is timed.
const warm = parseAll().docs.slice(0, Math.min(20_000, COUNT));
scoreAll(warm);
scorePrevious(warm);

const parseMs: number[] = [];
const scoreMs: number[] = [];
const previousMs: number[] = [];
let heapPeak = 0;
let rssPeak = 0;
for (let r = 0; r < ROUNDS; r++) {
  const p = parseAll();
  // Alternate which rubric goes first, so neither always runs on a freshly collected heap.
  let s: number, o: number;
  if (r % 2 === 0) { s = scoreAll(p.docs); o = scorePrevious(p.docs); }
  else { o = scorePrevious(p.docs); s = scoreAll(p.docs); }
  parseMs.push(p.ms);
  scoreMs.push(s);
  previousMs.push(o);
  const m = process.memoryUsage();
  heapPeak = Math.max(heapPeak, m.heapUsed);
  rssPeak = Math.max(rssPeak, m.rss);
  console.log(`round ${r + 1}: parse ${p.ms.toFixed(0)} ms, score ${s.toFixed(0)} ms (1.0.0: ${o.toFixed(0)} ms), ratio ${(s / p.ms).toFixed(3)}`);
}

const parse = median(parseMs);
const score = median(scoreMs);
const previous = median(previousMs);
const ratio = score / parse;
console.log("");
console.log(`listings      ${COUNT.toLocaleString("en-US")} × ${ROUNDS} rounds (medians)`);
console.log(`JSON.parse    ${parse.toFixed(0)} ms  ${rate(COUNT, parse)}`);
console.log(`scoreReadiness ${score.toFixed(0)} ms  ${rate(COUNT, score)}  (${((score * 1000) / COUNT).toFixed(2)} µs per listing, ${rubricVersionString(CURRENT_RUBRIC)}, format-2 evidence)`);
console.log(`  previous    ${previous.toFixed(0)} ms  ${rate(COUNT, previous)}  (${rubricVersionString(PREVIOUS_RUBRIC)}, format-1 evidence; current ÷ previous ${(score / previous).toFixed(3)})`);
console.log(`memory        heap used ≤ ${mb(heapPeak)}, RSS ≤ ${mb(rssPeak)}`);
console.log(`checksum      ${checksum}`);
console.log(`target        scoring ≤ 0.5× parsing: ${ratio <= 0.5 ? "met" : "NOT met"}`);
printLoadAverage();
console.log(`RESULT score_parse_ratio ${ratio.toFixed(3)}`);
