/**
 * What the demo market's sellers answer: each service computed from the request, offline and
 * deterministic (given the time), from the committed data in ./data.ts. A handler is found by its
 * endpoint's method and path; the request is first checked against the endpoint's request schema
 * (query values coerced, defaults applied) and refused with a JSON pointer when it does not fit.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { ListingEndpoint } from "@/lib/listing-document/document";
import { ajvLogger } from "@/lib/seller-schema";
import { ADDRESSES, ASSETS, CITIES, GAZETTEER_BUILT_AT, IMAGES, LANGUAGES, NEWS, OFFERS, SCRIPT, WEB, type Address, type City } from "./data";

export type Answer = { status: 200; body: unknown } | { status: 400 | 404; body: { error: string; message: string; pointer?: string } };
type Input = Record<string, unknown>;
type Handler = (input: Input, now: Date) => Answer;

const ok = (body: unknown): Answer => ({ status: 200, body });
const refuse = (error: string, message: string, pointer?: string, status: 400 | 404 = 400): Answer => ({ status, body: { error, message, ...(pointer !== undefined ? { pointer } : {}) } });

// ---------- request checking ----------

const ajv = new Ajv2020({ strict: false, coerceTypes: true, useDefaults: true, logger: ajvLogger });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

/** The request as the handler reads it (a copy, coerced and defaulted), or the 400 it gets. */
export function checkRequest(e: Pick<ListingEndpoint, "requestSchema">, raw: unknown): { input: Input } | { refused: Answer } {
  const input: Input = raw && typeof raw === "object" && !Array.isArray(raw) ? structuredClone(raw as Input) : {};
  if (raw !== undefined && raw !== null && (typeof raw !== "object" || Array.isArray(raw))) return { refused: refuse("invalid_request", "the request must be a JSON object", "") };
  const schema = e.requestSchema;
  if (!schema || typeof schema !== "object") return { input };
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  if (validate(input)) return { input };
  const err = validate.errors![0];
  const pointer = err.keyword === "required" ? `${err.instancePath}/${(err.params as { missingProperty: string }).missingProperty}` : err.keyword === "additionalProperties" ? `${err.instancePath}/${(err.params as { additionalProperty: string }).additionalProperty}` : err.instancePath;
  return { refused: refuse("invalid_request", `${pointer || "the request"} ${err.message ?? "is invalid"}`, pointer) };
}

// ---------- text helpers ----------

