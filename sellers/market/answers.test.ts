/** The market's services on their own: what each computes from the request, and what it refuses. */
import { describe, expect, it } from "vitest";
import { answer, distanceM, geocode, priceAt, reverse, summarise } from "./answers";

const at = new Date("2026-12-05T06:00:00.000Z");
const call = (method: string, path: string, raw: unknown, requestSchema: unknown = null, now = at) => answer({ method, path, requestSchema } as never, raw, now)!;
const body = (a: { body: unknown }) => a.body as Record<string, any>;

describe("Geocodr", () => {
  it("geocodes a gazetteer address to its coordinates, with full confidence", () => {
    const [best] = geocode("Alexanderplatz 1, Berlin", { country: "DE", limit: 1 });
    expect(best).toMatchObject({ lat: 52.5219, lon: 13.4132, confidence: 1, components: { street: "Alexanderplatz", houseNumber: "1", postcode: "10178", city: "Berlin", country: "DE" } });
    expect(geocode("10 Downing Street, London")[0]).toMatchObject({ label: "Downing Street 10, SW1A 2AA London, United Kingdom", confidence: 1 });
    expect(geocode("Eiffel Tower")[0].components.city).toBe("Paris");
  });

  it("an unknown address has no results; a city alone answers at city level, less sure", () => {
    expect(geocode("742 Evergreen Terrace, Springfield")).toEqual([]);
    const [city] = geocode("Somewhere Lane 9, Berlin");
    expect(city).toMatchObject({ label: "Berlin, Germany", components: { city: "Berlin", country: "DE" } });
    expect(city.confidence).toBeLessThan(0.6);
  });

  it("country, limit and min_confidence narrow the candidates", () => {
    expect(geocode("Alexanderplatz 1, Berlin", { country: "FR" })).toEqual([]);
    expect(geocode("Paris", { minConfidence: 0.9 })).toEqual([]);
    expect(geocode("Berlin", { limit: 1 })).toHaveLength(1);
  });

  it("reverse finds the nearest address within the radius, else the city around, else nothing", () => {
    expect(reverse(52.5219, 13.4132, 250)[0]).toMatchObject({ components: { street: "Alexanderplatz" }, confidence: 1 });
    const near = reverse(52.5225, 13.4132, 250)[0];
    expect(near.components.street).toBe("Alexanderplatz");
    expect(near.confidence).toBeLessThan(1);
    expect(reverse(52.45, 13.3, 250)[0]).toMatchObject({ label: "Berlin, Germany" });
    expect(reverse(0, -30, 5000)).toEqual([]);
    expect(distanceM(52.5219, 13.4132, 51.5034, -0.1276) / 1000).toBeCloseTo(932, -1);
  });

  it("batch answers in input order, null for what it cannot find", () => {
    const schema = { type: "object", required: ["addresses"], properties: { addresses: { type: "array", minItems: 1, items: { type: "string", minLength: 3 } } } };
    const a = call("POST", "/v1/batch", { addresses: ["10 Downing Street, London", "Nowhere Road 1, Atlantis", "Marienplatz 8, München"] }, schema);
    expect(body(a).results.map((r: any) => r.best?.components.city ?? null)).toEqual(["London", null, "Munich"]);
  });

  it("a request outside the schema is refused with its JSON pointer", () => {
    const schema = { type: "object", required: ["q"], additionalProperties: false, properties: { q: { type: "string", minLength: 3 }, limit: { type: "integer", minimum: 1, maximum: 10, default: 3 } } };
    expect(call("GET", "/v1/geocode", {}, schema)).toMatchObject({ status: 400, body: { error: "invalid_request", pointer: "/q" } });
    expect(call("GET", "/v1/geocode", { q: "Berlin", limit: "11" }, schema)).toMatchObject({ status: 400, body: { pointer: "/limit" } });
    expect(call("GET", "/v1/geocode", { q: "Berlin", x: "1" }, schema)).toMatchObject({ status: 400, body: { pointer: "/x" } });
    // Query strings are coerced: "1" is the integer 1.
    expect(body(call("GET", "/v1/geocode", { q: "Berlin", limit: "1" }, schema)).results).toHaveLength(1);
  });
});

