/**
 * The selection benchmark's market as data (docs/BENCHMARKS.md "bench:select"): 20 capabilities,
 * about 300 sellers with their ground truth (uptime, latency, correctness, honesty), about 10 %
 * adversarial, and 2,000 tasks written as sentences, all from one seed. No I/O: ./server.ts serves
 * these sellers, ./history.ts lists and pays them through the product, ../select.ts scores the picks.
 */
import { createHash } from "node:crypto";
import type { JsonSchema } from "@/lib/listing-document/document";
import { mulberry32 } from "@/lib/trust/engine/stats";

export const DEFAULT_SEED = 32;

/** The seeded PRNG the trust engine uses, so the market and the tasks are the same on every run. */
export const rng = mulberry32;
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const between = (r: () => number, lo: number, hi: number) => lo + r() * (hi - lo);

export interface Capability {
  key: string;
  /** The service's name as a listing would say it ("Geocoding API"). */
  name: string;
  category: string;
  /** One-line descriptions a seller may write (each seller takes one). */
  blurbs: readonly string[];
  /** Task sentences; `{x}` is the task's input. */
  templates: readonly string[];
  /** What a task's input looks like: `{n}` is a number. */
  inputs: readonly string[];
}

export const CAPABILITIES: readonly Capability[] = [
  { key: "geocode", name: "Geocoding API", category: "maps", blurbs: ["Convert street addresses to latitude and longitude coordinates.", "Forward geocoding: an address in, coordinates out.", "Address to coordinates lookup for agents."], templates: ["geocode the street address {x} to coordinates", "find the latitude and longitude of {x}", "turn the address {x} into map coordinates", "what are the coordinates of {x}"], inputs: ["{n} Main Street, Springfield", "{n} Rue de Rivoli, Paris", "{n} Friedrichstrasse, Berlin"] },
  { key: "reverse-geocode", name: "Reverse Geocoding API", category: "maps", blurbs: ["Turn latitude and longitude coordinates into the nearest street address.", "Reverse geocoding: coordinates in, address out.", "Nearest address for a coordinate pair."], templates: ["reverse geocode the coordinates {x} to an address", "which street address is nearest to {x}", "find the address at latitude longitude {x}"], inputs: ["52.{n}, 13.40", "48.{n}, 2.35", "40.{n}, -73.98"] },
  { key: "weather", name: "Weather Forecast API", category: "weather", blurbs: ["Hourly weather forecasts and current conditions for any city.", "Forecasts: temperature, rain and wind by location.", "Current weather and a five-day forecast."], templates: ["get the weather forecast for {x}", "will it rain tomorrow in {x}", "current temperature and wind in {x}", "fetch a five day forecast for {x}"], inputs: ["Lisbon {n}", "Nairobi {n}", "Osaka {n}"] },
  { key: "fx", name: "Currency Exchange Rates", category: "finance", blurbs: ["Foreign exchange rates and currency conversion.", "Convert amounts between currencies at the latest rate.", "FX rates for major and minor currencies."], templates: ["convert {x} to euros at the current exchange rate", "what is the exchange rate for {x}", "currency conversion of {x} into yen"], inputs: ["{n} USD", "{n} GBP", "{n} CHF"] },
  { key: "summarise", name: "Text Summarizer", category: "ai", blurbs: ["Summarise long text into one clear sentence.", "Summaries of articles and documents for agents.", "Condense text into a short summary."], templates: ["summarise this article in one sentence: {x}", "write a short summary of {x}", "condense the following text: {x}", "give me the gist of {x}"], inputs: ["report number {n} on harbour traffic", "meeting notes {n} about the budget", "essay {n} on river ecology"] },
  { key: "translate", name: "Translation API", category: "ai", blurbs: ["Translate text between 40 languages.", "Machine translation of sentences and documents.", "Text translation from English to other languages."], templates: ["translate {x} into Spanish", "translate the sentence {x} to German", "what is {x} in French"], inputs: ["hello friend number {n}", "the train leaves at {n}", "order {n} has shipped"] },
  { key: "sentiment", name: "Sentiment Analysis", category: "ai", blurbs: ["Detect positive, negative or neutral sentiment in text.", "Sentiment scores for reviews and posts.", "Classify the tone of a message."], templates: ["analyse the sentiment of the review {x}", "is this customer review positive or negative: {x}", "score the tone of {x}"], inputs: ["review {n}: great value", "post {n}: slow delivery", "comment {n}: it works"] },
  { key: "language-detect", name: "Language Detection", category: "ai", blurbs: ["Identify which language a text is written in.", "Language identification for short and long text.", "Detect the language of any string."], templates: ["detect the language of {x}", "which language is this text written in: {x}", "identify the language of {x}"], inputs: ["bonjour {n}", "guten tag {n}", "buenos dias {n}"] },
  { key: "ocr", name: "OCR Text Extraction", category: "ai", blurbs: ["Optical character recognition: read the text in an image.", "Extract printed text from scanned images.", "OCR for receipts, photos and scans."], templates: ["extract the text from the scanned image {x}", "read the printed words in the photo {x}", "run OCR on the receipt image {x}"], inputs: ["https://img.example/scan-{n}.png", "https://img.example/receipt-{n}.jpg"] },
  { key: "transcribe", name: "Speech Transcription", category: "ai", blurbs: ["Transcribe audio recordings to text.", "Speech to text for calls and podcasts.", "Audio transcription with timestamps."], templates: ["transcribe the audio recording {x} to text", "convert the speech in {x} into a transcript", "write out what is said in the podcast {x}"], inputs: ["https://audio.example/call-{n}.mp3", "https://audio.example/episode-{n}.wav"] },
  { key: "web-search", name: "Web Search API", category: "search", blurbs: ["Search the web and get ranked results.", "Web search results with titles and snippets.", "Query the open web for pages."], templates: ["search the web for {x}", "find web pages about {x}", "look up {x} online and return links"], inputs: ["solar panels {n}", "sourdough recipe {n}", "used bicycles {n}"] },
  { key: "news", name: "News Headlines", category: "search", blurbs: ["Latest news headlines by topic.", "Breaking news articles and headlines.", "Headlines from thousands of publishers."], templates: ["get the latest news headlines about {x}", "find recent news articles on {x}", "what are today's headlines for {x}"], inputs: ["elections {n}", "football {n}", "semiconductors {n}"] },
  { key: "stocks", name: "Stock Quotes", category: "finance", blurbs: ["Real-time stock prices and quotes.", "Equity quotes: price, volume and change.", "Share prices for listed companies."], templates: ["get the current stock price of {x}", "quote the share price for {x}", "how is the stock {x} trading today"], inputs: ["ACME{n}", "GLOBX{n}", "INITECH{n}"] },
  { key: "crypto", name: "Crypto Prices", category: "finance", blurbs: ["Cryptocurrency prices and market data.", "Token prices in USD for coins and tokens.", "Live crypto market prices."], templates: ["get the price of the token {x} in dollars", "what is {x} crypto trading at", "fetch the market price of coin {x}"], inputs: ["TOKEN{n}", "COIN{n}"] },
  { key: "email-verify", name: "Email Validation", category: "data", blurbs: ["Verify that an email address exists and can receive mail.", "Email address validation and deliverability checks.", "Check mailbox validity before sending."], templates: ["verify the email address {x}", "check whether {x} is a valid deliverable email", "validate the mailbox {x}"], inputs: ["user{n}@example.com", "sales{n}@example.org"] },
  { key: "phone-lookup", name: "Phone Number Lookup", category: "data", blurbs: ["Phone number validation, carrier and line type.", "Look up the carrier and country of a phone number.", "Phone number intelligence."], templates: ["look up the carrier of the phone number {x}", "validate the phone number {x}", "which country and carrier is {x}"], inputs: ["+1 555 01{n}", "+44 20 7946 0{n}"] },
  { key: "ip-geo", name: "IP Geolocation", category: "data", blurbs: ["Locate an IP address: country, city and network.", "IP address to location lookup.", "Geolocate visitors by IP."], templates: ["geolocate the IP address {x}", "which city is the IP {x} in", "find the country of IP address {x}"], inputs: ["203.0.113.{n}", "198.51.100.{n}"] },
  { key: "whois", name: "Domain WHOIS", category: "data", blurbs: ["WHOIS records: registrar, owner and expiry of a domain.", "Domain registration lookup.", "Who registered a domain and when it expires."], templates: ["look up the WHOIS record of the domain {x}", "who is the registrar of {x}", "when does the domain {x} expire"], inputs: ["shop{n}.example", "blog{n}.example"] },
  { key: "pdf-extract", name: "PDF Text Extraction", category: "documents", blurbs: ["Extract text and tables from PDF documents.", "PDF to text conversion.", "Parse PDF files into plain text."], templates: ["extract the text from the PDF document {x}", "convert the PDF {x} into plain text", "pull the tables out of the PDF {x}"], inputs: ["https://docs.example/contract-{n}.pdf", "https://docs.example/invoice-{n}.pdf"] },
  { key: "caption", name: "Image Captioning", category: "ai", blurbs: ["Describe the content of an image in a sentence.", "Automatic image captions and alt text.", "Generate alt text for pictures."], templates: ["write a caption describing the image {x}", "generate alt text for the picture {x}", "describe what is shown in the photo {x}"], inputs: ["https://img.example/photo-{n}.jpg", "https://img.example/picture-{n}.png"] },
];

