/**
 * bench:history — page cost against a listing's age (issue #33 "Benchmark", docs/TRUST.md "Bounded
 * history"). Three listings of one endpoint with 1, 30 and 90 days of history at the sweep's real rate
 * (16 free observations every 5 minutes, a paid sample a day, outages and bad calls: test/trust-histories.ts),
 * stored as the writer leaves them: rows, hour and day rollups, rows past the raw window archived
 * (lib/trust/observe/rollups.ts archiveObservations), then graded once by the sweep (lib/attest/sweep.ts
 * gradeListing). The pages' views (lib/catalog/trust.ts): the listing's readListingTrust and the
 * endpoint's readEndpointTrust as a page calls them, on the stored grade; beside them, not in the
 * RESULT, the listing scored live as if never graded (its costliest bounded path). 20 sequential and
 * 20 concurrent views each.
 *
 *   npm run bench:history                  (PGlite; TEST_DATABASE_URL=… for a server)
 */
import { performance } from "node:perf_hooks";
import { writeListing } from "@/lib/listings/save";
import { rows, type Client } from "@/lib/sql";
import { gradeListing } from "@/lib/attest/sweep";
import { signerFor } from "@/lib/badges/keys";
import { readEndpointTrust, readListingTrust } from "@/lib/catalog/trust";
import { loadRubric } from "@/lib/trust/engine";
import { hourRollups, mergeRollups, dayOf, ROLLUP_DAY_MS } from "@/lib/trust/engine/rollup";
import { archiveObservations } from "@/lib/trust/observe/rollups";
import { fixedKeyring } from "@/test/badges";
import { createTestDatabase } from "@/test/db";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint, fullListing } from "@/test/readiness";
import { simulateHistory } from "@/test/trust-histories";
import { printLoadAverage } from "./machine";

const rubric = loadRubric();
const signer = signerFor(fixedKeyring());
const VIEWS = 20;
const now = Date.now();
let t: Awaited<ReturnType<typeof createTestDatabase>>;
let client: Client;

async function main() {
t = await createTestDatabase();
client = t.prisma;
console.log(`bench:history on ${process.env.TEST_DATABASE_URL ? "server PostgreSQL" : "PGlite"}; ${rubric.reading!.ref}`);
await run();
}

