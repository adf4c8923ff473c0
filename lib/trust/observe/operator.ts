/**
 * H4's second source (docs/spec/trust-rubric.md H4: "the address in the operator's own /.well-known
 * file"). The rubric names no file; the reading (docs/TRUST.md "H4") is the x402 discovery document
 * the probe already fetched, `/.well-known/x402` at the listing's origin, and its `ownershipProofs`:
 * each an EIP-191 (personal_sign) signature of the origin (`https://api.example.com`, no trailing
 * slash) by a wallet of the operator's. The wallet is the signer recovered from the signature, so a
 * proof names an address only by its key's holder having signed that origin. Offline (ecrecover): no
 * call to the seller or a chain.
 */
import { recoverMessageAddress, type Hex } from "viem";
import { MAX_OWNERSHIP_PROOFS, type ProbeEvidence } from "@/lib/evidence";

export interface WellKnownWallets {
  /** The file the proofs came from. */
  url: string;
  /** The signed message: the listing's origin. */
  origin: string;
  /** The signers recovered, lower-cased, unique, in the file's order. */
  wallets: string[];
  /** Proofs that recovered no signer (a malformed signature). */
  unreadable: number;
}

/**
 * The operator's wallets proven in its `/.well-known/x402`, or null when the probe read no such file
 * of this listing's origin (none published, another document found first, or a discoveryUrl elsewhere).
 */
export async function wellKnownWallets(discovery: ProbeEvidence["discovery"], baseUrl: string): Promise<WellKnownWallets | null> {
  if (!discovery?.ok || discovery.kind !== "well-known-x402" || !Array.isArray(discovery.ownershipProofs)) return null;
  let origin: string;
  try {
    const at = new URL(discovery.url);
    origin = new URL(baseUrl).origin;
    // The probe keeps proofs only from the origin's own file; evidence from a worker is checked again.
    if (at.origin !== origin || at.pathname !== "/.well-known/x402") return null;
  } catch {
    return null;
  }
  const wallets: string[] = [];
  let unreadable = 0;
  for (const proof of discovery.ownershipProofs.slice(0, MAX_OWNERSHIP_PROOFS)) {
    try {
      const signer = (await recoverMessageAddress({ message: origin, signature: proof as Hex })).toLowerCase();
      if (!wallets.includes(signer)) wallets.push(signer);
    } catch {
      unreadable++;
    }
  }
  return { url: discovery.url, origin, wallets, unreadable };
}
