/**
 * npm run bench:badge — badge rendering and signing throughput, with shields' badge-maker as the peer.
 *
 *  1. render: 100,000 readiness badges (scores 0–100 × four styles) with our renderer, and the same
 *     label/message/colour with badge-maker's makeBadge, interleaved over 3 rounds (median reported).
 *  2. render+sign: 100,000 × issueReadinessBadge (statement → canonical JSON → Ed25519 DSSE → SVG
 *     with the envelope in <metadata> → ETag): the route's whole cold path.
 *  3. http: the badge route does not exist yet (wired later), so a stand-in: a node:http server on
 *     127.0.0.1 in a child process (one core) calling the same path behind BadgeCache + ETag, hit by a
 *     bounded keep-alive client loop (20,000 requests, 32 in flight) from this process. Two runs: warm
 *     cache with full 200 bodies, and conditional requests answered 304.
 *
 * The last line is `RESULT badge_render_ratio <ours/peer>`.
 */
import { fork } from "node:child_process";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { makeBadge } from "badge-maker";
import { BadgeCache, badgeCacheKey, ifNoneMatchHits, issueReadinessBadge, type IssueBadgeInput } from "../lib/badges/issue";
import { BAND_COLORS } from "../lib/badges/colors";
import { BADGE_STYLES, DEFAULT_LABEL, readinessValue, renderReadinessBadge, type BadgeStyle } from "../lib/badges/render";
import { parseBadgeQuery } from "../lib/badges/query";
import { DEFAULT_ISSUE_WINDOW_SECONDS, bandFor, type BadgeStatement } from "../lib/badges/statement";
import { fixedKeyring } from "@/test/badges";
import { publicKeySet } from "../lib/badges/keys";
import { verifyBadge } from "../lib/badges/verify";
import { printLoadAverage } from "./machine";

const N = 100_000;
const HTTP_REQUESTS = 20_000;
const HTTP_CONCURRENCY = 32;
const NOW = new Date("2026-12-02T10:17:23Z");
const keyring = fixedKeyring();

function statementFor(i: number): BadgeStatement {
  const score = i % 101;
  return {
    _type: "https://tollgate.dev/badge-statement/v1",
    listing: { id: `lst_${i % 1000}`, slug: `listing-${i % 1000}`, url: `https://tollgate.dev/catalog/listing-${i % 1000}` },
    result: { id: `res_${i}`, score, band: bandFor(score), rubricVersion: "readiness/1.0.0", analysedAt: "2026-12-01T08:00:00Z" },
    issuedAt: "2026-12-02T10:00:00Z",
    expiresAt: "2026-12-09T10:00:00Z",
  };
}

function inputFor(i: number): IssueBadgeInput {
  const s = statementFor(i);
  return {
    listing: { ...s.listing, published: true },
    result: { id: s.result.id, listingId: s.listing.id, score: s.result.score, rubricVersion: s.result.rubricVersion, analysedAt: s.result.analysedAt, provisional: false },
    keyring,
    style: BADGE_STYLES[i % 4],
    now: NOW,
  };
}

const rate = (n: number, ms: number) => (n / ms) * 1000;
const fmt = (r: number) => Math.round(r).toLocaleString("en-US");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  console.log(`bench:badge  node ${process.version}  ${os.cpus().length} cpu(s) ${os.cpus()[0]?.model ?? ""}`.trim());

  // Inputs prepared outside the timed loops; both renderers get the same label, message and colour.
  const statements = Array.from({ length: N }, (_, i) => statementFor(i));
  const styles: BadgeStyle[] = statements.map((_, i) => BADGE_STYLES[i % 4]);
  const messages = statements.map(readinessValue);
  const colors = statements.map((s) => BAND_COLORS[s.result.band].background);

  const ours = () => {
    let bytes = 0;
    const t = performance.now();
    for (let i = 0; i < N; i++) bytes += renderReadinessBadge(statements[i], { style: styles[i], link: null }).length;
    return { ms: performance.now() - t, bytes };
  };
  const peer = () => {
    let bytes = 0;
    const t = performance.now();
    for (let i = 0; i < N; i++) bytes += makeBadge({ style: styles[i], label: DEFAULT_LABEL, message: messages[i], color: colors[i] }).length;
    return { ms: performance.now() - t, bytes };
  };

  // Warm both (JIT, width caches), then interleave rounds so neither gets a systematically cooler machine.
  for (let i = 0; i < 5000; i++) {
    renderReadinessBadge(statements[i], { style: styles[i], link: null });
    makeBadge({ style: styles[i], label: DEFAULT_LABEL, message: messages[i], color: colors[i] });
  }
  const oursRates: number[] = [];
  const peerRates: number[] = [];
  let oursBytes = 0;
  let peerBytes = 0;
  for (let round = 0; round < 3; round++) {
    const a = ours();
    const b = peer();
    oursRates.push(rate(N, a.ms));
    peerRates.push(rate(N, b.ms));
    oursBytes = a.bytes;
    peerBytes = b.bytes;
  }
  const oursRate = median(oursRates);
  const peerRate = median(peerRates);
  console.log(`render        ours  ${fmt(oursRate).padStart(9)} badges/s   (rounds: ${oursRates.map(fmt).join(", ")}; mean ${Math.round(oursBytes / N)} B)`);
  console.log(`render        peer  ${fmt(peerRate).padStart(9)} badges/s   (badge-maker makeBadge; rounds: ${peerRates.map(fmt).join(", ")}; mean ${Math.round(peerBytes / N)} B)`);
  console.log(`render        ratio ours/peer ${(oursRate / peerRate).toFixed(2)}`);

  // Render + sign: the cold path of the route, one Ed25519 signature per badge.
  const inputs = Array.from({ length: N }, (_, i) => inputFor(i));
  for (let i = 0; i < 2000; i++) issueReadinessBadge(inputs[i]);
  let signedBytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) signedBytes += issueReadinessBadge(inputs[i]).svg.length;
  const signMs = performance.now() - t0;
  console.log(`render+sign   ours  ${fmt(rate(N, signMs)).padStart(9)} badges/s   (statement + JCS + Ed25519 DSSE + SVG + ETag; mean ${Math.round(signedBytes / N)} B)`);

  // Sanity: what we timed is a badge that verifies.
  const check = await verifyBadge(issueReadinessBadge(inputs[7]).svg, { keys: publicKeySet(keyring), now: NOW });
  if (!check.ok) throw new Error(`benchmark badge does not verify: ${check.reason}`);

  await httpBench();

  printLoadAverage();
  console.log(`RESULT badge_render_ratio ${(oursRate / peerRate).toFixed(2)}`);
}

