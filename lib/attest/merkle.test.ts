/** The daily root's tree against the doc's rules, written out a second way (recursive, over hex strings), and its proofs under tampering. */
import { createHash } from "node:crypto";
import { concat, keccak256, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { buildTree, leafOf, MerkleInputError, nodeOf, verifyInclusion } from "./merkle";

/** A seeded generator, so a failure names a case that can be run again. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const hashes = (n: number, seed: number) => Array.from({ length: n }, (_, i) => sha(`bundle ${seed}/${i}`));

/** The doc's rules, literally: sort the leaves, pair left to right, carry an odd one up. */
function referenceRoot(bundles: string[]): Hex {
  let level = [...new Set(bundles.map((b) => keccak256(concat(["0x00", `0x${b}`]))))].sort();
  while (level.length > 1) {
    const next: Hex[] = [];
    for (let i = 0; i < level.length; i += 2) {
      if (i + 1 === level.length) next.push(level[i]);
      else {
        const [a, b] = [level[i], level[i + 1]].sort();
        next.push(keccak256(concat(["0x01", a, b])));
      }
    }
    level = next;
  }
  return level[0];
}

function flipBit(h: string, bit: number): Hex {
  const digits = h.slice(2).split("");
  const at = Math.floor(bit / 4) % 64;
  digits[at] = (parseInt(digits[at], 16) ^ (1 << (bit % 4))).toString(16);
  return `0x${digits.join("")}`;
}

describe("the daily root's tree", () => {
  it("one leaf is its own root, with no siblings", () => {
    const h = sha("only");
    const t = buildTree([h]);
    expect(t.root).toBe(leafOf(h));
    expect(t.root).toBe(keccak256(concat(["0x00", `0x${h}`])));
    expect(t.proof(h)).toEqual({ leaf: t.root, siblings: [] });
    expect(verifyInclusion(h, [], t.root)).toBe(true);
  });

  it("two leaves: keccak256(0x01 ‖ min ‖ max) in either input order", () => {
    const [a, b] = [sha("a"), sha("b")];
    const [la, lb] = [leafOf(a), leafOf(b)];
    const expected = keccak256(concat(["0x01", ...[la, lb].sort()] as Hex[]));
    expect(buildTree([a, b]).root).toBe(expected);
    expect(buildTree([b, a]).root).toBe(expected);
    expect(nodeOf(la, lb)).toBe(nodeOf(lb, la));
  });

  it("three leaves: the third (after sorting) is carried up and its proof has one sibling", () => {
    const bundles = [sha("a"), sha("b"), sha("c")];
    const t = buildTree(bundles);
    const sorted = bundles.map(leafOf).sort();
    expect(t.leaves).toEqual(sorted);
    expect(t.root).toBe(nodeOf(nodeOf(sorted[0], sorted[1]), sorted[2]));
    expect(t.proofAt(2).siblings).toEqual([nodeOf(sorted[0], sorted[1])]);
    expect(t.root).toBe(referenceRoot(bundles));
  });

  it("duplicates are removed and input order does not matter", () => {
    const bundles = hashes(9, 1);
    const t = buildTree(bundles);
    const shuffled = [...bundles, bundles[3], bundles[0]].reverse();
    const u = buildTree(shuffled);
    expect(u.root).toBe(t.root);
    expect(u.leaves).toHaveLength(9);
  });

  it("for 1..130 leaves and some larger counts: the root matches the reference and every leaf's proof verifies", () => {
    for (const n of [...Array.from({ length: 130 }, (_, i) => i + 1), 255, 256, 257, 1000, 1023, 1025]) {
      const bundles = hashes(n, n);
      const t = buildTree(bundles);
      expect(t.root, `n=${n}`).toBe(referenceRoot(bundles));
      expect(t.leaves).toHaveLength(n);
      for (const b of bundles) {
        const p = t.proof(b)!;
        expect(p.leaf).toBe(leafOf(b));
        expect(p.siblings.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
        expect(verifyInclusion(b, p.siblings, t.root), `n=${n} ${b}`).toBe(true);
      }
    }
  });

  it("a changed bundle hash, a changed or dropped or added sibling, another day's root: every one fails", () => {
    const rand = prng(42);
    for (let round = 0; round < 300; round++) {
      const n = 2 + Math.floor(rand() * 200);
      const bundles = hashes(n, 1000 + round);
      const t = buildTree(bundles);
      const b = bundles[Math.floor(rand() * n)];
      const p = t.proof(b)!;
      expect(p.siblings.length).toBeGreaterThan(0);
      // Another bundle hash, in the tree or not, with this path.
      const other = rand() < 0.5 ? sha(`not in the tree ${round}`) : bundles.find((x) => x !== b)!;
      expect(verifyInclusion(other, p.siblings, t.root)).toBe(false);
      // One bit of the bundle hash.
      const flipped = flipBit(`0x${b}`, Math.floor(rand() * 256)).slice(2);
      expect(verifyInclusion(flipped, p.siblings, t.root)).toBe(false);
      // One bit of one sibling.
      const k = Math.floor(rand() * p.siblings.length);
      const tampered = p.siblings.map((s, i) => (i === k ? flipBit(s, Math.floor(rand() * 256)) : s));
      expect(verifyInclusion(b, tampered, t.root)).toBe(false);
      // A sibling dropped, or one too many.
      expect(verifyInclusion(b, p.siblings.slice(0, -1), t.root)).toBe(false);
      expect(verifyInclusion(b, [...p.siblings, p.siblings[0]], t.root)).toBe(false);
      // The right path against another tree's root.
      expect(verifyInclusion(b, p.siblings, buildTree([...bundles, sha(`late ${round}`)]).root)).toBe(false);
    }
  });

  it("a bundle that is not in the tree has no proof", () => {
    const t = buildTree(hashes(5, 7));
    expect(t.proof(sha("absent"))).toBeNull();
  });

  it("an inner node cannot pass for a leaf (the 0x00/0x01 prefixes)", () => {
    const bundles = hashes(4, 3);
    const t = buildTree(bundles);
    const p = t.proofAt(0);
    // The level-1 node over leaves 0 and 1, offered as if it were a bundle's "hash".
    const inner = nodeOf(t.leaves[0], t.leaves[1]).slice(2);
    expect(verifyInclusion(inner, p.siblings.slice(1), t.root)).toBe(false);
  });

  it("malformed input: a tree refuses it naming the item; verification answers false", () => {
    expect(() => buildTree([])).toThrow(MerkleInputError);
    expect(() => buildTree([sha("a"), sha("b").toUpperCase()])).toThrow(/item 1/);
    expect(() => buildTree([`0x${sha("a")}`])).toThrow(/64 lowercase hex digits \(item 0\)/);
    const h = sha("a");
    const t = buildTree([h, sha("b")]);
    const p = t.proof(h)!;
    expect(verifyInclusion(h.toUpperCase(), p.siblings, t.root)).toBe(false);
    expect(verifyInclusion(h, p.siblings, t.root.toUpperCase())).toBe(false);
    expect(verifyInclusion(h, ["0x1234"], t.root)).toBe(false);
    expect(verifyInclusion(h, null as unknown as string[], t.root)).toBe(false);
  });
});
