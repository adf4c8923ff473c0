/**
 * bench:discovery — the Bazaar discovery API at catalog scale (docs/DISCOVERY.md, docs/BENCHMARKS.md).
 *
 * In its own schema of a server PostgreSQL (DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test),
 * dropped afterwards: 100,000 listings (95 % published; titles from bench:rank's vocabulary), one x402
 * endpoint each with its discovery_resources row (5,000 payees, two networks, two schemes, half
 * declaring a second extension), 300,000 router_payments over 40 days (a tenth the house's). Then:
 *   - searchDiscoveryResources p50/p95 over 200 queries (two vocabulary words, a third of them with a
 *     network, payTo or scheme filter, a tenth natural-language sentences holding one word of it);
 *   - listDiscoveryResources and the merchant lookup, p50/p95 (reported, no target).
 * Target: search p95 < 50 ms.
 *
 *   npm run bench:discovery [-- --listings 100000 --payments 300000]
 *
 * The last line is always `RESULT discovery_search_p95_ms <ms>`.
 */
import { performance } from "node:perf_hooks";
import { openDatabase, setDatabase, type DatabaseHandle } from "../lib/db";
import { migrate } from "../lib/migrate";
import { listDiscoveryResources, merchantResources, searchDiscoveryResources } from "../lib/catalog/discovery";
import { parseListParams, parseSearchParams } from "../lib/catalog/discovery-params";
import { printLoadAverage } from "./machine";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

