/**
 * The daily root's Merkle rules (docs/ATTESTATIONS.md "The daily root"): leaf keccak256(0x00 ‖ bundle
 * hash), inner keccak256(0x01 ‖ min ‖ max), an odd node carried up. Checks an inclusion proof's own
 * arithmetic; chain.ts reads the published root. keccak256 is viem's (node:crypto has no Keccak).
 */
import { keccak256 } from "viem";

export type Hex = `0x${string}`;

const HASH32 = /^0x[0-9a-f]{64}$/;
const bytes = (h: string) => Buffer.from(h.slice(2), "hex");

export const leafOf = (bundleSha256: string): Hex => keccak256(Buffer.concat([Buffer.from([0]), Buffer.from(bundleSha256, "hex")]));

export function innerOf(a: Hex, b: Hex): Hex {
  const [lo, hi] = a < b ? [a, b] : [b, a];
  return keccak256(Buffer.concat([Buffer.from([1]), bytes(lo), bytes(hi)]));
}

export interface InclusionProof {
  _type: "tollgate.inclusion-proof/1";
  bundleSha256: string;
  day: number;
  leaf: Hex;
  siblings: Hex[];
  root: Hex;
  chain?: { network: string; contract: Hex; transaction?: Hex | null };
}

/** Problems with a proof (empty when it folds to its root), each naming its JSON pointer. */
export function proofProblems(p: InclusionProof, bundleSha256: string): string[] {
  const out: string[] = [];
  if (p === null || typeof p !== "object") return ["/: the proof is not an object"];
  if (p._type !== "tollgate.inclusion-proof/1") out.push(`/_type: must be "tollgate.inclusion-proof/1"`);
  if (p.bundleSha256 !== bundleSha256) out.push(`/bundleSha256: ${String(p.bundleSha256)} is not the attested bundle's ${bundleSha256}`);
  if (!Number.isInteger(p.day) || p.day < 0 || p.day > 0xffffffff) out.push("/day: must be a uint32 (days since 1970-01-01 UTC)");
  const lower = (h: unknown) => (typeof h === "string" ? h.toLowerCase() : "");
  if (!HASH32.test(lower(p.leaf))) out.push("/leaf: must be 32 bytes of hex");
  if (!HASH32.test(lower(p.root))) out.push("/root: must be 32 bytes of hex");
  if (!Array.isArray(p.siblings) || p.siblings.some((s) => !HASH32.test(lower(s)))) out.push("/siblings: must be a list of 32-byte hex hashes");
  if (out.length) return out;
  const leaf = leafOf(bundleSha256);
  if (lower(p.leaf) !== leaf) return [`/leaf: ${p.leaf} is not keccak256(0x00 ‖ bundle hash) = ${leaf}`];
  const root = p.siblings.reduce<Hex>((node, s) => innerOf(node, lower(s) as Hex), leaf);
  if (root !== lower(p.root)) return [`/root: the siblings fold to ${root}, not ${p.root}`];
  return [];
}
