/** H4's second source: wallets recovered from the origin's `/.well-known/x402` ownershipProofs (EIP-191), offline (docs/TRUST.md "H4"). */
import { recoverMessageAddress, type Hex } from "viem";
import { MAX_OWNERSHIP_PROOFS, type ProbeEvidence } from "@/lib/evidence";

export interface WellKnownWallets {
  url: string;
  origin: string;
  /** Lower-cased, unique, in the file's order. */
  wallets: string[];
  /** Malformed signatures. */
  unreadable: number;
}

/** Null when the probe read no such file at this listing's origin. */
export async function wellKnownWallets(discovery: ProbeEvidence["discovery"], baseUrl: string): Promise<WellKnownWallets | null> {
  if (!discovery?.ok || discovery.kind !== "well-known-x402" || !Array.isArray(discovery.ownershipProofs)) return null;
  let origin: string;
  try {
    const at = new URL(discovery.url);
    origin = new URL(baseUrl).origin;
    // A worker's evidence is checked again: proofs only from the origin's own file.
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
