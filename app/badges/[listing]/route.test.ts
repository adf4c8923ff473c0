import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addResult, ctx, seedListing, setCurrent, tempKeyring } from "@/test/badges-db";
import { setBadgeKeyring } from "@/lib/badges/server";
import { verifyBadge } from "@/lib/badges/verify";
import { publicKeySet, type Keyring } from "@/lib/badges/keys";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { GET } from "./route";

let tdb: TestDatabase;
let keyring: Keyring;
// Requests arrive on some host; the badge always links to the configured origin (the development
// default here), whatever Host or X-Forwarded-* the request carries.
const ORIGIN = "http://127.0.0.1:3999";
const CONFIGURED = "http://127.0.0.1:3000";

beforeAll(async () => {
  tdb = await createTestDatabase();
  keyring = await tempKeyring();
});
beforeEach(() => setBadgeKeyring(keyring));
afterAll(async () => {
  setBadgeKeyring(undefined);
  await tdb?.close();
});

const get = (segment: string, query = "", headers: Record<string, string> = {}) =>
  GET(new Request(`${ORIGIN}/badges/${encodeURIComponent(segment)}${query}`, { headers }), ctx({ listing: segment }));

/** What a reader of the SVG sees or hears: its texts and its title. */
const visible = (svg: string) => [...svg.matchAll(/<(?:text|title)\b[^>]*>([^<]*)</g)].map((m) => m[1]).join(" | ");