const fold = (s: string) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/ß/g, "ss").toLowerCase();
const tokens = (s: string) => fold(s).split(/[^a-z0-9]+/).filter(Boolean);
const STOP = new Set(["the", "a", "an", "of", "in", "on", "for", "to", "and", "or", "is", "what", "how", "best", "de", "der", "la", "le"]);
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
/** A stable 32-bit hash of a string (FNV-1a). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

// ---------- Geocodr and the MPP geo lookup ----------

const COUNTRY_NAMES: Record<string, string> = {
  DE: "Germany", GB: "United Kingdom", FR: "France", ES: "Spain", IT: "Italy", NL: "Netherlands", AT: "Austria", CH: "Switzerland", SE: "Sweden", PL: "Poland", PT: "Portugal",
  US: "United States", CA: "Canada", MX: "Mexico", BR: "Brazil", AR: "Argentina", JP: "Japan", KR: "South Korea", SG: "Singapore", IN: "India", AE: "United Arab Emirates",
  EG: "Egypt", KE: "Kenya", ZA: "South Africa", AU: "Australia",
};

interface Place {
  lat: number;
  lon: number;
  label: string;
  components: { street?: string; houseNumber?: string; postcode?: string; city: string; country: string };
  confidence: number;
}

const cityByName = new Map(CITIES.map((c) => [c.name, c]));
const addressLabel = (a: Address) => `${a.street}${a.houseNumber ? ` ${a.houseNumber}` : ""}, ${a.postcode} ${a.city}, ${COUNTRY_NAMES[a.country] ?? a.country}`;
const addressPlace = (a: Address, confidence: number): Place => ({
  lat: a.lat,
  lon: a.lon,
  label: addressLabel(a),
  components: { street: a.street, ...(a.houseNumber ? { houseNumber: a.houseNumber } : {}), postcode: a.postcode, city: a.city, country: a.country },
  confidence: round(confidence, 2),
});
const cityPlace = (c: City, confidence: number): Place => ({ lat: c.lat, lon: c.lon, label: `${c.name}, ${COUNTRY_NAMES[c.country] ?? c.country}`, components: { city: c.name, country: c.country }, confidence: round(confidence, 2) });

const contains = (query: string[], phrase: string[]) => phrase.length > 0 && phrase.every((t) => query.includes(t));
const cityNames = (c: City) => [c.name, ...(c.aliases ?? [])].map(tokens);

/** Ranked candidates for a free-text address: the gazetteer's addresses, then its cities; none for an unknown place. */
export function geocode(q: string, opts: { country?: string; limit?: number; minConfidence?: number } = {}): Place[] {
  const query = tokens(q);
  const meaningful = query.filter((t) => !STOP.has(t));
  if (meaningful.length === 0) return [];
  const found: Place[] = [];
  for (const a of ADDRESSES) {
    const names = [a.street, ...(a.aliases ?? [])].map(tokens);
    const name = names.find((n) => contains(query, n));
    if (!name) continue;
    const city = cityByName.get(a.city)!;
    const cityNamed = cityNames(city).find((n) => contains(query, n));
    const houseAsked = query.find((t) => /^\d+[a-z]?$/.test(t) && !fold(a.postcode).split(/\s+/).includes(t));
    const used = new Set([...name, ...(cityNamed ?? []), ...(houseAsked && a.houseNumber && fold(a.houseNumber) === houseAsked ? [houseAsked] : []), ...tokens(a.postcode), ...tokens(COUNTRY_NAMES[a.country] ?? "")]);
    let confidence = meaningful.filter((t) => used.has(t)).length / meaningful.length;
    // Another city named than the address's: a weak match.
    if (!cityNamed && CITIES.some((c) => c !== city && cityNames(c).some((n) => contains(query, n)))) confidence *= 0.3;
    found.push(addressPlace(a, 0.4 + 0.6 * confidence));
  }
  for (const c of CITIES) {
    const named = cityNames(c).find((n) => contains(query, n));
    if (!named) continue;
    const used = new Set([...named, ...tokens(COUNTRY_NAMES[c.country] ?? "")]);
    // City level only: the more of the query it leaves unexplained, the less sure it is.
    found.push(cityPlace(c, 0.2 + 0.5 * (meaningful.filter((t) => used.has(t)).length / meaningful.length)));
  }
  return found
    .filter((p) => !opts.country || p.components.country === opts.country)
    .filter((p) => opts.minConfidence === undefined || p.confidence >= opts.minConfidence)
    .sort((x, y) => y.confidence - x.confidence || x.label.localeCompare(y.label))
    .slice(0, opts.limit ?? 3);
}

/** Great-circle distance in metres. */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(a)));
}

const nearest = <T extends { lat: number; lon: number }>(list: readonly T[], lat: number, lon: number) =>
  list.map((p) => ({ p, d: distanceM(lat, lon, p.lat, p.lon) })).sort((x, y) => x.d - y.d)[0];

/** How far a city-level reverse answer reaches from the city's centre. */
const CITY_REACH_M = 25_000;

/** The nearest gazetteer address within `radiusM`, else the city around the point, else nothing. */
export function reverse(lat: number, lon: number, radiusM: number): Place[] {
  const a = nearest(ADDRESSES, lat, lon);
  if (a.d <= radiusM) return [{ ...addressPlace(a.p, 1 - a.d / (2 * radiusM)) }];
  const c = nearest(CITIES, lat, lon);
  if (c.d <= CITY_REACH_M) return [cityPlace(c.p, 0.5 * (1 - c.d / CITY_REACH_M))];
  return [];
}

const ATTRIBUTION = `Tollgate demo gazetteer: ${ADDRESSES.length} addresses and ${CITIES.length} cities with their coordinates; places outside it are not found.`;

// ---------- Tickr ----------

