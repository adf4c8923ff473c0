import { createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";
import {
  BADGE_PAYLOAD_TYPE,
  decodeBase64Strict,
  ed25519PrivateKeyFromSeed,
  ed25519PublicKeyFromRaw,
  pae,
  parseEnvelope,
  rawPublicKey,
  signEnvelope,
  signStatement,
  verifyPae,
} from "./dsse";
import { keyidFor } from "./keys";
import { RFC8032_TEST1_SEED_HEX, STATEMENT } from "@/test/badges";

describe("PAE known answers", () => {
  it("matches the DSSE specification's example", () => {
    // protocol.md: PAE("http://example.com/HelloWorld", "hello world")
    expect(pae("http://example.com/HelloWorld", Buffer.from("hello world")).toString("latin1")).toBe("DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  });

  it("encodes an empty body as length 0 followed by the separator", () => {
    expect(pae("text", new Uint8Array()).toString("latin1")).toBe("DSSEv1 4 text 0 ");
  });

  it("counts bytes, not characters, in type and body", () => {
    // "é" is 2 bytes in UTF-8 (C3 A9); "ಠ" is 3 (E0 B2 A0).
    expect(pae("é", Buffer.from("ಠ", "utf8")).toString("hex")).toBe(Buffer.from("DSSEv1 2 ").toString("hex") + "c3a9" + Buffer.from(" 3 ").toString("hex") + "e0b2a0");
  });

  it("gives our payload type its 56-byte length", () => {
    // "application/vnd.tollgate.badge-statement+json" is 45 bytes, "; version=1" is 11: 56.
    expect(Buffer.byteLength(BADGE_PAYLOAD_TYPE)).toBe(56);
    expect(pae(BADGE_PAYLOAD_TYPE, Buffer.from("{}")).toString("latin1")).toBe(`DSSEv1 56 ${BADGE_PAYLOAD_TYPE} 2 {}`);
  });
});

describe("Ed25519 with node:crypto", () => {
  it("reproduces RFC 8032 §7.1 TEST 1 (seed → public key, empty message → signature)", () => {
    const key = ed25519PrivateKeyFromSeed(Buffer.from(RFC8032_TEST1_SEED_HEX, "hex"));
    expect(rawPublicKey(key).toString("hex")).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    expect(sign(null, Buffer.alloc(0), key).toString("hex")).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
  });

  it("round-trips raw public keys through SPKI", () => {
    const { publicKey } = generateKeyPairSync("ed25519");
    const raw = rawPublicKey(publicKey);
    expect(ed25519PublicKeyFromRaw(raw).export({ format: "der", type: "spki" })).toEqual(publicKey.export({ format: "der", type: "spki" }));
  });
});

describe("signStatement", () => {
  const key = ed25519PrivateKeyFromSeed(Buffer.from(RFC8032_TEST1_SEED_HEX, "hex"));
  const keyid = keyidFor(rawPublicKey(key));

  it("uses sha256(raw public key)[:16 hex] as keyid", () => {
    expect(keyid).toBe("21fe31dfa154a261"); // sha256(d75a98…511a) begins 21fe31dfa154a261
  });

  it("pins the envelope for the fixed statement and key (Ed25519 is deterministic)", () => {
    const env = signStatement(STATEMENT, { keyid, privateKey: key });
    expect(env.payloadType).toBe(BADGE_PAYLOAD_TYPE);
    expect(Buffer.from(env.payload, "base64").toString("utf8")).toBe(canonicalJson(STATEMENT));
    expect(Buffer.from(env.payload, "base64").toString("utf8")).toBe(
      '{"_type":"https://tollgate.dev/badge-statement/v1","expiresAt":"2026-12-09T10:00:00Z","issuedAt":"2026-12-02T10:00:00Z","listing":{"id":"lst_01","slug":"acme-weather","url":"https://tollgate.dev/catalog/acme-weather"},"result":{"analysedAt":"2026-12-01T08:00:00Z","band":"Excellent","id":"res_01","rubricVersion":"readiness/1.0.0","score":96}}',
    );
    expect(env.signatures).toEqual([{ keyid, sig: PINNED_SIG }]);
  });

  it("signs PAE, not the bare payload", () => {
    const env = signEnvelope(Buffer.from("hello"), "t", { keyid, privateKey: key });
    const sig = Buffer.from(env.signatures[0].sig, "base64");
    const pub = createPublicKey(key);
    expect(verifyPae("t", Buffer.from("hello"), sig, pub)).toBe(true);
    expect(verifyPae("u", Buffer.from("hello"), sig, pub)).toBe(false);
    expect(sign(null, Buffer.from("hello"), key).equals(sig)).toBe(false);
  });
});

// Ed25519 by the RFC 8032 TEST 1 seed over PAE(BADGE_PAYLOAD_TYPE, canonicalJson(STATEMENT)).
// Cross-checked outside Node: the same bytes built by hand with printf
//   printf 'DSSEv1 %d %s %d %s' 56 "$TYPE" 343 "$PAYLOAD" > pae.bin
// and signed with `openssl pkeyutl -sign -rawin -inkey key.pem -in pae.bin` (key.pem = PKCS#8 of the
// seed) give exactly this value (docs/BADGES.md has the full recipe). Any change to PAE,
// canonicalisation, the statement fixture or the payload type changes it.
const PINNED_SIG = "8ba2oQybgXT/MDQ0MuXvkqXr5r4Kpm0GoJMax5UJ2VI8jK4hSO+Y3vfUa2+wGnkUnFKYDfau6M3KRyZREtdYCw==";

describe("strict base64 and envelope parsing", () => {
  it("accepts only canonical padded standard base64", () => {
    expect(decodeBase64Strict("aGVsbG8=")?.toString()).toBe("hello");
    expect(decodeBase64Strict("aGVsbG8")).toBeNull(); // unpadded
    expect(decodeBase64Strict("aGVs bG8=")).toBeNull(); // junk Node would skip
    expect(decodeBase64Strict("aGVsbG9=")).toBeNull(); // non-zero padding bits: a second spelling
    expect(decodeBase64Strict("aGVsbG8_")).toBeNull(); // URL-safe alphabet
  });

  it("refuses unknown fields and bad shapes by name", () => {
    expect(parseEnvelope("{")).toMatchObject({ ok: false });
    expect(parseEnvelope({ payloadType: "t", payload: "", signatures: [{ keyid: "k", sig: "AA==" }], extra: 1 })).toEqual({ ok: false, message: "unexpected field /extra" });
    expect(parseEnvelope({ payloadType: "t", payload: "", signatures: [] })).toMatchObject({ ok: false, message: expect.stringContaining("/signatures") });
    expect(parseEnvelope({ payloadType: "t", payload: "", signatures: [{ keyid: "k", sig: "AA==", x: 1 }] })).toEqual({ ok: false, message: "unexpected field /signatures/0/x" });
    expect(parseEnvelope({ payloadType: "t", payload: "", signatures: [{ keyid: "k", sig: "AA==" }] })).toMatchObject({ ok: true });
  });
});
