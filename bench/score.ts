/**
 * bench:score — how fast readiness scoring is next to just parsing the listings it scores.
 *
 * Generates N varied listing documents (seeded; 0–12 endpoints, schemas, missing fields, duplicates)
 * with matching evidence, serialises the listings to JSON strings, then in the same process and for
 * several rounds measures (a) JSON.parse of every string and (b) scoreReadiness of every parsed
 * document with its evidence. Reports medians. Target: scoring ≤ 2× parsing.
 *
 *   npm run bench:score [-- --count 100000 --rounds 7]
 *
 * The last line is always `RESULT score_parse_ratio <ratio>`.
 */
import { performance } from "node:perf_hooks";
import { generateListingCorpus } from "@/test/readiness-corpus";
import { scoreReadiness } from "../lib/scoring/readiness/engine";
import { CURRENT_RUBRIC } from "../lib/scoring/readiness/rubric";
import type { ListingDocument } from "@/lib/listing-document/document";

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
const bytes = strings.reduce((a, s) => a + s.length, 0);
const endpoints = corpus.reduce((a, c) => a + c.listing.endpoints.length, 0);
corpus.length = 0; // only the strings and the evidence stay: the parsed documents are what we score
console.log(`generated ${COUNT.toLocaleString("en-US")} listings in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${mb(bytes)} of JSON, ${(bytes / COUNT).toFixed(0)} B and ${(endpoints / COUNT).toFixed(1)} endpoints per listing on average`);

let checksum = 0; // consumed below, so neither loop can be optimised away
function parseAll(): { ms: number; docs: ListingDocument[] } {
  const docs: ListingDocument[] = new Array(strings.length);
  const start = performance.now();
  for (let i = 0; i < strings.length; i++) docs[i] = JSON.parse(strings[i]);
  return { ms: performance.now() - start, docs };
}
function scoreAll(docs: ListingDocument[]): number {
  const start = performance.now();
  for (let i = 0; i < docs.length; i++) checksum += scoreReadiness(docs[i], evidence[i], CURRENT_RUBRIC, { now: NOW }).total;
  return performance.now() - start;
}

// One warm-up round lets the JIT settle on both paths before anything is timed.
scoreAll(parseAll().docs.slice(0, Math.min(20_000, COUNT)));

const parseMs: number[] = [];
const scoreMs: number[] = [];
let heapPeak = 0;
let rssPeak = 0;
for (let r = 0; r < ROUNDS; r++) {
  const p = parseAll();
  const s = scoreAll(p.docs);
  parseMs.push(p.ms);
  scoreMs.push(s);
  const m = process.memoryUsage();
  heapPeak = Math.max(heapPeak, m.heapUsed);
  rssPeak = Math.max(rssPeak, m.rss);
  console.log(`round ${r + 1}: parse ${p.ms.toFixed(0)} ms, score ${s.toFixed(0)} ms, ratio ${(s / p.ms).toFixed(3)}`);
}

const parse = median(parseMs);
const score = median(scoreMs);
const ratio = score / parse;
console.log("");
console.log(`listings      ${COUNT.toLocaleString("en-US")} × ${ROUNDS} rounds (medians)`);
console.log(`JSON.parse    ${parse.toFixed(0)} ms  ${rate(COUNT, parse)}`);
console.log(`scoreReadiness ${score.toFixed(0)} ms  ${rate(COUNT, score)}  (${((score * 1000) / COUNT).toFixed(2)} µs per listing)`);
console.log(`memory        heap used ≤ ${mb(heapPeak)}, RSS ≤ ${mb(rssPeak)}`);
console.log(`checksum      ${checksum}`);
console.log(`target        scoring ≤ 2× parsing: ${ratio <= 2 ? "met" : "NOT met"}`);
console.log(`RESULT score_parse_ratio ${ratio.toFixed(3)}`);
