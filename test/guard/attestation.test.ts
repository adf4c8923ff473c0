/**
 * The guard's own checks, no chain: an attestation signed by the app's code (lib/attest/attestation.ts)
 * opened by the guard's standalone verifier, and each forgery, replay, shift and expiry refused with
 * its code; key pinning, the cache's lifetime, and the MPP hook.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTESTATION_TYPE, signAttestation, statementBytes, verifyAttestation, type AttestationStatement } from "@/lib/attest/attestation";
import { publicKeySet, rotateKey, signerFor } from "@/lib/badges/keys";
import type { DsseEnvelope } from "@/lib/badges/dsse";
import { fixedKeyring } from "@/test/badges";
import { checkStatement, GuardRefusal, openEnvelope, TollgateGuard, type PaymentTerms } from "@/clients/guard/src/index";

const keyring = fixedKeyring();
const keys = publicKeySet(keyring);
const stranger = fixedKeyring("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");
const H = "a".repeat(64);
const URL_A = "https://api.example.com/v1/x";
const T0 = Date.parse("2026-12-05T04:00:01.000Z");
const statement: AttestationStatement = {
  _type: ATTESTATION_TYPE,
  endpoint: { id: "ep_1", listingId: "ls_1", url: URL_A, method: "GET" },
  payment: { scheme: "exact", network: "eip155:8453", asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", payTo: "0x63aa5960943865e7d57fddf0d899ee36b6d2046e", amount: "10000" },
  grade: { score: 91.2, grade: "A", band: { low: 88, high: 94.1 }, confidence: "medium", verdict: "ok" },
  rubric: { ref: "x402-endpoint/1.0.0-draft.1", reading: "x402-endpoint/1.0.0-draft.1/reading-2", sha256: H, readingSha256: H },
  scoring: { now: "2026-12-05T04:00:00.000Z", seed: 402 },
  evidence: { sha256: H, observations: 12 },
  issuedAt: "2026-12-05T04:00:01.000Z",
  expiresAt: "2026-12-06T04:00:01.000Z",
};
const terms: PaymentTerms = { url: `${URL_A}?q=1`, scheme: "exact", network: "eip155:8453", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E", amount: "10000" };
const opts = { now: T0 + 3_600_000, refuseVerdicts: ["avoid", "down"], maxEvidenceAgeMs: 36 * 3_600_000, skewMs: 300_000 };
const sign = (s: AttestationStatement, k = keyring) => signAttestation(s, signerFor(k));
const check = (env: unknown, t: PaymentTerms = terms, o = opts) => {
  const opened = openEnvelope(env, keys);
  return opened.ok ? checkStatement(opened.statement, t, o) : opened;
};

describe("the guard's check of one attestation", () => {
  it("accepts the app's signed attestation for exactly these terms (addresses in any case, the query ignored)", () => {
    expect(check(sign(statement))).toEqual({ ok: true });
  });

  it("binds every payment field: payee, price, network, asset, scheme", () => {
    const env = sign(statement);
    expect(check(env, { ...terms, payTo: "0x1111111111111111111111111111111111111111" })).toMatchObject({ ok: false, code: "payto_changed" });
    expect(check(env, { ...terms, amount: "10001" })).toMatchObject({ ok: false, code: "price_above_listing" });
    expect(check(env, { ...terms, amount: "9999" })).toMatchObject({ ok: false, code: "price_changed" });
    expect(check(env, { ...terms, network: "eip155:84532" })).toMatchObject({ ok: false, code: "network_mismatch" });
    expect(check(env, { ...terms, asset: "0x2222222222222222222222222222222222222222" })).toMatchObject({ ok: false, code: "asset_mismatch" });
    expect(check(env, { ...terms, scheme: "upto" })).toMatchObject({ ok: false, code: "scheme_mismatch" });
    expect(check(sign({ ...statement, payment: { ...statement.payment!, payTo: null } }))).toMatchObject({ ok: false, code: "payto_changed" });
    expect(check(sign({ ...statement, payment: null }))).toMatchObject({ ok: false, code: "free_listing" });
  });

  it("binds the endpoint: another endpoint's attestation replayed here is wrong_endpoint", () => {
    expect(check(sign(statement), { ...terms, url: "https://api.example.com/v1/y" })).toMatchObject({ ok: false, code: "wrong_endpoint" });
    expect(check(sign(statement), { ...terms, url: "https://evil.example.com/v1/x" })).toMatchObject({ ok: false, code: "wrong_endpoint" });
  });

  it("refuses avoid and down verdicts, and caution only when asked", () => {
    expect(check(sign({ ...statement, grade: { ...statement.grade, verdict: "avoid", grade: "F" } }))).toMatchObject({ ok: false, code: "avoid", message: expect.stringContaining("verdict avoid") });
    expect(check(sign({ ...statement, grade: { ...statement.grade, verdict: "down" } }))).toMatchObject({ ok: false, code: "down" });
    const caution = sign({ ...statement, grade: { ...statement.grade, verdict: "caution" } });
    expect(check(caution)).toEqual({ ok: true });
    expect(check(caution, terms, { ...opts, refuseVerdicts: ["avoid", "down", "caution"] })).toMatchObject({ ok: false, code: "avoid" });
  });

  it("refuses an expired statement, one issued in the future, and one resting on stale evidence", () => {
    const env = sign(statement);
    expect(check(env, terms, { ...opts, now: Date.parse(statement.expiresAt) })).toMatchObject({ ok: false, code: "expired" });
    expect(check(env, terms, { ...opts, now: T0 - 3_600_000 })).toMatchObject({ ok: false, code: "not_yet_valid" });
    expect(check(env, terms, { ...opts, maxEvidenceAgeMs: 60_000 })).toMatchObject({ ok: false, code: "stale" });
  });

  it("refuses a stranger's signature, a forged one under our keyid, a swapped payload, and a badge passed off as an attestation", () => {
    expect(check(sign(statement, stranger))).toMatchObject({ ok: false, code: "unknown_key" });
    const forged = signAttestation(statement, { keyid: keyring.active.keyid, privateKey: stranger.active.privateKey });
    expect(check(forged)).toMatchObject({ ok: false, code: "bad_signature" });
    const env = sign(statement);
    const better: DsseEnvelope = { ...env, payload: statementBytes({ ...statement, payment: { ...statement.payment!, payTo: "0x1111111111111111111111111111111111111111" } }).toString("base64") };
    expect(check(better, { ...terms, payTo: "0x1111111111111111111111111111111111111111" })).toMatchObject({ ok: false, code: "bad_signature" });
    expect(check({ ...env, payloadType: "application/vnd.tollgate.badge-statement+json; version=1" })).toMatchObject({ ok: false, code: "malformed" });
    expect(check({ ...env, payload: "%%%" })).toMatchObject({ ok: false, code: "malformed" });
    expect(check("not an envelope")).toMatchObject({ ok: false, code: "malformed" });
  });

  it("refuses a statement issued outside its key's validity", () => {
    const retired = { keys: keys.keys.map((k) => ({ ...k, notAfter: "2026-12-01T00:00:00Z" })) };
    expect(openEnvelope(sign(statement), retired)).toMatchObject({ ok: false, code: "bad_signature", message: expect.stringContaining("not valid") });
  });

  it("refuses a retired key's statement backdated into its window and made to last (bad_lifetime), here and in the app's verifier", () => {
    // Rotated out on 2026-12-01; the retired key stays published for 30 days, as rotation keeps it.
    const rotated = rotateKey(keyring, { now: new Date("2026-12-01T00:00:00Z") });
    const published = publicKeySet(rotated, { now: new Date("2026-12-20T00:00:00Z") });
    expect(published.keys.map((k) => k.status)).toEqual(["active", "retired"]);
    const NOW = Date.parse("2026-12-20T00:00:00Z");
    const at = { ...opts, now: NOW };
    const verify = (env: unknown) => verifyAttestation(env, published, { endpoint: {}, now: new Date(NOW) });
    // Issued inside the retired key's window, scored "now" (so not stale), valid for a year.
    const year = sign({ ...statement, issuedAt: "2026-11-30T00:00:00.000Z", scoring: { now: "2026-12-19T23:00:00.000Z", seed: 402 }, expiresAt: "2027-12-20T00:00:00.000Z" });
    const opened = openEnvelope(year, published);
    expect(opened).toMatchObject({ ok: false, code: "bad_lifetime" });
    expect(verify(year)).toMatchObject({ ok: false, reason: "bad_lifetime" });
    // Within 24 hours but scored after its issue: the same backdating.
    const scoredLater = sign({ ...statement, issuedAt: "2026-11-30T00:00:00.000Z", scoring: { now: "2026-12-19T23:00:00.000Z", seed: 402 }, expiresAt: "2026-12-01T00:00:00.000Z" });
    expect(openEnvelope(scoredLater, published)).toMatchObject({ ok: false, code: "bad_lifetime", message: expect.stringContaining("after the attestation was issued") });
    expect(verify(scoredLater)).toMatchObject({ ok: false });
    // Current, but scored an hour after its issue: the app's verifier refuses it too.
    const later = sign({ ...statement, scoring: { now: new Date(T0 + 3_600_000).toISOString(), seed: 402 } });
    expect(verifyAttestation(later, keys, { endpoint: {}, now: new Date(T0 + 5_400_000) })).toMatchObject({ ok: false, reason: "bad_lifetime" });
    expect(verifyAttestation(sign(statement), keys, { endpoint: {}, now: new Date(T0 + 5_400_000) })).toMatchObject({ ok: true });
    // What the sweep signs (24 hours, scored before issue) opens; in its window a retired key's statement is refused only as expired or stale.
    expect(openEnvelope(sign(statement), keys)).toMatchObject({ ok: true });
    expect(check(sign(statement), terms, at)).toMatchObject({ ok: false, code: "expired" });
    expect(openEnvelope(sign({ ...statement, expiresAt: statement.issuedAt }), keys)).toMatchObject({ ok: false, code: "bad_lifetime" });
  });

  it("holds the payment to the statement's method when the method is known", () => {
    expect(check(sign(statement), { ...terms, method: "get" })).toEqual({ ok: true });
    expect(check(sign(statement), { ...terms, method: "POST" })).toMatchObject({ ok: false, code: "wrong_endpoint", message: expect.stringContaining("GET") });
  });
});

describe("the guard against a Tollgate origin", () => {
  let server: Server;
  let origin = "";
  let lookups = 0;
  let keyReads = 0;
  let answer: (url: string) => [number, unknown] = () => [404, {}];
  let served = keys;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const u = new URL(req.url ?? "/", "http://x");
      const [status, body] = u.pathname === "/.well-known/tollgate-badge-keys.json" ? (keyReads++, [200, served]) : (lookups++, answer(u.searchParams.get("url") ?? ""));
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("pins the published keys on first use, caches the attestation until it expires, then asks again", async () => {
    let now = T0 + 60_000;
    answer = () => [200, { envelope: sign(statement) }];
    lookups = keyReads = 0;
    served = keys;
    const guard = new TollgateGuard({ tollgate: origin, now: () => now });
    await guard.assert(terms);
    await guard.assert(terms);
    await Promise.all([guard.assert(terms), guard.assert(terms)]);
    expect([lookups, keyReads]).toEqual([1, 1]);
    // The origin now publishes a stranger's keys: the pinned set does not follow.
    served = publicKeySet(stranger);
    now = Date.parse(statement.expiresAt) + 1;
    answer = () => [200, { envelope: sign({ ...statement, issuedAt: new Date(now - 1000).toISOString(), scoring: { ...statement.scoring, now: new Date(now - 2000).toISOString() }, expiresAt: new Date(now + 86_400_000).toISOString() }, stranger) }];
    const err = await guard.assert(terms).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardRefusal);
    expect((err as GuardRefusal).code).toBe("unknown_key");
    expect([lookups, keyReads]).toEqual([2, 1]);
  });

  it("remembers an expired attestation a while instead of asking on every call", async () => {
    answer = () => [200, { envelope: sign(statement) }];
    lookups = 0;
    const guard = new TollgateGuard({ tollgate: origin, keys, now: () => Date.parse(statement.expiresAt) + 1 });
    for (let i = 0; i < 3; i++) expect(await guard.check(terms)).toMatchObject({ ok: false, code: "expired" });
    expect(lookups).toBe(1);
  });

  it("names what the origin's 404 says, remembers it a while, and fails closed when Tollgate cannot be reached", async () => {
    const codes: Record<string, string> = { "https://a.example/x": "no_endpoint", "https://a.example/y": "no_attestation", "https://a.example/z": "attestation_pending" };
    answer = (url) => [404, { error: { code: "not_found", reason: codes[url] } }];
    lookups = 0;
    const guard = new TollgateGuard({ tollgate: origin, keys });
    const code = async (url: string) => (await guard.check({ ...terms, url })) as { code?: string };
    expect((await code("https://a.example/x")).code).toBe("unlisted");
    expect((await code("https://a.example/y")).code).toBe("unattested");
    expect((await code("https://a.example/z")).code).toBe("listing_changed");
    expect((await code("https://a.example/x")).code).toBe("unlisted");
    expect(lookups).toBe(3);
    const down = new TollgateGuard({ tollgate: "http://127.0.0.1:1", keys });
    expect((await down.check(terms)) as { code?: string }).toMatchObject({ ok: false, code: "tollgate_unreachable" });
    answer = () => [500, { error: { code: "internal" } }];
    expect((await new TollgateGuard({ tollgate: origin, keys }).check(terms)) as { code?: string }).toMatchObject({ ok: false, code: "tollgate_unreachable" });
  });

  it("guards an MPP charge: mppx's onChallenge throws the refusal, guard.fetch surfaces it", async () => {
    answer = () => [200, { envelope: sign(statement) }];
    const guard = new TollgateGuard({ tollgate: origin, keys, now: () => T0 + 60_000 });
    const challenge = (recipient: string, over: { intent?: string; splits?: unknown } = {}) => ({ method: "evm", intent: "intent" in over ? over.intent : "charge", request: { amount: "10000", currency: terms.asset, recipient, methodDetails: { chainId: 8453, ...(over.splits !== undefined ? { splits: over.splits } : {}) } } });
    const mppFetch = (recipient: string, over: { intent?: string; splits?: unknown } = {}) => guard.fetch(async (_input: RequestInfo | URL) => {
      await guard.mppxOnChallenge(challenge(recipient, over));
      return new Response("paid");
    });
    expect(await (await mppFetch(terms.payTo)(URL_A)).text()).toBe("paid");
    const err = await mppFetch("0x1111111111111111111111111111111111111111")(URL_A).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardRefusal);
    expect((err as GuardRefusal).code).toBe("payto_changed");
    await expect(guard.mppxOnChallenge(challenge(terms.payTo))).rejects.toMatchObject({ code: "wrong_endpoint" });
    const code = (recipient: string, over: { intent?: string; splits?: unknown }) => mppFetch(recipient, over)(URL_A).then((r) => r.text(), (e: { code?: string }) => e.code);
    // Splits that send part of the charge to another payee, though the recipient is the attested one.
    expect(await code(terms.payTo, { splits: [{ recipient: "0x1111111111111111111111111111111111111111", amount: "9999" }] })).toBe("payto_changed");
    expect(await code(terms.payTo, { splits: "all" })).toBe("payto_changed");
    expect(await code(terms.payTo, { splits: [{ recipient: terms.payTo.toLowerCase(), amount: "1" }] })).toBe("paid");
    // Only a one-time charge is held to a listed price.
    expect(await code(terms.payTo, { intent: "subscription" })).toBe("scheme_mismatch");
    expect(await code(terms.payTo, { intent: "session" })).toBe("scheme_mismatch");
    expect(await code(terms.payTo, { intent: undefined })).toBe("scheme_mismatch");
  });
});