async function seed(days: number): Promise<{ listingId: string; endpointId: string; rows: number; live: number }> {
  const { org } = await seedOwner(t.prisma);
  const ep = fullEndpoint({ method: "POST", path: "/v1/x", pricing: { label: "$0.01", usd: "0.01", machine: { amount: "10000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", decimals: 6 }, mode: "fixed", dynamic: null } });
  const { id } = await writeListing(fullListing({ slug: `history-${days}d-${Math.random().toString(36).slice(2, 6)}`, baseUrl: "https://api.example.com", endpoints: [ep] }), { organizationId: org.id, publicationState: "published" });
  const [e] = await rows<{ id: string }>(client, `SELECT "id" FROM "endpoints" WHERE "listingId" = $1`, id);
  const s = simulateHistory(rubric, { endpointId: e.id, now: new Date(now).toISOString(), days, freeEveryHours: 5 / 60, paidEveryDays: 1, outage: 0.02, badCall: 0.05, seed: days });
  const obs = s.observations.filter((o) => Date.parse(o.observedAt) <= now);
  for (let i = 0; i < obs.length; i += 5000) {
    const batch = obs.slice(i, i + 5000).map((o, j) => ({ id: `b${days}-${i + j}`, listingId: id, endpointId: e.id, method: "POST", path: "/v1/x", check: o.check, kind: o.kind, outcome: o.outcome, value: o.value, observedAt: o.observedAt, vantage: o.vantage, revision: o.revision, receipt: o.receipt, source: o.kind === "paid" ? "canary" : "monitor", sourceId: `${days}d-${o.kind}-${o.observedAt}` }));
    await rows(
      client,
      `INSERT INTO "trust_observations" ("id", "listingId", "endpointId", "method", "path", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt", "source", "sourceId")
       SELECT x."id", x."listingId", x."endpointId", x."method", x."path", x."check", x."kind", x."outcome", x."value", (x."observedAt"::timestamptz AT TIME ZONE 'UTC'), x."vantage", x."revision", x."receipt", x."source", x."sourceId"
       FROM jsonb_to_recordset($1::jsonb) AS x("id" text, "listingId" text, "endpointId" text, "method" text, "path" text, "check" text, "kind" text, "outcome" text, "value" float8, "observedAt" text, "vantage" text, "revision" int, "receipt" jsonb, "source" text, "sourceId" text)
       RETURNING 1 AS "ok"`,
      JSON.stringify(batch),
    );
  }
  // The rollups the writer keeps (lib/trust/observe/rollups.ts): every hour, and every day from its hours.
  const hours = hourRollups(rubric, obs);
  const byDay = new Map<number, typeof hours extends Map<number, infer B> ? B[] : never>();
  for (const [h, b] of hours) (byDay.get(dayOf(h)) ?? byDay.set(dayOf(h), []).get(dayOf(h))!).push(b);
  const buckets = [...[...hours.values()].map((b) => ({ grain: "hour", b })), ...[...byDay].map(([d, list]) => ({ grain: "day", b: mergeRollups(list, { start: d, end: d + ROLLUP_DAY_MS }) }))];
  for (let i = 0; i < buckets.length; i += 500) {
    const batch = buckets.slice(i, i + 500).map(({ grain, b }) => ({ grain, start: new Date(b.start).toISOString(), end: new Date(b.end).toISOString(), checks: b.checks }));
    await rows(
      client,
      `INSERT INTO "trust_observation_rollups" ("listingId", "method", "path", "grain", "start", "end", "checks", "observations")
       SELECT $2, 'POST', '/v1/x', x."grain", (x."start"::timestamptz AT TIME ZONE 'UTC'), (x."end"::timestamptz AT TIME ZONE 'UTC'), x."checks", 0
       FROM jsonb_to_recordset($1::jsonb) AS x("grain" text, "start" text, "end" text, "checks" jsonb) RETURNING 1 AS "ok"`,
      JSON.stringify(batch),
      id,
    );
  }
  await rows(client, `INSERT INTO "trust_rollup_coverage" ("listingId", "method", "path") VALUES ($1, 'POST', '/v1/x') RETURNING 1 AS "ok"`, id);
  for (let got = -1; got !== 0; ) got = await archiveObservations(client, rubric, { limit: 20_000 });
  const g0 = performance.now();
  const graded = await gradeListing(client, id, { now: new Date(now), signer, rubric });
  if (graded.written !== 1) throw new Error(`${days} d: the sweep wrote ${graded.written} grades, expected 1`);
  console.log(`${days} d: graded by the sweep in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
  const [live] = await rows<{ n: number }>(client, `SELECT count(*)::int AS "n" FROM "trust_observations" WHERE "listingId" = $1`, id);
  return { listingId: id, endpointId: e.id, rows: obs.length, live: live.n };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}
async function views(fn: () => Promise<unknown>) {
  await fn(); // warm: the rubric, the peers cache, prepared plans
  const seq: number[] = [];
  for (let i = 0; i < VIEWS; i++) seq.push(await timed(fn));
  const conc = await Promise.all(Array.from({ length: VIEWS }, () => timed(fn)));
  return { seq: { p50: pct(seq, 50), p95: pct(seq, 95) }, conc: { p50: pct(conc, 50), p95: pct(conc, 95) } };
}

async function run() {
type Views = Awaited<ReturnType<typeof views>>;
const figures = new Map<number, { listing: Views; endpoint: Views; live: Views }>();
for (const days of [1, 30, 90]) {
  const t0 = performance.now();
  const s = await seed(days);
  console.log(`${days} d: ${s.rows} observations (${s.live} live, ${s.rows - s.live} archived), seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
const listings = await rows<{ id: string; slug: string }>(client, `SELECT "id", "slug" FROM "listings" WHERE "slug" LIKE 'history-%' ORDER BY "createdAt"`);
const f = (x: { p50: number; p95: number }) => `p50 ${x.p50.toFixed(1)} ms, p95 ${x.p95.toFixed(1)} ms`;
for (const [i, days] of [1, 30, 90].entries()) {
  const id = listings[i].id;
  const [e] = await rows<{ id: string }>(client, `SELECT "id" FROM "endpoints" WHERE "listingId" = $1`, id);
  const listing = await views(() => readListingTrust(client, id));
  const endpoint = await views(() => readEndpointTrust(client, id, e.id));
  const live = await views(() => readListingTrust(client, id, { stored: false }));
  figures.set(days, { listing, endpoint, live });
  console.log(`${String(days).padStart(2)} d  listing  sequential ${f(listing.seq)}; concurrent ${f(listing.conc)}`);
  console.log(`${String(days).padStart(2)} d  endpoint sequential ${f(endpoint.seq)}; concurrent ${f(endpoint.conc)}`);
  console.log(`${String(days).padStart(2)} d  listing scored live, not in the RESULT: sequential ${f(live.seq)}; concurrent ${f(live.conc)}`);
}
const one = figures.get(1)!;
const ninety = figures.get(90)!;
const ratios = (["listing", "endpoint"] as const).flatMap((page) => (["seq", "conc"] as const).map((mode) => ({ what: `${page} ${mode} p50`, r: ninety[page][mode].p50 / one[page][mode].p50 })));
for (const x of ratios) console.log(`90 d / 1 d ${x.what}: ${x.r.toFixed(2)}×`);
console.log(`90 d / 1 d listing scored live (not in the RESULT): sequential ${(ninety.live.seq.p50 / one.live.seq.p50).toFixed(2)}×, concurrent ${(ninety.live.conc.p50 / one.live.conc.p50).toFixed(2)}×`);
const worst = Math.max(...ratios.map((x) => x.r));
await t.close();
printLoadAverage();
console.log(`RESULT history_90d_over_1d ${worst.toFixed(2)} x`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