const DAY = 86_400_000;
/** The demo price model: a deterministic function of the symbol and the second (not exchange data). */
export function priceAt(symbol: string, time: number): number {
  const t = Math.floor(time / 1000) * 1000;
  const asset = ASSETS[symbol];
  const h = hash(symbol);
  const phase = (h % 1000) / 1000;
  const stable = asset.baseUsd === 1;
  const swing = stable ? 0.0004 : 0.03;
  const jitter = ((hash(`${symbol}:${t / 1000}`) % 2001) - 1000) / 1000; // -1..1, per second
  const x =
    1 +
    swing * Math.sin(2 * Math.PI * (t / (7 * DAY) + phase)) +
    (swing / 3) * Math.sin(2 * Math.PI * (t / DAY + phase * 3)) +
    (swing / 10) * Math.sin(2 * Math.PI * (t / 3_600_000 + phase * 7)) +
    (swing / 50) * jitter;
  const digits = asset.baseUsd >= 1000 ? 2 : asset.baseUsd >= 1 ? 4 : 6;
  return round(asset.baseUsd * x, digits);
}

const PRICE_NOTE = "Demo market: prices from a deterministic model of symbol and time, not exchange data.";

function symbolOf(raw: unknown, pointer: string): { symbol: string } | { refused: Answer } {
  const symbol = String(raw ?? "BTC").trim().toUpperCase();
  if (!/^[A-Z0-9]{2,10}$/.test(symbol)) return { refused: refuse("invalid_request", `${pointer} must be an asset symbol such as BTC`, pointer) };
  if (!ASSETS[symbol]) return { refused: refuse("unknown_symbol", `no asset ${symbol}; known: ${Object.keys(ASSETS).join(", ")}`, pointer, 404) };
  return { symbol };
}

function quote(symbol: string, now: Date) {
  const t = Math.floor(now.getTime() / 1000) * 1000;
  const price = priceAt(symbol, t);
  const before = priceAt(symbol, t - DAY);
  const volume = ASSETS[symbol].volumeUsd * (0.8 + 0.4 * ((hash(`${symbol}:${Math.floor(t / DAY)}`) % 1000) / 1000));
  return { symbol, name: ASSETS[symbol].name, priceUsd: price, change24hPct: round(((price - before) / before) * 100, 2), volume24hUsd: Math.round(volume), at: new Date(t).toISOString() };
}

const INTERVALS: Record<string, number> = { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000, "4h": 14_400_000, "1d": DAY };
const MAX_CANDLES = 500;

function ohlc(input: Input, now: Date): Answer {
  const s = symbolOf(input.symbol, "/symbol");
  if ("refused" in s) return s.refused;
  const interval = String(input.interval ?? "1h");
  const step = INTERVALS[interval];
  if (!step) return refuse("invalid_request", `/interval must be one of ${Object.keys(INTERVALS).join(", ")}`, "/interval");
  const time = (v: unknown, pointer: string) => {
    if (v === undefined) return null;
    const n = /^\d+$/.test(String(v)) ? Number(v) * 1000 : Date.parse(String(v));
    return Number.isFinite(n) ? n : pointer;
  };
  const to = time(input.to, "/to");
  const from = time(input.from, "/from");
  if (typeof to === "string" || typeof from === "string") return refuse("invalid_request", `${typeof to === "string" ? to : from} must be an ISO 8601 time or Unix seconds`, typeof to === "string" ? to : (from as string));
  const end = Math.floor(Math.min(to ?? now.getTime(), now.getTime()) / step) * step;
  const start = Math.ceil((from ?? end - 24 * step) / step) * step;
  if (start >= end) return refuse("invalid_request", "/from must be before /to (and before now)", "/from");
  if ((end - start) / step > MAX_CANDLES) return refuse("invalid_request", `at most ${MAX_CANDLES} candles per call; narrow from/to or widen the interval`, "/from");
  const candles = [];
  for (let t = start; t < end; t += step) {
    const samples = Array.from({ length: 13 }, (_, i) => priceAt(s.symbol, t + Math.floor((i * step) / 12)));
    candles.push({
      openTime: new Date(t).toISOString(),
      open: samples[0],
      high: Math.max(...samples),
      low: Math.min(...samples),
      close: samples[12],
      volumeUsd: Math.round((ASSETS[s.symbol].volumeUsd * step) / DAY * (0.7 + 0.6 * ((hash(`${s.symbol}:${t}`) % 1000) / 1000))),
    });
  }
  return ok({ symbol: s.symbol, interval, candles, note: PRICE_NOTE });
}

