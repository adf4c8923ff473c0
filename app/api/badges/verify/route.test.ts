import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as badge } from "@/app/badges/[listing]/route";
import { addResult, ctx, revoke, seedListing, setCurrent, tempKeyring } from "@/test/badges-db";
import { rawPublicKey } from "@/lib/badges/dsse";
import { loadKeyring, rotateKey, type Keyring } from "@/lib/badges/keys";
import { MAX_INPUT_BYTES } from "@/lib/badges/verify";
import { setBadgeKeyring } from "@/lib/badges/server";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { POST } from "./route";

let tdb: TestDatabase;
let keyring: Keyring;
const ORIGIN = "http://127.0.0.1:3999";

beforeAll(async () => {
  tdb = await createTestDatabase();
  keyring = await tempKeyring();
});
beforeEach(() => setBadgeKeyring(keyring));
afterAll(async () => {
  setBadgeKeyring(undefined);
  await tdb?.close();
});

const fetchBadge = async (slug: string, ext = "svg") => {
  const res = await badge(new Request(`${ORIGIN}/badges/${slug}.${ext}`), ctx({ listing: `${slug}.${ext}` }));
  expect(res.status).toBe(200);
  return res.text();
};
// A string body would get a default text/plain Content-Type; bytes get none.
const verify = (body: string, contentType: string | null = "image/svg+xml") =>
  POST(new Request(`${ORIGIN}/api/badges/verify`, { method: "POST", body: new TextEncoder().encode(body), headers: contentType ? { "content-type": contentType } : {} }));
const verdict = async (body: string, contentType?: string) => {
  const res = await verify(body, contentType);
  expect(res.status).toBe(200);
  return res.json();
};

