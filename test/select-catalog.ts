/**
 * A catalog for router selection at scale (bench/select-speed.ts, lib/catalog/select-speed.test.ts): ~20
 * capabilities written as sellers write them, bulk-loaded with INSERT … SELECT generate_series, with
 * stored grades, canary runs and a few probe observations; and 200 sentence tasks asking for them.
 */
import type { DatabaseHandle } from "@/lib/db";

const NOW_SQL = `TIMESTAMP '2026-12-05 12:00:00'`;
export const CATALOG_NOW = Date.parse("2026-12-05T12:00:00.000Z");
export const TASKS = 200;

/** ~20 capabilities: title words, a short description and a long one, as sellers write them. */
export const CAPABILITIES: Array<{ title: string[]; short: string; long: string; category: string }> = [
  { category: "geo", title: ["Geocoder", "Geocoding", "Address Geocode"], short: "Geocode street addresses to latitude and longitude coordinates", long: "Forward and reverse geocoding for postal addresses worldwide." },
  { category: "weather", title: ["Weather", "Weather Forecast", "Meteo"], short: "Current weather and hourly forecast for any city", long: "Temperature, precipitation and wind forecasts by city or coordinates." },
  { category: "language", title: ["Translate", "Translation", "Translator"], short: "Translate text between 100 languages", long: "Machine translation of documents and short text with language detection." },
  { category: "language", title: ["Summarizer", "Summary", "TLDR"], short: "Summarize long articles and documents into key points", long: "Abstractive summarization of web pages, PDFs and transcripts." },
  { category: "audio", title: ["Transcribe", "Speech to Text", "Transcription"], short: "Transcribe audio and speech recordings to text", long: "Speech recognition for meetings, podcasts and calls with timestamps." },
  { category: "image", title: ["Image Resize", "Thumbnail", "Image Tools"], short: "Resize, crop and compress images", long: "Image processing: thumbnails, format conversion and optimization." },
  { category: "vision", title: ["OCR", "Text Recognition", "Document OCR"], short: "Extract text from scanned documents and images", long: "Optical character recognition for invoices, receipts and PDFs." },
  { category: "finance", title: ["Stock Quotes", "Equity Prices", "Ticker"], short: "Real-time stock quotes and historical prices", long: "Market data for equities, indices and ETFs by ticker symbol." },
  { category: "crypto", title: ["Crypto Prices", "Token Price", "Coin Data"], short: "Live cryptocurrency token prices and market caps", long: "Onchain token prices, volumes and market data across chains." },
  { category: "finance", title: ["FX Rates", "Currency Exchange", "Forex"], short: "Currency exchange rates and conversion", long: "Foreign exchange rates for 170 currencies, updated every minute." },
  { category: "search", title: ["Web Search", "Search", "SERP"], short: "Search the web and return ranked results", long: "Web search results with snippets, news and images for agents." },
  { category: "news", title: ["News", "Headlines", "News Feed"], short: "Latest news headlines by topic and country", long: "News articles aggregated from thousands of publishers." },
  { category: "data", title: ["Web Scraper", "Scrape", "Crawler"], short: "Scrape web pages and extract structured data", long: "Headless browser scraping with JavaScript rendering and extraction." },
  { category: "email", title: ["Email Verify", "Email Validation", "Mail Check"], short: "Verify email addresses are deliverable", long: "Email validation: syntax, domain, mailbox and disposable checks." },
  { category: "language", title: ["Sentiment", "Sentiment Analysis", "Opinion"], short: "Analyze the sentiment of reviews and posts", long: "Sentiment and emotion analysis of text in many languages." },
  { category: "ai", title: ["Embeddings", "Text Embedding", "Vector"], short: "Text embeddings for semantic search", long: "Dense vector embeddings for retrieval and clustering." },
  { category: "documents", title: ["PDF Parser", "PDF Extract", "Document Parse"], short: "Parse PDF documents into text and tables", long: "PDF parsing with layout, tables and metadata extraction." },
  { category: "maps", title: ["Routing", "Directions", "Route Planner"], short: "Driving and walking directions between places", long: "Route planning with travel times, distances and traffic." },
  { category: "finance", title: ["Invoice Parser", "Invoice", "Receipt Scan"], short: "Extract fields from invoices and receipts", long: "Invoice data extraction: totals, vendors, line items and taxes." },
  { category: "security", title: ["IP Lookup", "IP Geolocation", "IP Intel"], short: "Look up IP address location and reputation", long: "IP geolocation, ASN and threat reputation data." },
];