// ---------- Serpwire ----------

const PAGE_SIZE = 10;
function matchCorpus<T extends { keywords: string; title: string }>(corpus: readonly T[], q: string, page: number): T[] {
  const words = [...new Set(tokens(q).filter((t) => !STOP.has(t)))];
  return corpus
    .map((doc, i) => {
      const bag = new Set(tokens(`${doc.title} ${doc.keywords}`));
      return { doc, i, score: words.filter((w) => bag.has(w)).length };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
    .map((x) => x.doc);
}
const SERP_SOURCE = "Serpwire demo index: a small committed corpus on the reserved .example domain.";
const serp = <T extends { keywords: string; title: string }, R>(corpus: readonly T[], shape: (doc: T, position: number) => R): Handler =>
  (input, now) => {
    const q = String(input.q);
    const page = Number(input.page ?? 1);
    const hits = matchCorpus(corpus, q, page);
    return ok({ query: q, fetchedAt: now.toISOString(), results: hits.map((d, i) => shape(d, (page - 1) * PAGE_SIZE + i + 1)), source: SERP_SOURCE });
  };

// ---------- Scribe ----------

const SCRIBE_LABEL = "Demo transcript: this Scribe, in the Tollgate demo market, does not fetch or hear the audio; its lines come from a committed script chosen by the audio URL.";
const SEGMENT_S = 5;

function transcript(audioUrl: string, diarize: boolean) {
  const file = decodeURIComponent(new URL(audioUrl).pathname.split("/").pop() || "audio");
  const named = /(\d{1,4})s\b/.exec(file);
  const durationSeconds = named ? Math.min(Number(named[1]), 600) : 10 + (hash(audioUrl) % 50);
  const start = hash(audioUrl) % SCRIPT.length;
  const n = Math.max(1, Math.ceil(durationSeconds / SEGMENT_S));
  const segments = Array.from({ length: n }, (_, i) => ({
    start: i * SEGMENT_S,
    end: Math.min((i + 1) * SEGMENT_S, durationSeconds),
    text: SCRIPT[(start + i) % SCRIPT.length],
    ...(diarize ? { speaker: `S${((start + i) % 2) + 1}` } : {}),
  }));
  return { file, durationSeconds, segments };
}

// ---------- the summarisers ----------

const SUMMARY_MAX = 160;
/** The text's first sentence, cut at a word boundary when longer than SUMMARY_MAX characters. */
export function summarise(text: string): string {
  const clean = text.replace(/\s+/g, " ").trim();
  const first = /^.+?[.!?](?=\s|$)/.exec(clean)?.[0] ?? clean;
  if (first.length <= SUMMARY_MAX) return first;
  const cut = first.slice(0, SUMMARY_MAX - 1);
  return `${cut.slice(0, cut.lastIndexOf(" ") > 40 ? cut.lastIndexOf(" ") : cut.length).replace(/[,;:\s]+$/, "")}…`;
}

// ---------- the table ----------

const HANDLERS: Record<string, Handler> = {
  // Geocodr
  "GET /v1/geocode": (input) => ok({ results: geocode(String(input.q), { country: input.country as string | undefined, limit: input.limit as number, minConfidence: input.min_confidence as number | undefined }), attribution: ATTRIBUTION }),
  "GET /v1/reverse": (input) => ok({ results: reverse(input.lat as number, input.lon as number, (input.radius_m as number) ?? 250), attribution: ATTRIBUTION }),
  "POST /v1/batch": (input) =>
    ok({ results: (input.addresses as string[]).map((a) => ({ input: a, best: geocode(a, { country: input.country as string | undefined, limit: 1 })[0] ?? null })), attribution: ATTRIBUTION }),
  "GET /v1/status": () => ok({ indexBuiltAt: GAZETTEER_BUILT_AT, countries: new Set(CITIES.map((c) => c.country)).size, healthy: true, places: ADDRESSES.length + CITIES.length }),
  // Tickr (its document declares no request schema: symbol defaults to BTC)
  "GET /price": (input, now) => {
    const s = symbolOf(input.symbol, "/symbol");
    return "refused" in s ? s.refused : ok({ ...quote(s.symbol, now), note: PRICE_NOTE });
  },
  "GET /prices": (input, now) => {
    const asked = String(input.symbols ?? "BTC,ETH").split(",").map((x) => x.trim()).filter(Boolean);
    if (asked.length === 0 || asked.length > 100) return refuse("invalid_request", "/symbols must name 1 to 100 comma-separated assets", "/symbols");
    const prices = [];
    const unknown = [];
    for (const [i, raw] of asked.entries()) {
      const s = symbolOf(raw, `/symbols/${i}`);
      if ("symbol" in s) prices.push(quote(s.symbol, now));
      else if (s.refused.status === 404) unknown.push(raw.toUpperCase());
      else return s.refused;
    }
    return ok({ prices, unknown, note: PRICE_NOTE });
  },
  "GET /ohlc": ohlc,
  // Serpwire
  "GET /v1/search": serp(WEB, (d, position) => ({ position, title: d.title, link: d.link, snippet: d.snippet })),
  "GET /v1/news": serp(NEWS, (d) => ({ title: d.title, link: d.link, source: d.source, publishedAt: d.publishedAt })),
  "GET /v1/images": serp(IMAGES, (d) => ({ title: d.title, imageUrl: d.imageUrl, thumbnailUrl: d.thumbnailUrl, width: d.width, height: d.height })),
  "GET /v1/shopping": serp(OFFERS, (d) => ({ title: d.title, merchant: d.merchant, price: d.price, currency: d.currency, link: d.link })),
  // Scribe
  "POST /v1/transcribe": (input) => {
    const t = transcript(String(input.audioUrl), input.diarize !== false);
    return ok({ language: (input.language as string | undefined) ?? "en", durationSeconds: t.durationSeconds, segments: t.segments, label: SCRIBE_LABEL });
  },
  "POST /v1/translate": (input) => {
    const source = (input.sourceLanguage as string | undefined) ?? "und";
    if (source !== "und" && !LANGUAGES.some((l) => l.code === source && l.translate)) return refuse("unsupported_language", `no translation from ${source}; see GET /v1/languages`, "/sourceLanguage");
    const t = transcript(String(input.audioUrl), true);
    return ok({ sourceLanguage: source, segments: t.segments, label: SCRIBE_LABEL });
  },
  "GET /v1/languages": () => ok({ languages: LANGUAGES }),
  // The summarisers (Quillsum, Digestly)
  "POST /api/summarise": (input) => {
    const text = typeof input.text === "string" ? input.text : "";
    if (!text.trim()) return refuse("invalid_request", "/text is empty: there is nothing to summarise", "/text");
    return ok({ summary: summarise(text) });
  },
  // The MPP geo lookup: the nearest city, its country and timezone, wherever the point is.
  "POST /api/reverse": (input) => {
    const c = nearest(CITIES, input.lat as number, input.lon as number);
    return ok({ city: c.p.name, country: c.p.country, timezone: c.p.timezone, distanceKm: round(c.d / 1000, 1) });
  },
};

/** The endpoint's handler by its method and path, or null (the market answers `instanceOf` then). */
export function handlerFor(e: Pick<ListingEndpoint, "method" | "path">): Handler | null {
  return HANDLERS[`${e.method} ${e.path}`] ?? null;
}

/** What the seller answers `raw` (a GET's query, else the JSON body) at `now`; null when it has no handler. */
export function answer(e: Pick<ListingEndpoint, "method" | "path" | "requestSchema">, raw: unknown, now: Date = new Date()): Answer | null {
  const handler = handlerFor(e);
  if (!handler) return null;
  const checked = checkRequest(e, raw);
  return "refused" in checked ? checked.refused : handler(checked.input, now);
}
