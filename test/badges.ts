/** Shared fixtures for the badge tests: a fixed key (RFC 8032 §7.1 TEST 1) and a fixed statement. */
import { ed25519PrivateKeyFromSeed, rawPublicKey } from "@/lib/badges/dsse";
import { keyidFor, type ActiveKey, type Keyring } from "@/lib/badges/keys";
import type { BadgeStatement, StatementInput } from "@/lib/badges/statement";

export const RFC8032_TEST1_SEED_HEX = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

export function fixedKeyring(seedHex = RFC8032_TEST1_SEED_HEX, notBefore = "2026-01-01T00:00:00Z"): Keyring {
  const privateKey = ed25519PrivateKeyFromSeed(Buffer.from(seedHex, "hex"));
  const raw = rawPublicKey(privateKey);
  const active: ActiveKey = { keyid: keyidFor(raw), alg: "Ed25519", publicKey: raw.toString("base64"), notBefore, notAfter: null, status: "active", privateKey };
  const { privateKey: _omit, ...pub } = active;
  return { source: "file", file: null, active, keys: [pub] };
}

export const NOW = new Date("2026-12-02T10:17:23Z");

export const PUBLISHED: StatementInput = {
  listing: { id: "lst_01", slug: "acme-weather", url: "https://tollgate.dev/catalog/acme-weather", published: true },
  result: { id: "res_01", listingId: "lst_01", score: 96, rubricVersion: "readiness/1.0.0", analysedAt: "2026-12-01T08:00:00Z", provisional: false },
};

export const STATEMENT: BadgeStatement = {
  _type: "https://tollgate.dev/badge-statement/v1",
  listing: { id: "lst_01", slug: "acme-weather", url: "https://tollgate.dev/catalog/acme-weather" },
  result: { id: "res_01", score: 96, band: "Excellent", rubricVersion: "readiness/1.0.0", analysedAt: "2026-12-01T08:00:00Z" },
  issuedAt: "2026-12-02T10:00:00Z",
  expiresAt: "2026-12-09T10:00:00Z",
};