const BRANDS = ["Acme", "Nimbus", "Vertex", "Quill", "Orbit", "Lumen", "Atlas", "Pico", "Nova", "Zephyr", "Cobalt", "Delta", "Ember", "Flux", "Granite", "Harbor", "Iris", "Juniper", "Kite", "Lattice", "Maple", "Nectar", "Onyx", "Pulse", "Quartz", "Raven", "Sable", "Tundra", "Umber", "Vale"];

export const SELLER_KINDS = ["honest", "mediocre", "decoy", "wash", "zombie", "phantom", "overcharger", "chargeless"] as const;
export type SellerKind = (typeof SELLER_KINDS)[number];
/** The adversarial kinds: every payment to one of these is counted against the selector. */
export const ADVERSARIAL: ReadonlySet<SellerKind> = new Set(["decoy", "wash", "zombie", "phantom", "overcharger", "chargeless"]);

export interface GroundTruth {
  /** Share of requests answered (the rest: 503 before any payment is asked). */
  uptime: number;
  /** Milliseconds the seller takes before answering. */
  latencyMs: number;
  /** Share of inputs answered with the correct result. */
  correctness: number;
  /** False for every adversarial seller. */
  honest: boolean;
}

export interface SellerSpec {
  index: number;
  slug: string;
  capability: string;
  kind: SellerKind;
  title: string;
  shortDescription: string;
  description: string;
  /** Listed price, atomic units of the 6-decimal test USDC. */
  price: number;
  /** What the 402 asks (an overcharger asks 3× its listed price). */
  chargedPrice: number;
  truth: GroundTruth;
}

