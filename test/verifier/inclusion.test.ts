/**
 * The verifier's inclusion half: proofs from generated trees (built here from docs/ATTESTATIONS.md's
 * rules, apart from the verifier's code) fold to their roots; a changed sibling, leaf, root or bundle
 * hash is refused; the root is read as EvidenceRoots.rootOf(day) through a JSON-RPC stand-in that
 * decodes the call the way the contract's ABI does.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeFunctionData, encodeAbiParameters, keccak256, parseAbi, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyInclusion } from "../../verifier/src/inclusion.ts";
import { seeded } from "./rig";

const cat = (...parts: Array<Uint8Array>) => Buffer.concat(parts);
const h2b = (h: string) => Buffer.from(h.replace(/^0x/, ""), "hex");
const leaf = (bundleSha256: string): Hex => keccak256(cat(Buffer.from([0]), h2b(bundleSha256)));
const inner = (a: Hex, b: Hex): Hex => keccak256(cat(Buffer.from([1]), h2b(a < b ? a : b), h2b(a < b ? b : a)));

/** A day's tree: leaves sorted and deduplicated, odd nodes carried up; each leaf's siblings. */
function tree(bundleHashes: string[]): { root: Hex; proofOf: (h: string) => Hex[] } {
  let level = [...new Set(bundleHashes.map(leaf))].sort();
  const levels: Hex[][] = [level];
  while (level.length > 1) {
    const next: Hex[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? inner(level[i], level[i + 1]) : level[i]);
    levels.push((level = next));
  }
  return {
    root: level[0],
    proofOf(h) {
      const out: Hex[] = [];
      let i = levels[0].indexOf(leaf(h));
      for (const l of levels.slice(0, -1)) {
        const j = i ^ 1;
        if (j < l.length) out.push(l[j]);
        i >>= 1;
      }
      return out;
    },
  };
}

const DAY = 20427;
const proofFor = (t: ReturnType<typeof tree>, h: string, chain?: { network: string; contract: Hex }) => ({ _type: "tollgate.inclusion-proof/1", bundleSha256: h, day: DAY, leaf: leaf(h), siblings: t.proofOf(h), root: t.root, ...(chain ? { chain: { ...chain, transaction: `0x${"ab".repeat(32)}` } } : {}) });

function hashes(n: number, seed: number): string[] {
  const rand = seeded(seed);
  return Array.from({ length: n }, () => createHash("sha256").update(String(rand())).digest("hex"));
}

