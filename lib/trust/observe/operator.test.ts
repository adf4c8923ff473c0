/**
 * H4's second source: the wallets the operator's own /.well-known/x402 proves, recovered from real
 * EIP-191 signatures of the origin (viem signs them with a known key).
 */
import { describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import type { ProbeEvidence } from "@/lib/evidence";
import { MAX_OWNERSHIP_PROOFS } from "@/lib/evidence";
import { wellKnownWallets } from "./operator";

// Anvil's first and second dev keys: public test keys, never funded outside a local chain.
const operator = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const other = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const ORIGIN = "https://api.example.com";

const discovery = (ownershipProofs: string[] | undefined, over: Partial<NonNullable<ProbeEvidence["discovery"]>> = {}): ProbeEvidence["discovery"] => ({
  url: `${ORIGIN}/.well-known/x402`, ok: true, status: 200, contentType: "application/json", kind: "well-known-x402", findings: [], ...(ownershipProofs ? { ownershipProofs } : {}), ...over,
});

describe("wellKnownWallets", () => {
  it("recovers the signer of the origin from each proof, lower-cased and unique", async () => {
    const mine = await operator.signMessage({ message: ORIGIN });
    const theirs = await other.signMessage({ message: ORIGIN });
    const r = await wellKnownWallets(discovery([mine, theirs, mine]), `${ORIGIN}/v1`);
    expect(r).toEqual({ url: `${ORIGIN}/.well-known/x402`, origin: ORIGIN, wallets: [operator.address.toLowerCase(), other.address.toLowerCase()], unreadable: 0 });
  });

  it("a proof signed over another message names another wallet than its signer (so H4 fails, never passes, for it)", async () => {
    const slash = await operator.signMessage({ message: `${ORIGIN}/` });
    const r = await wellKnownWallets(discovery([slash]), ORIGIN);
    expect(r!.wallets).toHaveLength(1);
    expect(r!.wallets[0]).not.toBe(operator.address.toLowerCase());
  });

  it("counts a malformed signature as unreadable", async () => {
    const r = await wellKnownWallets(discovery(["0x" + "00".repeat(65)]), ORIGIN);
    expect(r).toMatchObject({ wallets: [], unreadable: 1 });
  });

  it("reads at most MAX_OWNERSHIP_PROOFS proofs", async () => {
    const proofs = await Promise.all(Array.from({ length: MAX_OWNERSHIP_PROOFS + 2 }, (_, i) => privateKeyToAccount(`0x${(i + 1).toString(16).padStart(64, "0")}`).signMessage({ message: ORIGIN })));
    expect((await wellKnownWallets(discovery(proofs), ORIGIN))!.wallets).toHaveLength(MAX_OWNERSHIP_PROOFS);
  });

  it.each<[string, ProbeEvidence["discovery"], string]>([
    ["no discovery document", null, ORIGIN],
    ["the probe kept no proofs (another document, or an older evidence format)", discovery(undefined), ORIGIN],
    ["an OpenAPI document", discovery([], { kind: "openapi", url: `${ORIGIN}/openapi.json` }), ORIGIN],
    ["a document that did not answer", discovery([], { ok: false }), ORIGIN],
    ["a file on another origin", discovery([], { url: "https://elsewhere.example.com/.well-known/x402" }), ORIGIN],
    ["a file below a path prefix", discovery([], { url: `${ORIGIN}/api/.well-known/x402` }), `${ORIGIN}/api`],
  ])("null for %s", async (_, d, base) => {
    expect(await wellKnownWallets(d, base)).toBeNull();
  });

  it("an empty list is a file that proves nothing, not a missing file", async () => {
    expect(await wellKnownWallets(discovery([]), ORIGIN)).toEqual({ url: `${ORIGIN}/.well-known/x402`, origin: ORIGIN, wallets: [], unreadable: 0 });
  });
});