const LISTINGS = arg("listings", 100_000);
const PAYMENTS = arg("payments", 300_000);
const URL_ = process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
/** --schema <name>: time an already loaded schema (from --load-only) instead of loading one; kept afterwards. */
const REUSE = process.argv.includes("--schema") ? process.argv[process.argv.indexOf("--schema") + 1] : null;
const SCHEMA = REUSE ?? `bench_discovery_${process.pid}`;
/** --load-only: load, print the schema name and stop without dropping it (for reading query plans). */
const LOAD_ONLY = process.argv.includes("--load-only");
const NOW_SQL = `(now() AT TIME ZONE 'UTC')`;
const WORDS = ["weather", "forecast", "translate", "text", "image", "resize", "geocode", "address", "stock", "quotes", "summarise", "documents", "speech", "audio", "search", "web", "email", "verify", "invoice", "parse", "pdf", "ocr", "sentiment", "news", "crypto", "prices", "maps", "routing", "vision", "embeddings"];
const USDC = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const payee = (i: number) => `0x${(1 + (i % 5000)).toString(16).padStart(40, "0")}`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function load(h: DatabaseHandle): Promise<void> {
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(",")}]`;
  await h.exec(`INSERT INTO "organizations" ("id", "slug", "name") VALUES ('org-bench', 'bench', 'Bench Seller')`);
  await h.exec(`
    INSERT INTO "listings" ("id", "slug", "organizationId", "title", "shortDescription", "category", "baseUrl", "protocols", "networks", "publicationState", "publishedAt", "updatedAt")
    SELECT 'l' || lpad(i::text, 7, '0'), 'listing-' || i, 'org-bench',
           initcap(w[1 + (i * 7) % 30] || ' ' || w[1 + (i * 13) % 30] || CASE WHEN i % 3 = 0 THEN ' ' || w[1 + (i * 17) % 30] ELSE '' END) || ' API ' || i,
           'Pay per call ' || w[1 + (i * 11) % 30] || ' and ' || w[1 + (i * 19) % 30] || ' for agents',
           w[1 + i % 30], 'https://api' || i || '.example.com', ARRAY['x402'], ARRAY['eip155:8453'],
           CASE WHEN i % 20 = 0 THEN 'draft' ELSE 'published' END::"PublicationState", ${NOW_SQL}, ${NOW_SQL}
      FROM generate_series(1, ${LISTINGS}) AS i, (SELECT ${words} AS w) v`);
  await h.exec(`ALTER TABLE "endpoints" DISABLE TRIGGER "endpoints_search"`);
  await h.exec(`
    INSERT INTO "endpoints" ("id", "listingId", "position", "method", "path", "payable", "priceUsd", "priceAmount", "priceAsset", "priceNetwork", "priceDecimals", "priceMode")
    SELECT 'e' || lpad(i::text, 7, '0'), 'l' || lpad(i::text, 7, '0'), 0, 'POST', '/run', true, '0.01', '10000', '${USDC}', 'eip155:8453', 6, 'fixed'
      FROM generate_series(1, ${LISTINGS}) AS i`);
  await h.exec(`ALTER TABLE "endpoints" ENABLE TRIGGER "endpoints_search"`);
  // The rows the trigger writes from a probe's evidence, written directly (the same columns and shapes).
  await h.exec(`
    INSERT INTO "discovery_resources" ("listingId", "method", "path", "position", "resource", "x402Version", "accepts", "match", "extensionKeys", "extensions", "description", "mimeType", "probedAt", "resultId", "published")
    SELECT 'l' || lpad(i::text, 7, '0'), 'POST', '/run', 1, 'https://api' || i || '.example.com/run', 2,
           jsonb_build_array(jsonb_build_object('scheme', s, 'network', n, 'amount', '10000', 'asset', '${USDC}', 'payTo', p, 'maxTimeoutSeconds', 60)),
           jsonb_build_array(jsonb_build_object('scheme', s, 'network', n, 'asset', '${USDC}', 'payTo', p)),
           CASE WHEN i % 2 = 0 THEN ARRAY['bazaar', 'payment-identifier'] ELSE ARRAY['bazaar'] END,
           jsonb_build_object('bazaar', jsonb_build_object('info', jsonb_build_object('input', jsonb_build_object('type', 'http', 'method', 'POST')))),
           'Runs the thing', 'application/json', ${NOW_SQL}, 'r' || i, i % 20 <> 0
      FROM (SELECT i, CASE WHEN i % 4 = 0 THEN 'upto' ELSE 'exact' END AS s, CASE WHEN i % 3 = 0 THEN 'eip155:84532' ELSE 'eip155:8453' END AS n,
                   '0x' || lpad(to_hex(1 + i % 5000), 40, '0') AS p FROM generate_series(1, ${LISTINGS}) AS i) g`);
  await h.exec(`UPDATE "discovery_resources" d SET "searchVector" = s."searchVector" FROM "listing_search" s WHERE s."id" = d."listingId"`);
  await h.exec(`
    INSERT INTO "router_payments" ("id", "payer", "listingId", "endpointId", "advertisedAmount", "settledAmount", "asset", "network", "status", "createdAt", "transactionId", "house")
    SELECT 'p' || i, '0x' || lpad(to_hex(1 + (i * 7919) % 5000), 40, '0'), 'l' || lpad(li::text, 7, '0'), 'e' || lpad(li::text, 7, '0'), '10000',
           CASE WHEN i % 10 <> 0 THEN '10000' END, '${USDC}', 'eip155:8453', CASE WHEN i % 10 <> 0 THEN 'settled' ELSE 'failed' END::"PaymentStatus",
           ${NOW_SQL} - ((i * 2654435761::bigint) % (40 * 86400)) * interval '1 second', '0x' || lpad(to_hex(i), 64, '0'), i % 10 = 1
      FROM (SELECT i, 1 + (i * 48271) % ${LISTINGS} AS li FROM generate_series(1::bigint, ${PAYMENTS}) AS i) g`);
  await h.exec(`VACUUM ANALYZE`);
}

async function main(): Promise<void> {
  const admin = await openDatabase({ url: URL_, poolSize: 1 });
  if (!REUSE) await admin.exec(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
  const h = await openDatabase({ url: URL_, schema: SCHEMA, poolSize: 8 });
  try {
    setDatabase(h);
    const t0 = performance.now();
    if (!REUSE) {
      await migrate(h);
      await load(h);
    }
    console.log(`${REUSE ? "reusing" : "loaded"} ${LISTINGS.toLocaleString("en-US")} listings with a resource each, ${PAYMENTS.toLocaleString("en-US")} payments in ${((performance.now() - t0) / 1000).toFixed(1)} s (schema ${SCHEMA})`);
    if (LOAD_ONLY) return;

    const queries = Array.from({ length: 200 }, (_, i) => {
      const q = new URLSearchParams();
      q.set("query", i % 10 === 9 ? `find me something for ${WORDS[i % 30]} in my app` : `${WORDS[i % 30]} ${WORDS[(i * 7) % 30]}`);
      if (i % 3 === 0) {
        const [k, v] = [["network", "eip155:84532"], ["payTo", payee(i * 37)], ["scheme", "upto"]][(i / 3) % 3];
        q.set(k, v);
      }
      if (i % 6 === 0) q.set("extensions", "payment-identifier");
      return q;
    });
    for (const q of queries.slice(0, 10)) await searchDiscoveryResources(parseSearchParams(q)); // warm the cache
    const search: number[] = [];
    let returned = 0;
    for (const q of queries) {
      search.push(
        await timed(async () => {
          returned += (await searchDiscoveryResources(parseSearchParams(q))).resources.length;
        }),
      );
    }
    const slowest = queries.map((q, i) => [search[i], q.toString()] as const).sort((a, b) => b[0] - a[0]).slice(0, 5);
    console.log(`slowest searches: ${slowest.map(([t, q]) => `${ms(t)} ${q}`).join("; ")}`);
    console.log(`searchDiscoveryResources (limit 20, ${queries.length} queries, ${returned.toLocaleString("en-US")} resources returned): p50 ${ms(pct(search, 50))}, p95 ${ms(pct(search, 95))}, max ${ms(Math.max(...search))}`);

    const list: number[] = [];
    for (let i = 0; i < 60; i++) {
      const q = new URLSearchParams({ limit: "20", offset: String((i % 6) * 1000) });
      if (i % 2) q.set("network", "eip155:84532");
      list.push(await timed(() => listDiscoveryResources(parseListParams(q))));
    }
    console.log(`listDiscoveryResources (20 a page, offsets 0–5,000, half filtered by network, with the total): p50 ${ms(pct(list, 50))}, p95 ${ms(pct(list, 95))}`);
    const merchant: number[] = [];
    for (let i = 0; i < 60; i++) merchant.push(await timed(() => merchantResources(payee(i * 101), parseListParams(new URLSearchParams({ payTo: payee(i * 101) })))));
    console.log(`merchant lookup by payTo (~20 resources each): p50 ${ms(pct(merchant, 50))}, p95 ${ms(pct(merchant, 95))}`);

    const p95 = pct(search, 95);
    console.log(`target: search p95 < 50 ms (${p95 < 50 ? "met" : "missed"})`);
    printLoadAverage();
    console.log(`RESULT discovery_search_p95_ms ${p95.toFixed(1)} ms`);
  } finally {
    setDatabase(undefined);
    await h.close();
    if (!LOAD_ONLY && !REUSE) await admin.exec(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