export interface MarketSpec {
  seed: number;
  sellers: SellerSpec[];
  /** The capability the wash ring sells in. */
  washCapability: string;
}

/** Per-capability base price: 1,000–9,000 atomic units (0.001–0.009 USDC). */
const basePrice = (capIndex: number) => 1000 + ((capIndex * 3701) % 9) * 1000;

/** The market of `count` sellers (at least 40), about 10 % adversarial; the wash ring sells in one capability. */
export function buildMarket(count: number, seed = DEFAULT_SEED): MarketSpec {
  if (!Number.isInteger(count) || count < 40) throw new RangeError(`sellers must be an integer ≥ 40, got ${count}`);
  const r = rng(seed);
  const adversarialEach = Math.max(1, Math.round((count * 0.1) / 6));
  const ringSize = Math.max(3, adversarialEach);
  const washCap = CAPABILITIES[Math.floor(r() * CAPABILITIES.length)].key;
  const kinds: Array<{ kind: SellerKind; cap: string | null }> = [];
  for (let i = 0; i < ringSize; i++) kinds.push({ kind: "wash", cap: washCap });
  for (const kind of ["decoy", "zombie", "phantom", "overcharger", "chargeless"] as const) for (let i = 0; i < adversarialEach; i++) kinds.push({ kind, cap: null });
  const honestCount = count - kinds.length;
  for (let i = 0; i < honestCount; i++) kinds.push({ kind: r() < 0.25 ? "mediocre" : "honest", cap: CAPABILITIES[i % CAPABILITIES.length].key });
  // Adversaries other than the ring are spread over the capabilities, away from the ring's.
  const others = CAPABILITIES.filter((c) => c.key !== washCap);
  let spread = Math.floor(r() * others.length);
  const sellers = kinds.map(({ kind, cap }, index): SellerSpec => {
    const capability = cap ?? others[spread++ % others.length].key;
    const ci = CAPABILITIES.findIndex((c) => c.key === capability);
    const c = CAPABILITIES[ci];
    const brand = `${BRANDS[index % BRANDS.length]}${index >= BRANDS.length ? ` ${Math.floor(index / BRANDS.length) + 1}` : ""}`;
    const blurb = pick(r, c.blurbs);
    let price = Math.round(basePrice(ci) * between(r, 0.6, 1.6));
    let truth: GroundTruth = { uptime: between(r, 0.97, 1), latencyMs: Math.round(between(r, 5, 60)), correctness: between(r, 0.97, 1), honest: true };
    let title = `${brand} ${c.name}`;
    let description = `${blurb} ${c.name} for agents, paid per call over x402 in USDC; no account or API key.`;
    if (kind === "mediocre") truth = { uptime: between(r, 0.7, 0.92), latencyMs: Math.round(between(r, 40, 150)), correctness: between(r, 0.55, 0.85), honest: true };
    if (kind === "decoy") {
      // Priced far above the rest, and written with every task word of its capability.
      price = 250_000 + Math.floor(r() * 5) * 50_000;
      title = `${brand} ${c.name} Pro: best ${c.key.replace(/-/g, " ")} premium`;
      description = `${c.blurbs.join(" ")} ${c.templates.map((t) => t.replace(/\{x\}/g, "")).join(". ")}.`;
      truth = { uptime: 1, latencyMs: 10, correctness: 1, honest: false };
    }
    if (kind === "wash") truth = { uptime: 0.95, latencyMs: 30, correctness: 0.35, honest: false };
    if (kind === "zombie" || kind === "phantom" || kind === "chargeless") truth = { uptime: 1, latencyMs: 10, correctness: 0, honest: false };
    if (kind === "overcharger") truth = { uptime: 1, latencyMs: 10, correctness: 1, honest: false };
    return {
      index,
      slug: `s${String(index).padStart(3, "0")}-${capability}`,
      capability,
      kind,
      title,
      shortDescription: blurb,
      description,
      price,
      chargedPrice: kind === "overcharger" ? price * 3 : price,
      truth,
    };
  });
  return { seed, sellers, washCapability: washCap };
}