describe("POST /api/badges/verify", () => {
  it("verifies an SVG (image/svg+xml or text/plain) and an envelope (application/json), with the DB status", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 93 }] });
    const svg = await fetchBadge(l.slug);
    for (const ct of ["image/svg+xml", "text/plain; charset=utf-8"]) {
      const v = await verdict(svg, ct);
      expect(v).toMatchObject({ ok: true, keyid: keyring.active.keyid, statement: { result: { id: l.resultIds[0], score: 93 } } });
      expect(v.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toContain("result_status:pass");
      expect(v.checks.find((c: { name: string }) => c.name === "visible").status).toBe("pass");
    }
    const env = await verdict(await fetchBadge(l.slug, "dsse.json"), "application/json");
    expect(env.ok).toBe(true);
    expect(env.checks.find((c: { name: string }) => c.name === "visible").status).toBe("skipped");
  });

  // Issue 20 item 2: a superseded result used to verify as valid (ok: true); it is now its own
  // verdict, not valid, naming the result that replaced it.
  it("a superseded result verifies as superseded, not valid; a revoked one does not; tampering is caught", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 72 }] });
    const svg = await fetchBadge(l.slug);
    const newer = await addResult(tdb.prisma, l.id, { total: 80 });
    await setCurrent(tdb.prisma, l.id, newer);
    const sup = await verdict(svg);
    expect(sup).toMatchObject({ ok: false, verdict: "superseded", reason: "result_superseded", currentResultId: newer, statement: { result: { id: l.resultIds[0] } } });
    expect(sup.checks.at(-1).detail).toMatch(/superseded/);
    await revoke(tdb.prisma, l.resultIds[0]);
    expect(await verdict(svg)).toMatchObject({ ok: false, reason: "result_revoked" });

    const fresh = await seedListing(tdb.prisma, { results: [{ total: 72 }] });
    const good = await fetchBadge(fresh.slug);
    expect(await verdict(good.replace(/>72 · Almost ready</g, ">99 · Excellent<"))).toMatchObject({ ok: false, reason: "visible_mismatch" });
    const unsigned = await fetchBadge((await seedListing(tdb.prisma, {})).slug);
    expect(await verdict(unsigned)).toMatchObject({ ok: false, reason: "envelope_missing" });
  });

  it("a badge signed by a key this deployment never published is unknown_key", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 90 }] });
    setBadgeKeyring(await tempKeyring());
    const foreign = await fetchBadge(l.slug);
    setBadgeKeyring(keyring);
    expect(await verdict(foreign)).toMatchObject({ ok: false, reason: "unknown_key" });
  });

  it("key rotation (file keyring): badges signed by the previous key keep verifying, new ones use the new key", async () => {
    const before = await tempKeyring();
    setBadgeKeyring(before);
    const l = await seedListing(tdb.prisma, { results: [{ total: 84 }] });
    const oldSvg = await fetchBadge(l.slug);
    const rotated = rotateKey(before, { now: new Date() });
    setBadgeKeyring(rotated);
    const old = await verdict(oldSvg);
    expect(old).toMatchObject({ ok: true, keyid: before.active.keyid });
    const newSvg = await fetchBadge(l.slug);
    expect(newSvg).not.toBe(oldSvg);
    expect(await verdict(newSvg)).toMatchObject({ ok: true, keyid: rotated.active.keyid });
  });

  it("key rotation (environment): the old public key in BADGE_PREVIOUS_KEYS keeps its badges verifying", async () => {
    const oldKey = generateKeyPairSync("ed25519").privateKey;
    const newKey = generateKeyPairSync("ed25519").privateKey;
    const seed = (k: typeof oldKey) => k.export({ format: "der", type: "pkcs8" }).subarray(-32).toString("base64");
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    const switchAt = new Date(Date.now() - 1000).toISOString();
    const load = async (env: Record<string, string>) => {
      const r = await loadKeyring({ env, dataDir: "/nonexistent" });
      if (!r.ok) throw new Error(r.error.message);
      return r.keyring;
    };
    setBadgeKeyring(await load({ BADGE_SIGNING_KEY: seed(oldKey), BADGE_SIGNING_KEY_NOT_BEFORE: dayAgo }));
    const l = await seedListing(tdb.prisma, { results: [{ total: 61 }] });
    const oldSvg = await fetchBadge(l.slug);
    const previous = JSON.stringify([{ publicKey: rawPublicKey(oldKey).toString("base64"), notBefore: dayAgo, notAfter: new Date(Date.now() + 300_000).toISOString() }]);
    setBadgeKeyring(await load({ BADGE_SIGNING_KEY: seed(newKey), BADGE_SIGNING_KEY_NOT_BEFORE: switchAt, BADGE_PREVIOUS_KEYS: previous }));
    expect(await verdict(oldSvg)).toMatchObject({ ok: true });
    // Without the previous key listed, the old badges would fail: that is what BADGE_PREVIOUS_KEYS is for.
    setBadgeKeyring(await load({ BADGE_SIGNING_KEY: seed(newKey), BADGE_SIGNING_KEY_NOT_BEFORE: switchAt }));
    expect(await verdict(oldSvg)).toMatchObject({ ok: false, reason: "unknown_key" });
  });

  it("refuses bodies it cannot check with a 400 that says what is wrong", async () => {
    const cases: [string, string | null, string][] = [
      ["<svg/>", null, "content_type_missing"],
      ["<svg/>", "image/png", "content_type_unsupported"],
      ["   ", "image/svg+xml", "body_empty"],
      ["{not json", "application/json", "body_not_json"],
      ["[1,2]", "application/json", "body_not_envelope"],
      ['{"a":1}', "image/svg+xml", "body_not_svg"],
    ];
    for (const [body, ct, reason] of cases) {
      const res = await verify(body, ct);
      expect(res.status, reason).toBe(400);
      const err = (await res.json()).error;
      expect(err, reason).toMatchObject({ code: "bad_request", reason });
      expect(err.message.length).toBeGreaterThan(10);
    }
    // Too large is a 413 naming the limit (lib/http.ts), whether declared or streamed.
    const big = await verify("<svg>" + "x".repeat(MAX_INPUT_BYTES) + "</svg>", "image/svg+xml");
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: "payload_too_large", reason: "body_too_large", limitBytes: MAX_INPUT_BYTES });
    // Well-formed but not a badge is a verdict, not a bad request.
    expect(await verdict("hello", "text/plain")).toMatchObject({ ok: false, reason: "input_unrecognised" });
    expect(await verdict('{"payloadType":"x"}', "application/json")).toMatchObject({ ok: false, reason: "envelope_malformed" });
  });
});