describe("Tickr", () => {
  it("a price is a function of symbol and time: the same second answers the same, another time another", () => {
    const t = at.getTime();
    expect(priceAt("BTC", t)).toBe(priceAt("BTC", t + 400));
    expect(priceAt("BTC", t)).not.toBe(priceAt("BTC", t + 3_600_000));
    expect(priceAt("BTC", t)).not.toBe(priceAt("ETH", t));
    expect(priceAt("BTC", t) / 91_250).toBeGreaterThan(0.9);
    expect(Math.abs(priceAt("USDC", t) - 1)).toBeLessThan(0.01);
  });

  it("/price defaults to BTC, refuses an unknown symbol with 404", () => {
    expect(body(call("GET", "/price", {}))).toMatchObject({ symbol: "BTC", at: "2026-12-05T06:00:00.000Z" });
    expect(body(call("GET", "/price", { symbol: "eth" })).symbol).toBe("ETH");
    expect(call("GET", "/price", { symbol: "NOPE" })).toMatchObject({ status: 404, body: { error: "unknown_symbol" } });
    expect(call("GET", "/price", { symbol: "not a symbol" })).toMatchObject({ status: 400, body: { pointer: "/symbol" } });
  });

  it("/prices lists the known and names the unknown; /ohlc's candles agree with the price model", () => {
    expect(body(call("GET", "/prices", { symbols: "BTC,SOL,ZZZ" }))).toMatchObject({ prices: [{ symbol: "BTC" }, { symbol: "SOL" }], unknown: ["ZZZ"] });
    const o = body(call("GET", "/ohlc", { symbol: "ETH", interval: "1h" }));
    expect(o.candles).toHaveLength(24);
    for (const c of o.candles) {
      expect(c.open).toBe(priceAt("ETH", Date.parse(c.openTime)));
      expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close));
      expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close));
    }
    expect(call("GET", "/ohlc", { interval: "2w" })).toMatchObject({ status: 400, body: { pointer: "/interval" } });
    expect(call("GET", "/ohlc", { interval: "1m", from: "2026-01-01T00:00:00Z" })).toMatchObject({ status: 400 });
  });
});

describe("Serpwire", () => {
  const schema = { type: "object", required: ["q"], properties: { q: { type: "string", minLength: 1 }, page: { type: "integer", minimum: 1, default: 1 } } };
  it("ranks its corpus by the query's words; nothing for a query it has no page for", () => {
    const r = body(call("GET", "/v1/search", { q: "best espresso grinder 2026" }, schema));
    expect(r.results[0]).toMatchObject({ position: 1, link: "https://brewlab.example/reviews/espresso-grinders-2026" });
    expect(r.results.every((x: any) => /espresso|grinder|2026/i.test(`${x.title} ${x.snippet}`) || x.position > 1)).toBe(true);
    expect(body(call("GET", "/v1/search", { q: "quantum chromodynamics" }, schema)).results).toEqual([]);
    expect(body(call("GET", "/v1/search", { q: "espresso", page: "2" }, schema)).results).toEqual([]);
    expect(body(call("GET", "/v1/shopping", { q: "tamper" }, schema)).results).toEqual([expect.objectContaining({ merchant: "Kitchen Depot", price: 29.9, currency: "USD" })]);
  });
});

describe("Scribe", () => {
  it("derives its demo transcript from the URL and says it is a demo", () => {
    const a = body(call("POST", "/v1/transcribe", { audioUrl: "https://scribe-audio.com/samples/interview-30s.mp3", diarize: true }));
    expect(a.durationSeconds).toBe(30);
    expect(a.segments).toHaveLength(6);
    expect(a.segments.at(-1)).toMatchObject({ start: 25, end: 30 });
    expect(a.label).toMatch(/^Demo transcript/);
    expect(a.segments.every((s: any) => /^S[12]$/.test(s.speaker))).toBe(true);
    const other = body(call("POST", "/v1/transcribe", { audioUrl: "https://scribe-audio.com/samples/other-30s.mp3", diarize: false }));
    expect(other.segments.map((s: any) => s.text)).not.toEqual(a.segments.map((s: any) => s.text));
    expect(other.segments[0].speaker).toBeUndefined();
    expect(call("POST", "/v1/translate", { audioUrl: "https://scribe-audio.com/a.mp3", sourceLanguage: "xx" })).toMatchObject({ status: 400, body: { pointer: "/sourceLanguage" } });
  });
});

describe("the summarisers", () => {
  it("answer the first sentence, shortened at a word when long", () => {
    expect(summarise("Rates rose again. Markets fell.")).toBe("Rates rose again.");
    const long = summarise(`${"word ".repeat(60)}end.`);
    expect(long.length).toBeLessThanOrEqual(160);
    expect(long.endsWith("word…")).toBe(true);
    expect(call("POST", "/api/summarise", { text: "   " })).toMatchObject({ status: 400, body: { pointer: "/text" } });
  });
});

describe("the MPP geo lookup", () => {
  it("answers the nearest city with its country and IANA timezone", () => {
    expect(body(call("POST", "/api/reverse", { lat: 48.8566, lon: 2.3522 }))).toMatchObject({ city: "Paris", country: "FR", timezone: "Europe/Paris", distanceKm: 0 });
    expect(body(call("POST", "/api/reverse", { lat: 35.0, lon: 135.8 }))).toMatchObject({ city: "Tokyo", timezone: "Asia/Tokyo" });
  });
});

it("an endpoint without a handler has no answer here (the market falls back to instanceOf)", () => {
  expect(answer({ method: "GET", path: "/weather", requestSchema: null } as never, {})).toBeNull();
});