export interface Task {
  index: number;
  capability: string;
  /** The sentence a selector is given. */
  sentence: string;
  /** What is sent to the chosen seller. */
  input: string;
}

/** `count` tasks, capabilities drawn uniformly, each a template of its capability filled with an input. */
export function buildTasks(count: number, seed = DEFAULT_SEED): Task[] {
  const r = rng(seed ^ 0x5eed);
  return Array.from({ length: count }, (_, index) => {
    const c = pick(r, CAPABILITIES);
    const input = pick(r, c.inputs).replace("{n}", String(100 + Math.floor(r() * 900)));
    return { index, capability: c.key, sentence: pick(r, c.templates).replace("{x}", input), input };
  });
}

/** The keyword form of a task (`--phrasing keywords`): the capability's name, as a catalog search box would get it. */
export const keywordsOf = (capability: string) => CAPABILITIES.find((c) => c.key === capability)!.name.replace(/ API$/, "");

const hex = (s: string) => createHash("sha256").update(s).digest("hex");
/** A fraction in [0, 1) from a string. */
export const unit = (s: string) => parseInt(hex(s).slice(0, 8), 16) / 2 ** 32;

/** The correct answer to `input` for a capability: what an honest seller delivers and the bench checks. */
export const correctResult = (capability: string, input: string) => `${capability}:${hex(`${capability}|${input}`).slice(0, 24)}`;