/** 200 sentence tasks: each capability asked several ways, with typos, stop words and filters. */
export function sentenceTasks(): Array<{ task: string; filters?: { maxPrice?: string } }> {
  const shapes = [
    "geocode a street address to coordinates", "weather forecast for a city", "translate this text to french", "summarise a long article",
    "transcribe an audio recording", "resize an image to a thumbnail", "extract text from a scanned invoice", "get a stock quote for a ticker",
    "current price of a crypto token", "convert currency exchange rate", "search the web for recent results", "latest news headlines about markets",
    "scrape a web page and extract data", "verify an email address", "sentiment of customer reviews", "embeddings for semantic search",
    "parse a pdf document into tables", "driving directions between two places", "extract totals from receipts", "lookup the location of an ip address",
  ];
  const variants = [
    (s: string) => s,
    (s: string) => `I need an API to ${s}`,
    (s: string) => s.replace(/\b(\w{5,})\b/, (w) => w.slice(0, 2) + w.slice(3)), // a typo: a letter dropped
    (s: string) => `please ${s} quickly and cheaply for my agent`,
    (s: string) => `${s} with data`,
  ];
  const out: Array<{ task: string; filters?: { maxPrice?: string } }> = [];
  for (let i = 0; out.length < TASKS; i++) {
    const task = variants[Math.floor(i / shapes.length) % variants.length](shapes[i % shapes.length]);
    out.push(i % 4 === 3 ? { task, filters: { maxPrice: "0.02" } } : { task });
  }
  return out;
}

const lit = (xs: string[]) => `ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(",")}]`;

/**
 * Listings `from`..`to` (1-based): capability i mod 20, 95% published, one or two endpoints. Stored
 * grades for 60% (verdicts mostly ok, some caution, avoid, insufficient), a finished canary run for
 * 30% (a fifth of them failed), a few probe observations for 2% of the ungraded.
 */