describe("GET /badges/<slug>.svg", () => {
  it("serves a signed SVG for a published listing's current result, with ETag, Cache-Control and nosniff", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 96 }] });
    const res = await get(`${l.slug}.svg`, "", { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml\b/);
    expect(res.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300, stale-while-revalidate=3300");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const svg = await res.text();
    expect(svg).toContain('<metadata id="tollgate-badge-envelope">');
    expect(svg).toContain("96 · Excellent");
    expect(svg).toContain(`${CONFIGURED}/listings/${l.slug}`);
    expect(svg).not.toContain("evil.example");
    expect(svg).not.toContain(ORIGIN);
    const v = await verifyBadge(svg, { keys: publicKeySet(keyring), now: new Date() });
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.statement).toMatchObject({ listing: { id: l.id, slug: l.slug }, result: { id: l.resultIds[0], score: 96, band: "Excellent" } });
  });

  it("answers 304 to a matching If-None-Match (also a list and a weak tag), 200 otherwise", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 81 }] });
    const first = await get(`${l.slug}.svg`);
    const etag = first.headers.get("etag")!;
    for (const inm of [etag, `"nope", ${etag}`, `W/${etag}`, "*"]) {
      const res = await get(`${l.slug}.svg`, "", { "if-none-match": inm });
      expect(res.status).toBe(304);
      expect(res.headers.get("etag")).toBe(etag);
      expect(await res.text()).toBe("");
    }
    expect((await get(`${l.slug}.svg`, "", { "if-none-match": '"other"' })).status).toBe(200);
  });

  it("a new result changes the ETag and the badge", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 65 }] });
    const a = await get(`${l.slug}.svg`);
    const next = await addResult(tdb.prisma, l.id, { total: 91 });
    await setCurrent(tdb.prisma, l.id, next);
    const b = await get(`${l.slug}.svg`, "", { "if-none-match": a.headers.get("etag")! });
    expect(b.status).toBe(200);
    expect(b.headers.get("etag")).not.toBe(a.headers.get("etag"));
    expect(await b.text()).toContain("91 · Excellent");
  });

  it("style and label change the bytes; the same query gives the same ETag", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 70 }] });
    const tags = new Set<string>();
    // "?label=ready" used to be the label case here; a band name is no longer a label (issue 20), so "api".
    for (const q of ["", "?style=plastic", "?style=for-the-badge", "?label=api"]) tags.add((await get(`${l.slug}.svg`, q)).headers.get("etag")!);
    expect(tags.size).toBe(4);
    expect((await get(`${l.slug}.svg`, "?style=plastic")).headers.get("etag")).toBe((await get(`${l.slug}.svg`, "?style=plastic")).headers.get("etag"));
    const big = await (await get(`${l.slug}.svg`, "?style=for-the-badge")).text();
    expect(big).toContain("70 · ALMOST READY".toUpperCase());
  });

  it("refuses unknown, duplicate and invalid query parameters by name with a 400 SVG badge, not JSON", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 70 }] });
    const cases: [string, string, string][] = [
      ["?stlye=plastic", "unknown parameter", "bad_request:unknown_parameter"],
      ["?style=flat&style=plastic", "duplicate parameter", "bad_request:duplicate_parameter"],
      ["?style=round", "invalid style", "bad_request:invalid_style"],
      ["?label=%E2%80%8B", "invalid label", "bad_request:invalid_label"],
      ["?logo=github", "invalid logo", "bad_request:invalid_logo"],
    ];
    for (const [q, value, error] of cases) {
      const res = await get(`${l.slug}.svg`, q);
      expect(res.status, q).toBe(400);
      expect(res.headers.get("content-type"), q).toMatch(/^image\/svg\+xml\b/);
      expect(res.headers.get("x-tollgate-error"), q).toBe(error);
      expect(res.headers.get("cache-control"), q).toBe("no-cache, max-age=0");
      expect(res.headers.get("x-content-type-options"), q).toBe("nosniff");
      const svg = await res.text();
      expect(svg, q).toMatch(/^<svg /);
      expect(svg, q).toContain(`aria-label="`);
      expect(svg, q).toContain(`readiness: ${value}`);
      expect(svg, q).not.toContain("<metadata");
      expect(visible(svg), q).not.toContain("70");
    }
    // A bad style is drawn flat; a good style with another bad parameter keeps its style.
    const square = await (await get(`${l.slug}.svg`, "?style=for-the-badge&logo=nope")).text();
    expect(square).toContain('height="28"');
  });

  it("refuses a label that imitates a score (400 naming label and the rule); a signed label verifies", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 41 }] });
    for (const label of ["readiness 99 · Excellent", "readiness 99", "Excellent", "almost ready", "100%", "9/10", "lOO"]) {
      const res = await get(`${l.slug}.svg`, `?${new URLSearchParams({ label })}`);
      expect(res.status, label).toBe(400);
      expect(res.headers.get("x-tollgate-error"), label).toBe("bad_request:invalid_label");
      const svg = await res.text();
      // The error badge names the label rule in its title and never echoes the score-like label.
      expect(svg, label).toContain("readiness: invalid label");
      expect(svg, label).toMatch(/<title>label breaks the label rule/);
      expect(visible(svg), label).not.toMatch(/99|100|9\/10|lOO/);
    }
    const res = await get(`${l.slug}.svg`, "?label=quality%20check");
    expect(res.status).toBe(200);
    const svg = await res.text();
    const v = await verifyBadge(svg, { keys: publicKeySet(keyring), now: new Date() });
    expect(v).toMatchObject({ ok: true, statement: { label: "quality check", result: { score: 41 } } });
    // The label is signed: the same badge relabelled does not verify.
    expect(await verifyBadge(svg.replaceAll("quality check", "quality score"), { keys: publicKeySet(keyring), now: new Date() })).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("a draft listing is not found, by slug or by id, exactly like no listing (no draft's existence is confirmed; issue #20 item 6)", async () => {
    const draft = await seedListing(tdb.prisma, { published: false, results: [{ total: 90 }] });
    // A badge's error is itself an SVG badge (with its code in x-tollgate-error); the envelope's is JSON.
    const svgAnswers = [];
    for (const seg of [`${draft.slug}.svg`, `${draft.id}.svg`, "no-such-listing.svg", "clnosuchlisting000000000.svg"]) {
      const res = await get(seg);
      svgAnswers.push({ status: res.status, code: res.headers.get("x-tollgate-error"), type: res.headers.get("content-type"), svg: (await res.text()).replaceAll(seg.replace(/\.svg$/, ""), "…") });
    }
    expect(new Set(svgAnswers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(svgAnswers[0]).toMatchObject({ status: 404, code: "not_found", type: expect.stringContaining("image/svg+xml") });
    const jsonAnswers = [];
    for (const seg of [`${draft.slug}.dsse.json`, `${draft.id}.dsse.json`, "no-such-listing.dsse.json"]) {
      const res = await get(seg);
      const body = await res.json();
      jsonAnswers.push({ status: res.status, code: body.error.code, keys: Object.keys(body.error).sort(), message: body.error.message.replace(/"[^"]*"/, '"…"') });
    }
    expect(new Set(jsonAnswers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(jsonAnswers[0]).toMatchObject({ status: 404, code: "not_found" });
  });

  it("serves the neutral unsigned badge when there is no published result, linking only once published", async () => {
    const none = await seedListing(tdb.prisma, { results: [] });
    const unlisted = await seedListing(tdb.prisma, { state: "unlisted", results: [{ total: 90 }] });
    for (const [l, linked] of [[none, true], [unlisted, false]] as const) {
      const res = await get(`${l.slug}.svg`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
      const svg = await res.text();
      expect(svg).toContain("not yet scored");
      expect(svg).not.toContain("<metadata");
      expect(svg.includes("/listings/")).toBe(linked);
      expect(svg).not.toMatch(/90 ·/);
    }
  });

  it("never signs a provisional result, even if it is the newest", async () => {
    const onlyProvisional = await seedListing(tdb.prisma, { results: [{ total: 99, provisional: true }] });
    let svg = await (await get(`${onlyProvisional.slug}.svg`)).text();
    expect(svg).toContain("not yet scored");
    expect(svg).not.toMatch(/99 ·/);
    // A provisional result after a published one: the badge keeps stating the published one.
    const l = await seedListing(tdb.prisma, { results: [{ total: 62 }, { total: 97, provisional: true }] });
    svg = await (await get(`${l.slug}.svg`)).text();
    expect(svg).toContain("62 · Almost ready");
    expect(svg).not.toMatch(/97 ·/);
    // And the database refuses to make it the pointer in the first place.
    await expect(setCurrent(tdb.prisma, l.id, l.resultIds[1])).rejects.toThrow();
  });

  it("a stored band that contradicts the score gets the unsigned badge, not a signed contradiction", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 95, band: "Getting started" }] });
    const svg = await (await get(`${l.slug}.svg`)).text();
    expect(svg).toContain("not yet scored");
    // The engine's band id spelling is accepted.
    const ok = await seedListing(tdb.prisma, { results: [{ total: 65, band: "almost-ready" }] });
    expect(await (await get(`${ok.slug}.svg`)).text()).toContain("65 · Almost ready");
  });

  it("finds a listing by id too; a 404 SVG badge for an unknown listing or a path without the suffix", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 85 }] });
    expect(await (await get(`${l.id}.svg`)).text()).toContain("85 · Ready");
    for (const seg of ["no-such-listing.svg", l.slug, `${l.slug}.png`, ".svg", `${l.slug}.svgz`]) {
      const res = await get(seg);
      expect(res.status, seg).toBe(404);
      expect(res.headers.get("content-type"), seg).toMatch(/^image\/svg\+xml\b/);
      expect(res.headers.get("x-tollgate-error"), seg).toBe("not_found");
      expect(await res.text(), seg).toContain("readiness: listing not found");
    }
    // The unknown listing's badge keeps the style asked for.
    const plastic = await (await get("no-such-listing.svg", "?style=plastic")).text();
    expect(plastic).toContain('height="18"');
  });

  it("draws a logo left of the label, signed with the statement: it verifies, and a re-logoed copy does not", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 92 }] });
    const plain = await (await get(`${l.slug}.svg`)).text();
    for (const style of ["flat", "flat-square", "plastic", "for-the-badge"]) {
      const res = await get(`${l.slug}.svg`, `?style=${style}&logo=tollgate&label=api`);
      expect(res.status, style).toBe(200);
      const svg = await res.text();
      expect(svg, style).toContain("<path ");
      const v = await verifyBadge(svg, { keys: publicKeySet(keyring), now: new Date() });
      expect(v, style).toMatchObject({ ok: true, statement: { label: "api", logo: "tollgate", result: { score: 92 } } });
    }
    const bolt = await (await get(`${l.slug}.svg`, "?logo=bolt")).text();
    // Wider than the plain badge by the logo and its gap (14 + 3 px).
    const width = (svg: string) => Number(/<svg [^>]*width="(\d+)"/.exec(svg)![1]);
    expect(width(bolt)).toBe(width(plain) + 17);
    // The same badge with another logo's path is not what the statement says.
    const { LOGOS } = await import("@/lib/badges/logos");
    const swapped = bolt.replace(LOGOS.bolt, LOGOS.shield);
    expect(swapped).not.toBe(bolt);
    expect(await verifyBadge(swapped, { keys: publicKeySet(keyring), now: new Date() })).toMatchObject({ ok: false, reason: "visible_mismatch" });
    // And removing the logo does not verify either.
    expect(await verifyBadge(bolt.replace(/<path [^>]*\/>/, ""), { keys: publicKeySet(keyring), now: new Date() })).toMatchObject({ ok: false });
  });
});

describe("GET /badges/<slug>.dsse.json", () => {
  it("serves the same envelope the SVG carries, with its own ETag and 304", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 88 }] });
    const svg = await (await get(`${l.slug}.svg`)).text();
    const res = await get(`${l.slug}.dsse.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const text = await res.text();
    const envelope = JSON.parse(text);
    expect(Object.keys(envelope).sort()).toEqual(["payload", "payloadType", "signatures"]);
    expect(svg).toContain(text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
    const v = await verifyBadge(text, { keys: publicKeySet(keyring), now: new Date() });
    expect(v.ok && v.input).toBe("envelope");
    expect((await get(`${l.slug}.dsse.json`, "", { "if-none-match": res.headers.get("etag")! })).status).toBe(304);
  });

  it("is 404 with the refusal reason when the badge is unsigned, and takes no query parameters", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 40, provisional: true }] });
    const res = await get(`${l.slug}.dsse.json`);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: "not_found", reason: "no_result" });
    const q = await get(`${l.slug}.dsse.json`, "?style=flat");
    expect(q.status).toBe(400);
    expect((await q.json()).error).toMatchObject({ param: "style", reason: "unknown_parameter" });
  });
});