/** Whether this seller answers this input correctly (fixed per seller and input). */
export const answersCorrectly = (s: Pick<SellerSpec, "slug" | "truth">, input: string) => unit(`correct|${s.slug}|${input}`) < s.truth.correctness;

/** Whether the seller's n-th request is answered (else 503 before any payment). */
export const upAt = (s: Pick<SellerSpec, "slug" | "truth">, n: number) => unit(`up|${s.slug}|${n}`) < s.truth.uptime;

/** What the seller's endpoint delivers (after payment) for `input`: the schema's shape, except a phantom's. */
export function deliveredBody(s: SellerSpec, input: string): unknown {
  if (s.kind === "phantom") return { answer: `done: ${input.slice(0, 40)}`, ok: true };
  const result = answersCorrectly(s, input) ? correctResult(s.capability, input) : `${s.capability}:${hex(`wrong|${s.slug}|${input}`).slice(0, 24)}`;
  return { capability: s.capability, input, result };
}

export const REQUEST_SCHEMA: JsonSchema = {
  type: "object",
  required: ["input"],
  additionalProperties: false,
  properties: { input: { type: "string", minLength: 1, maxLength: 500, description: "What to work on: an address, a text, a URL, a symbol." } },
};
export const RESPONSE_SCHEMA: JsonSchema = {
  type: "object",
  required: ["capability", "input", "result"],
  properties: { capability: { type: "string" }, input: { type: "string" }, result: { type: "string", minLength: 1 } },
};

/** The one endpoint every seller lists. */
export const endpointPath = (capability: string) => `/v1/${capability}`;

/** Did a delivered answer solve the task (2xx, the promised shape, the correct result)? */
export function solved(task: Task, status: number, body: unknown): boolean {
  if (status < 200 || status >= 300 || !body || typeof body !== "object") return false;
  const b = body as Record<string, unknown>;
  return b.result === correctResult(task.capability, task.input) && b.capability === task.capability && b.input === task.input;
}

/** The chance that a paid call to this seller solves a task of its own capability, by ground truth (both requests up, a correct answer, delivered). */
export function expectedSuccess(s: SellerSpec): number {
  if (s.kind === "zombie" || s.kind === "phantom" || s.kind === "chargeless") return 0;
  return s.truth.uptime ** 2 * s.truth.correctness;
}

/**
 * The wash-ring target, from positions in one selector's order (Infinity: not returned): no ring seller
 * is returned at or above a returned honest seller, and while an honest seller is not returned, no
 * ring seller is either (a ring left out ties with an honest seller left out; it is never above it).
 */
export function ringBelowHonest(ring: readonly number[], honest: readonly number[]): boolean {
  const lowestHonest = Math.max(0, ...honest.filter(Number.isFinite));
  const ringReturned = ring.filter(Number.isFinite);
  if (ringReturned.some((r) => r <= lowestHonest)) return false;
  return honest.every(Number.isFinite) || ringReturned.length === 0;
}