export async function loadListings(h: DatabaseHandle, from: number, to: number): Promise<void> {
  const C = CAPABILITIES.length;
  const titles = lit(CAPABILITIES.flatMap((c) => c.title.concat(Array(3 - c.title.length).fill(c.title[0])).slice(0, 3)));
  const shorts = lit(CAPABILITIES.map((c) => c.short));
  const longs = lit(CAPABILITIES.map((c) => c.long));
  const cats = lit(CAPABILITIES.map((c) => c.category));
  const brands = lit(["Acme", "Nimbus", "Quark", "Atlas", "Vertex", "Pico", "Orbit", "Lumen", "Zephyr", "Kite", "Nova", "Delta"]);
  await h.exec(`INSERT INTO "organizations" ("id", "slug", "name") VALUES ('org-bench', 'bench', 'Bench Seller') ON CONFLICT DO NOTHING`);
  await h.exec(`
    INSERT INTO "listings" ("id", "slug", "organizationId", "title", "shortDescription", "description", "category", "baseUrl", "protocols", "networks",
                            "verificationStatus", "publicationState", "publishedAt", "updatedAt", "createdAt")
    SELECT 'l' || lpad(i::text, 7, '0'), 'listing-' || i, 'org-bench',
           b[1 + (i / ${C}) % 12] || ' ' || t[1 + (i % ${C}) * 3 + (i / ${C}) % 3] || ' API',
           s[1 + i % ${C}] || CASE WHEN i % 7 = 0 THEN ' for AI agents' ELSE '' END,
           d[1 + i % ${C}] || ' Pay per call over x402; fast, reliable data. ' || d[1 + (i * 7 + 3) % ${C}],
           c[1 + i % ${C}], 'https://api' || i || '.example.com', ARRAY['x402'], ARRAY['eip155:8453'],
           CASE WHEN i % 10 IN (1, 2, 3) THEN CASE WHEN i % 50 = 1 THEN 'degraded' ELSE 'verified' END ELSE 'unverified' END::"VerificationStatus",
           CASE WHEN i % 20 = 0 THEN 'draft' ELSE 'published' END::"PublicationState", ${NOW_SQL}, ${NOW_SQL}, ${NOW_SQL} - interval '20 days'
      FROM generate_series(${from}, ${to}) AS i, (SELECT ${titles} AS t, ${shorts} AS s, ${longs} AS d, ${cats} AS c, ${brands} AS b) v`);
  await h.exec(`
    INSERT INTO "endpoints" ("id", "listingId", "position", "method", "path", "payable", "priceUsd", "priceLabel", "priceAmount", "priceAsset", "priceNetwork", "priceDecimals", "priceMode")
    SELECT 'e' || lpad(i::text, 7, '0') || '-' || p, 'l' || lpad(i::text, 7, '0'), p, 'POST', CASE WHEN p = 0 THEN '/run' ELSE '/batch' END, true,
           to_char((1 + (i + p) % 50) / 1000.0, 'FM0.000'), '$' || to_char((1 + (i + p) % 50) / 1000.0, 'FM0.000') || ' per call',
           ((1 + (i + p) % 50) * 1000)::text, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:8453', 6, 'fixed'
      FROM generate_series(${from}, ${to}) AS i, generate_series(0, 1) AS p WHERE p = 0 OR i % 3 = 0`);
  await h.exec(`UPDATE "listing_ranks" SET "rankScore" = (('x' || substr(md5("listingId"), 1, 8))::bit(32)::int & 1023) / 1023.0 * 1.2, "gate" = CASE WHEN "listingId" LIKE '%37' THEN 'unpayable' ELSE 'settleable' END
                 WHERE "listingId" BETWEEN 'l' || lpad('${from}', 7, '0') AND 'l' || lpad('${to}', 7, '0')`);
  await h.exec(`
    INSERT INTO "canary_runs" ("id", "listingId", "trigger", "requestedBy", "state", "outcome", "reason", "createdAt", "startedAt", "finishedAt", "runAfter")
    SELECT 'cr' || i, 'l' || lpad(i::text, 7, '0'), 'schedule', 'system:bench', 'done',
           CASE WHEN i % 50 = 1 THEN 'degraded' ELSE 'verified' END::"VerificationStatus", CASE WHEN i % 50 = 1 THEN 'charged_without_delivery' END,
           ${NOW_SQL} - (i % 40) * interval '1 hour', ${NOW_SQL} - (i % 40) * interval '1 hour', ${NOW_SQL} - (i % 40) * interval '1 hour', ${NOW_SQL} - interval '2 days'
      FROM generate_series(${from}, ${to}) AS i WHERE i % 10 IN (1, 2, 3)`);
  // Stored grades of the first endpoint (and the second, where there is one) of 60% of the listings.
  await h.exec(`INSERT INTO "trust_evidence_bundles" ("sha256", "encoding", "bytes", "size") VALUES (repeat('ab', 32), 'identity', '\\x7b7d', 2) ON CONFLICT DO NOTHING`);
  const graded = `FROM generate_series(${from}, ${to}) AS i, generate_series(0, 1) AS p WHERE i % 10 >= 4 AND (p = 0 OR i % 3 = 0)`;
  await h.exec(`
    INSERT INTO "trust_grades" ("id", "listingId", "endpointId", "method", "path", "score", "grade", "bandLow", "bandHigh", "confidence", "verdict", "flags", "detail",
                                "rubricRef", "readingRef", "rubricSha256", "readingSha256", "seed", "scoredAt", "bundleSha256", "observations", "statement", "envelope", "keyid", "issuedAt", "expiresAt")
    SELECT 'g' || i || '-' || p, 'l' || lpad(i::text, 7, '0'), 'e' || lpad(i::text, 7, '0') || '-' || p, 'POST', CASE WHEN p = 0 THEN '/run' ELSE '/batch' END,
           v.score, v.grade, v.score - 4, v.score + 4, 'medium', v.verdict, CASE WHEN v.verdict = 'avoid' THEN ARRAY['charged_without_delivery'] ELSE ARRAY[]::text[] END,
           jsonb_build_object('verdictBecause', CASE WHEN v.verdict = 'avoid' THEN jsonb_build_array('gate charged_without_delivery') ELSE '[]'::jsonb END,
                              'outlook', jsonb_build_object('trend', null, 'recent', null, 'baseline', null), 'watch', false, 'watchBecause', '[]'::jsonb, 'stale', false,
                              'uncappedScore', v.score, 'bandWidth', 8, 'firstProbeAt', to_char(${NOW_SQL} - interval '12 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                              'evidence', jsonb_build_object('probes', 40, 'probeSpanDays', 12, 'lastPaidAt', CASE WHEN i % 4 = 0 THEN null ELSE to_char(${NOW_SQL} - interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END, 'currentRevision', 1, 'futureObservationsIgnored', 0)),
           'trust/rubric@1', 'reading@1', repeat('0', 64), repeat('0', 64), 1, ${NOW_SQL} - interval '1 hour', repeat('ab', 32), 40, '{}', '{}', 'bench', ${NOW_SQL} - interval '1 hour', ${NOW_SQL} + interval '23 hours'
      ${graded.replace("WHERE", `, LATERAL (SELECT x.score, x.grade, x.verdict FROM (VALUES
           (91.0, 'A', 'ok'), (84.0, 'B', 'ok'), (72.0, 'C', 'caution'), (38.0, 'F', 'avoid'), (80.0, 'B', 'insufficient_evidence')) x(score, grade, verdict)
           OFFSET (CASE WHEN (i + p) % 23 = 0 THEN 3 WHEN (i + p) % 9 = 0 THEN 2 WHEN (i + p) % 11 = 0 THEN 4 ELSE (i + p) % 2 END) LIMIT 1) v WHERE`)}`);
  await h.exec(`INSERT INTO "trust_grade_latest" ("listingId", "method", "path", "gradeId", "scoredAt")
    SELECT 'l' || lpad(i::text, 7, '0'), 'POST', CASE WHEN p = 0 THEN '/run' ELSE '/batch' END, 'g' || i || '-' || p, ${NOW_SQL} - interval '1 hour' ${graded}`);
  // A few ungraded endpoints with probe observations (the live fallback's case): 6 probes over 3 days.
  await h.exec(`
    INSERT INTO "trust_observations" ("id", "listingId", "endpointId", "method", "path", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt", "source", "sourceId")
    SELECT 'o' || i || '-' || k, 'l' || lpad(i::text, 7, '0'), 'e' || lpad(i::text, 7, '0') || '-0', 'POST', '/run', 'R1', 'free', CASE WHEN k = 3 AND i % 2 = 0 THEN 'fail' ELSE 'pass' END, null,
           ${NOW_SQL} - (k * 12) * interval '1 hour', 'bench', 1, '{}', 'monitor', 'm' || i || '-' || k
      FROM generate_series(${from}, ${to}) AS i, generate_series(0, 5) AS k WHERE i % 50 = 5`);
}