describe("inclusion proofs from generated trees", () => {
  it("every leaf of trees of 1 to 40 leaves, and of 1,000, folds to its root", async () => {
    let checked = 0;
    for (const n of [...Array.from({ length: 40 }, (_, i) => i + 1), 1000]) {
      const hs = hashes(n, n);
      const t = tree([...hs, ...hs.slice(0, 3)]); // duplicates are removed
      for (const h of n === 1000 ? hs.filter((_, i) => i % 37 === 0) : hs) {
        const r = await verifyInclusion(proofFor(t, h), h);
        expect(r.ok, r.detail).toBe(true);
        checked++;
      }
      if (n === 1) expect(t.root).toBe(leaf(hs[0]));
    }
    expect(checked).toBeGreaterThan(800);
  });

  it("refuses a changed sibling, a dropped sibling, another leaf's proof, another root, another bundle", async () => {
    const hs = hashes(13, 5);
    const t = tree(hs);
    const p = proofFor(t, hs[4]);
    const cases: Array<[unknown, string, RegExp]> = [
      [{ ...p, siblings: p.siblings.map((s, i) => (i === 1 ? (`0x${"00".repeat(31)}01` as Hex) : s)) }, hs[4], /siblings fold to/],
      [{ ...p, siblings: p.siblings.slice(0, -1) }, hs[4], /siblings fold to/],
      [proofFor(t, hs[5]), hs[4], /is not the attested bundle's/],
      [{ ...proofFor(t, hs[5]), bundleSha256: hs[4] }, hs[4], /is not keccak256/],
      [{ ...p, root: tree(hashes(13, 6)).root }, hs[4], /siblings fold to/],
      [{ ...p, leaf: "0x12" }, hs[4], /\/leaf: must be 32 bytes/],
      [{ ...p, _type: "tollgate.inclusion-proof/2" }, hs[4], /\/_type/],
      [p, hashes(1, 99)[0], /is not the attested bundle's/],
    ];
    for (const [proof, h, message] of cases) {
      const r = await verifyInclusion(proof, h);
      expect(r.code).toBe("inclusion");
      expect(r.detail).toMatch(message);
    }
  });
});

describe("the root, read from EvidenceRoots.rootOf(day)", () => {
  const ABI = parseAbi(["function rootOf(uint32 day) view returns (bytes32)"]);
  const CONTRACT = `0x${"5e".repeat(20)}` as Hex;
  const roots = new Map<number, Hex>();
  const calls: Array<{ to: string; day: number }> = [];
  let server: Server;
  let rpc: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const msgs = JSON.parse(body);
        const answer = (m: { id: number; method: string; params: Array<{ to: string; data: Hex }> }) => {
          if (m.method === "eth_chainId") return { jsonrpc: "2.0", id: m.id, result: "0x14a34" }; // 84532
          if (m.method === "eth_call") {
            const { functionName, args } = decodeFunctionData({ abi: ABI, data: m.params[0].data });
            const day = Number(args[0]);
            calls.push({ to: m.params[0].to.toLowerCase(), day });
            const root = m.params[0].to.toLowerCase() === CONTRACT && functionName === "rootOf" ? (roots.get(day) ?? `0x${"00".repeat(32)}`) : `0x${"00".repeat(32)}`;
            return { jsonrpc: "2.0", id: m.id, result: encodeAbiParameters([{ type: "bytes32" }], [root as Hex]) };
          }
          return { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "method not found" } };
        };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(Array.isArray(msgs) ? msgs.map(answer) : answer(msgs)));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    rpc = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("passes when the day's published root is the proof's, and says which contract, day and chain it read", async () => {
    const hs = hashes(9, 1);
    const t = tree(hs);
    roots.set(DAY, t.root);
    const r = await verifyInclusion(proofFor(t, hs[2], { network: "eip155:84532", contract: CONTRACT }), hs[2], { rpc });
    expect(r.ok, r.detail).toBe(true);
    expect(r.checks.at(-1)!.detail).toBe(`rootOf(${DAY}) at ${CONTRACT} on eip155:84532 is ${t.root}`);
    expect(calls.at(-1)).toEqual({ to: CONTRACT, day: DAY });
  });

  it("refuses another published root, an unpublished day, another chain, and says when the RPC is down", async () => {
    const hs = hashes(9, 2);
    const t = tree(hs);
    roots.set(DAY, tree(hashes(9, 3)).root);
    const chain = { network: "eip155:84532", contract: CONTRACT };
    let r = await verifyInclusion(proofFor(t, hs[0], chain), hs[0], { rpc });
    expect([r.code, r.detail]).toEqual(["inclusion", expect.stringMatching(/rootOf\(20427\) is 0x[0-9a-f]{64}, the proof folds to/)]);
    r = await verifyInclusion({ ...proofFor(t, hs[0], chain), day: DAY + 1 }, hs[0], { rpc });
    // The day is not in the leaf: the proof folds, but nothing was published for day + 1.
    expect([r.code, r.detail]).toEqual(["inclusion", expect.stringMatching(/no root is published for day 20428/)]);
    r = await verifyInclusion(proofFor(t, hs[0], { ...chain, network: "eip155:8453" }), hs[0], { rpc });
    expect([r.code, r.detail]).toEqual(["inclusion", "the RPC is chain eip155:84532, the proof names eip155:8453"]);
    r = await verifyInclusion(proofFor(t, hs[0], chain), hs[0], { rpc: "http://127.0.0.1:9" });
    expect(r.code).toBe("rpc");
    r = await verifyInclusion(proofFor(t, hs[0]), hs[0]);
    expect(r.ok).toBe(true);
    expect(r.checks.at(-1)!.status).toBe("skipped");
  });
});