// ---------------------------------------------------------------------------------------------
// HTTP stand-in for the badge route.

const LISTINGS = 200;

function serve(): void {
  const cache = new BadgeCache();
  const inputs = new Map(Array.from({ length: LISTINGS }, (_, i) => [`listing-${i}`, inputFor(i)]));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const m = /^\/badge\/([a-z0-9-]+)\.svg$/.exec(url.pathname);
    const base = m ? inputs.get(m[1]) : undefined;
    if (!base) return void res.writeHead(404).end();
    const q = parseBadgeQuery(url.searchParams);
    if (!q.ok) return void res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: q.error }));
    const now = Date.now();
    const windowMs = DEFAULT_ISSUE_WINDOW_SECONDS * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const input = { ...base, style: q.style, label: q.label, now: new Date(now) };
    const key = badgeCacheKey(input, windowStart);
    let badge = cache.get(key, now);
    if (!badge) {
      badge = issueReadinessBadge(input);
      cache.set(key, badge, windowStart + windowMs);
    }
    const headers = { etag: badge.etag, "cache-control": badge.cacheControl, "content-type": "image/svg+xml; charset=utf-8", "x-content-type-options": "nosniff" };
    if (ifNoneMatchHits(req.headers["if-none-match"], badge.etag)) return void res.writeHead(304, headers).end();
    res.writeHead(200, { ...headers, "content-length": Buffer.byteLength(badge.svg) }).end(badge.svg);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as AddressInfo).port }));
}

async function httpBench(): Promise<void> {
  const child = fork(process.argv[1], ["--serve"], { execArgv: process.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once("message", (m: { port: number }) => resolve(m.port));
      child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: HTTP_CONCURRENCY });
    const etags = new Map<string, string>();
    const path = (i: number) => `/badge/listing-${i % LISTINGS}.svg?style=${BADGE_STYLES[i % 4]}`;
    const get = (p: string, conditional: boolean) =>
      new Promise<number>((resolve, reject) => {
        const etag = conditional ? etags.get(p) : undefined;
        const req = request({ host: "127.0.0.1", port, path: p, agent, headers: etag ? { "if-none-match": etag } : {} }, (res) => {
          const tag = res.headers.etag;
          if (typeof tag === "string") etags.set(p, tag);
          res.on("data", () => {}).on("end", () => resolve(res.statusCode ?? 0)).on("error", reject);
        });
        req.on("error", reject).end();
      });
    const run = async (n: number, conditional: boolean) => {
      const counts = new Map<number, number>();
      let next = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: HTTP_CONCURRENCY }, async () => {
          while (next < n) {
            const status = await get(path(next++), conditional);
            counts.set(status, (counts.get(status) ?? 0) + 1);
          }
        }),
      );
      return { ms: performance.now() - t, counts };
    };
    // Fill the cache (every listing × style once) and warm the JIT on both sides.
    await run(LISTINGS * 4 * 3, false);
    const warm = await run(HTTP_REQUESTS, false);
    const cond = await run(HTTP_REQUESTS, true);
    const show = (c: Map<number, number>) => [...c].map(([s, n]) => `${s}×${n}`).join(" ");
    console.log(`http (stand-in route, 127.0.0.1, server on 1 core) warm cache, 200s   ${fmt(rate(HTTP_REQUESTS, warm.ms)).padStart(7)} req/s  (${show(warm.counts)}, ${HTTP_CONCURRENCY} in flight, keep-alive)`);
    console.log(`http (stand-in route, 127.0.0.1, server on 1 core) If-None-Match, 304s ${fmt(rate(HTTP_REQUESTS, cond.ms)).padStart(7)} req/s  (${show(cond.counts)})`);
    agent.destroy();
  } finally {
    child.kill();
  }
}

if (process.argv.includes("--serve")) serve();
else
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
