/**
 * verifyAttestation: what a relying party refuses. Each attempt to forge, replay or shift an
 * attestation onto another endpoint or payment is a case here.
 */
import { describe, expect, it } from "vitest";
import { signEnvelope } from "@/lib/badges/dsse";
import { publicKeySet, rotateKey, signerFor } from "@/lib/badges/keys";
import { fixedKeyring } from "@/test/badges";
import { ATTESTATION_PAYLOAD_TYPE, ATTESTATION_TYPE, signAttestation, statementBytes, verifyAttestation, type AttestationStatement } from "./attestation";

const keyring = fixedKeyring();
const keys = publicKeySet(keyring);
const H = "a".repeat(64);
const statement: AttestationStatement = {
  _type: ATTESTATION_TYPE,
  endpoint: { id: "ep_1", listingId: "ls_1", url: "https://api.example.com/v1/x", method: "POST" },
  payment: { scheme: "exact", network: "eip155:8453", asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", payTo: "0x63aa5960943865e7d57fddf0d899ee36b6d2046e", amount: "10000" },
  grade: { score: 91.2, grade: "A", band: { low: 88, high: 94.1 }, confidence: "medium", verdict: "ok" },
  rubric: { ref: "x402-endpoint/1.0.0-draft.1", reading: "x402-endpoint/1.0.0-draft.1/reading-2", sha256: H, readingSha256: H },
  scoring: { now: "2026-12-05T04:00:00.000Z", seed: 402 },
  evidence: { sha256: H, observations: 12 },
  issuedAt: "2026-12-05T04:00:01.000Z",
  expiresAt: "2026-12-06T04:00:01.000Z",
};
const at = new Date("2026-12-05T12:00:00Z");
const ep = { id: "ep_1", url: "https://api.example.com/v1/x", method: "POST" };
const pay = { scheme: "exact" as const, network: "eip155:8453", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E", amount: "10000" };
const signed = signAttestation(statement, signerFor(keyring));

describe("verifyAttestation", () => {
  it("accepts a good one for the endpoint and payment about to be made (addresses in any case)", () => {
    const r = verifyAttestation(signed, keys, { endpoint: ep, payment: pay, now: at });
    expect(r).toMatchObject({ ok: true, keyid: keyring.active.keyid });
    expect(verifyAttestation(JSON.stringify(signed), keys, { endpoint: ep, now: at }).ok).toBe(true);
  });

  it("refuses one for another endpoint", () => {
    expect(verifyAttestation(signed, keys, { endpoint: { ...ep, id: "ep_2" }, now: at })).toMatchObject({ ok: false, reason: "wrong_endpoint" });
    expect(verifyAttestation(signed, keys, { endpoint: { ...ep, url: "https://api.example.com/v1/y" }, now: at })).toMatchObject({ ok: false, reason: "wrong_endpoint" });
    expect(verifyAttestation(signed, keys, { endpoint: { ...ep, method: "GET" }, now: at })).toMatchObject({ ok: false, reason: "wrong_endpoint" });
  });

  it("refuses one whose payment differs from what is about to be paid", () => {
    for (const p of [{ ...pay, amount: "10001" }, { ...pay, payTo: "0x1111111111111111111111111111111111111111" }, { ...pay, network: "eip155:84532" }, { ...pay, asset: "0x2222222222222222222222222222222222222222" }]) {
      expect(verifyAttestation(signed, keys, { endpoint: ep, payment: p, now: at })).toMatchObject({ ok: false, reason: "wrong_payment" });
    }
    expect(verifyAttestation(signed, keys, { endpoint: ep, payment: null, now: at })).toMatchObject({ ok: false, reason: "wrong_payment" });
    const unseen = signAttestation({ ...statement, payment: { ...statement.payment!, payTo: null } }, signerFor(keyring));
    expect(verifyAttestation(unseen, keys, { endpoint: ep, payment: pay, now: at })).toMatchObject({ ok: false, reason: "wrong_payment" });
  });

  it("refuses an expired one, and one issued in the future", () => {
    expect(verifyAttestation(signed, keys, { endpoint: ep, now: new Date("2026-12-06T04:00:01.000Z") })).toMatchObject({ ok: false, reason: "expired" });
    expect(verifyAttestation(signed, keys, { endpoint: ep, now: new Date("2026-12-05T03:00:00Z") })).toMatchObject({ ok: false, reason: "not_yet_valid" });
  });

  it("refuses one signed by an unknown key, and one whose signature does not hold", () => {
    const stranger = fixedKeyring("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");
    expect(verifyAttestation(signAttestation(statement, signerFor(stranger)), keys, { endpoint: ep, now: at })).toMatchObject({ ok: false, reason: "unknown_key" });
    // The stranger's signature under our keyid.
    const forged = signAttestation(statement, { keyid: keyring.active.keyid, privateKey: stranger.active.privateKey });
    expect(verifyAttestation(forged, keys, { endpoint: ep, now: at })).toMatchObject({ ok: false, reason: "bad_signature" });
    // A better grade swapped into a signed envelope.
    const better = { ...signed, payload: statementBytes({ ...statement, grade: { ...statement.grade, score: 99, grade: "A" } }).toString("base64") };
    expect(verifyAttestation(better, keys, { endpoint: ep, now: at })).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it("refuses a badge envelope passed off as an attestation, and a malformed statement", () => {
    const asBadge = signEnvelope(statementBytes(statement), "application/vnd.tollgate.badge-statement+json; version=1", signerFor(keyring));
    expect(verifyAttestation(asBadge, keys, { endpoint: ep, now: at })).toMatchObject({ ok: false, reason: "wrong_payload_type" });
    const noEvidence = signEnvelope(Buffer.from(JSON.stringify({ ...statement, evidence: { sha256: "x", observations: 1 } })), ATTESTATION_PAYLOAD_TYPE, signerFor(keyring));
    expect(verifyAttestation(noEvidence, keys, { endpoint: ep, now: at })).toMatchObject({ ok: false, reason: "malformed_statement", message: expect.stringContaining("/evidence/sha256") });
    expect(verifyAttestation("{", keys, { endpoint: ep, now: at })).toMatchObject({ ok: false, reason: "malformed_envelope" });
  });

  it("follows rotation: an old key still verifies what it issued while it was active, not after it retired", () => {
    const rotated = rotateKey(keyring, { now: new Date("2026-12-05T06:00:00Z"), graceSeconds: 60 });
    const rk = publicKeySet(rotated);
    expect(verifyAttestation(signed, rk, { endpoint: ep, now: at }).ok).toBe(true);
    const late = signAttestation({ ...statement, issuedAt: "2026-12-05T07:00:00.000Z", expiresAt: "2026-12-06T07:00:00.000Z" }, signerFor(keyring));
    expect(verifyAttestation(late, rk, { endpoint: ep, now: at })).toMatchObject({ ok: false, reason: "key_not_valid_at_issue" });
  });
});
