/**
 * The receipts document served beside a format-2 evidence bundle (docs/ATTESTATIONS.md "The receipts"):
 * one entry per observation with a receipt, each entry's hash a leaf of a SHA-256 Merkle tree whose
 * root the bundle carries. Pure; the standalone verifier re-implements the same rules.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../badges/canonical-json";

export const RECEIPTS_TYPE = "tollgate.evidence-receipts/1";

/** One observation's receipt: the bundle row it sits in and its check. */
export interface ReceiptEntry {
  row: number;
  check: string;
  receipt: Record<string, unknown>;
}

export interface ReceiptsDocument {
  _type: typeof RECEIPTS_TYPE;
  endpointId: string;
  /** Lowercase hex Merkle root of the entries, in order. */
  root: string;
  receipts: ReceiptEntry[];
}

const sha = (...parts: Buffer[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Leaf: SHA-256(0x00 ‖ the entry's canonical JSON). */
export const receiptLeaf = (e: ReceiptEntry): Buffer => sha(Buffer.from([0]), Buffer.from(canonicalJson(e), "utf8"));

/** Root over leaves in entry order: inner SHA-256(0x01 ‖ left ‖ right), an odd node carried up; no leaves: SHA-256 of nothing. */
export function receiptsRootOf(leaves: Buffer[]): string {
  if (leaves.length === 0) return sha().toString("hex");
  let level = leaves;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha(Buffer.from([1]), level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return level[0].toString("hex");
}

export interface ReceiptProof {
  index: number;
  leaves: number;
  /** Sibling hashes from the leaf up, each with the side it sits on. */
  path: Array<{ side: "left" | "right"; hash: string }>;
}

/** The path from entry `index` to the root (a level where it is the odd node out adds nothing). */
export function receiptProof(entries: ReceiptEntry[], index: number): ReceiptProof {
  if (!Number.isSafeInteger(index) || index < 0 || index >= entries.length) throw new RangeError(`no receipt entry ${index} (of ${entries.length})`);
  let level = entries.map(receiptLeaf);
  let i = index;
  const path: ReceiptProof["path"] = [];
  while (level.length > 1) {
    const sib = i % 2 === 0 ? i + 1 : i - 1;
    if (sib < level.length) path.push({ side: i % 2 === 0 ? "right" : "left", hash: level[sib].toString("hex") });
    const next: Buffer[] = [];
    for (let k = 0; k < level.length; k += 2) next.push(k + 1 < level.length ? sha(Buffer.from([1]), level[k], level[k + 1]) : level[k]);
    level = next;
    i = Math.floor(i / 2);
  }
  return { index, leaves: entries.length, path };
}

/** Folds an entry up its proof: true when it lands on `root`. */
export function verifyReceiptProof(entry: ReceiptEntry, proof: ReceiptProof, root: string): boolean {
  let h = receiptLeaf(entry);
  for (const s of proof.path) {
    const other = Buffer.from(s.hash, "hex");
    h = s.side === "left" ? sha(Buffer.from([1]), other, h) : sha(Buffer.from([1]), h, other);
  }
  return h.toString("hex") === root;
}

export function receiptsDocument(endpointId: string, entries: ReceiptEntry[]): ReceiptsDocument {
  return { _type: RECEIPTS_TYPE, endpointId, root: receiptsRootOf(entries.map(receiptLeaf)), receipts: entries };
}
