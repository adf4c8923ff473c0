/**
 * The receipts document's Merkle root (docs/ATTESTATIONS.md "The receipts"): leaf SHA-256(0x00 ‖ the
 * entry's canonical JSON), inner SHA-256(0x01 ‖ left ‖ right) in entry order, an odd node carried up;
 * no entries: SHA-256 of nothing. node:crypto only.
 */
import { createHash } from "node:crypto";
import { canonicalize } from "./jcs.ts";

const sha = (...parts: Buffer[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};

export function receiptsRoot(entries: unknown[]): string {
  if (entries.length === 0) return sha().toString("hex");
  let level: Buffer[] = entries.map((e) => sha(Buffer.from([0]), Buffer.from(canonicalize(e), "utf8")));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha(Buffer.from([1]), level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return level[0].toString("hex");
}
