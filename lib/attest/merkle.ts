/**
 * The daily root's Merkle tree as docs/ATTESTATIONS.md "The daily root" fixes it: sorted, deduplicated leaves,
 * sorted-pair inner nodes, so a proof is its siblings bottom-up. Pure.
 */
import { bytesToHex, hexToBytes, keccak256, type Hex } from "viem";

const SHA256_HEX = /^[0-9a-f]{64}$/;
const BYTES32_HEX = /^0x[0-9a-f]{64}$/;

export class MerkleInputError extends Error {
  constructor(message: string, public readonly index?: number) {
    super(message);
    this.name = "MerkleInputError";
  }
}

/** 64 lowercase hex digits, no 0x. */
export function isBundleSha256(value: unknown): value is string {
  return typeof value === "string" && SHA256_HEX.test(value);
}

function bundleBytes(bundleSha256: string, index?: number): Uint8Array {
  if (!isBundleSha256(bundleSha256)) {
    const at = index === undefined ? "" : ` (item ${index})`;
    throw new MerkleInputError(`a bundle hash must be 64 lowercase hex digits${at}: ${JSON.stringify(String(bundleSha256).slice(0, 80))}`, index);
  }
  return hexToBytes(`0x${bundleSha256}`);
}

function leafBytes(bundle: Uint8Array): Uint8Array {
  const buf = new Uint8Array(33);
  buf[0] = 0x00;
  buf.set(bundle, 1);
  return keccak256(buf, "bytes");
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function nodeBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const buf = new Uint8Array(65);
  buf[0] = 0x01;
  const [lo, hi] = compare(a, b) <= 0 ? [a, b] : [b, a];
  buf.set(lo, 1);
  buf.set(hi, 33);
  return keccak256(buf, "bytes");
}

/** keccak256(0x00 ‖ the hash's 32 bytes). */
export function leafOf(bundleSha256: string): Hex {
  return bytesToHex(leafBytes(bundleBytes(bundleSha256)));
}

/** keccak256(0x01 ‖ min ‖ max). */
export function nodeOf(a: Hex, b: Hex): Hex {
  return bytesToHex(nodeBytes(hexToBytes(a), hexToBytes(b)));
}

export interface InclusionPath {
  leaf: Hex;
  /** From the leaf's level up; a carried-up level has none. */
  siblings: Hex[];
}

export interface MerkleTree {
  root: Hex;
  leaves: readonly Hex[];
  /** Null when not in this tree. */
  proof(bundleSha256: string): InclusionPath | null;
  proofAt(index: number): InclusionPath;
}

/** At least one hash, 64 lowercase hex digits each. */
export function buildTree(bundleHashes: readonly string[]): MerkleTree {
  if (bundleHashes.length === 0) throw new MerkleInputError("a tree needs at least one bundle hash");
  const raw = bundleHashes.map((h, i) => leafBytes(bundleBytes(h, i)));
  raw.sort(compare);
  const leaves: Uint8Array[] = [];
  for (const l of raw) if (leaves.length === 0 || compare(leaves[leaves.length - 1], l) !== 0) leaves.push(l);

  const levels: Uint8Array[][] = [leaves];
  while (levels[levels.length - 1].length > 1) {
    const below = levels[levels.length - 1];
    const above: Uint8Array[] = [];
    for (let i = 0; i + 1 < below.length; i += 2) above.push(nodeBytes(below[i], below[i + 1]));
    if (below.length % 2 === 1) above.push(below[below.length - 1]);
    levels.push(above);
  }
  const leafHex = leaves.map((l) => bytesToHex(l));
  const index = new Map(leafHex.map((h, i) => [h, i]));
  // Every node as hex, once: upper siblings are shared by many proofs.
  let hexLevels: Hex[][] | null = null;

  const proofAt = (at: number): InclusionPath => {
    if (!Number.isInteger(at) || at < 0 || at >= leaves.length) throw new MerkleInputError(`no leaf at index ${at} of ${leaves.length}`);
    hexLevels ??= [leafHex, ...levels.slice(1).map((l) => l.map((n) => bytesToHex(n)))];
    const siblings: Hex[] = [];
    let i = at;
    for (let level = 0; level < hexLevels.length - 1; level++) {
      const nodes = hexLevels[level];
      const sibling = i ^ 1;
      if (sibling < nodes.length) siblings.push(nodes[sibling]);
      i >>= 1;
    }
    return { leaf: leafHex[at], siblings };
  };

  return {
    root: bytesToHex(levels[levels.length - 1][0]),
    leaves: leafHex,
    proofAt,
    proof(bundleSha256: string) {
      const at = index.get(leafOf(bundleSha256));
      return at === undefined ? null : proofAt(at);
    },
  };
}

/** Malformed input is false, never an exception. */
export function verifyInclusion(bundleSha256: string, siblings: readonly string[], root: string): boolean {
  if (!isBundleSha256(bundleSha256) || !BYTES32_HEX.test(root) || !Array.isArray(siblings)) return false;
  let node = leafBytes(hexToBytes(`0x${bundleSha256}`));
  for (const s of siblings) {
    if (typeof s !== "string" || !BYTES32_HEX.test(s)) return false;
    node = nodeBytes(node, hexToBytes(s as Hex));
  }
  return bytesToHex(node) === root;
}
