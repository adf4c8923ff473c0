/**
 * The inclusion half: a bundle's proof folds to its day's root (./merkle.ts), and, given an RPC, that
 * root is what EvidenceRoots.rootOf(day) returns on the proof's chain (./chain.ts). viem is loaded
 * only here, so verifying without a proof never loads it.
 */
import type { Check, Code } from "./verify.ts";

export interface InclusionResult {
  ok: boolean;
  code: Code;
  detail: string;
  checks: Check[];
}

export async function verifyInclusion(proof: unknown, bundleSha256: string, opts: { rpc?: string; contract?: string } = {}): Promise<InclusionResult> {
  const checks: Check[] = [];
  const fail = (code: Code, name: string, detail: string): InclusionResult => (checks.push({ name, status: "fail", detail }), { ok: false, code, detail, checks });
  const { proofProblems } = await import("./merkle.ts");
  const p = proof as import("./merkle.ts").InclusionProof;
  const problems = proofProblems(p, bundleSha256);
  if (problems.length) return fail("inclusion", "proof", problems.join("; "));
  checks.push({ name: "proof", status: "pass", detail: `leaf folds to root ${p.root} of day ${p.day} (${p.siblings.length} siblings)` });
  if (!opts.rpc) {
    checks.push({ name: "root_on_chain", status: "skipped", detail: "no --rpc: the root was not read from the chain" });
    return { ok: true, code: "ok", detail: `proof folds to ${p.root}; root not checked on chain`, checks };
  }
  const contract = (opts.contract ?? p.chain?.contract ?? "").toLowerCase();
  if (!/^0x[0-9a-f]{40}$/.test(contract)) return fail("inclusion", "root_on_chain", "no EvidenceRoots contract address (the proof's /chain/contract or --contract)");
  const { readRoot } = await import("./chain.ts");
  let read: { chainId: number; root: string };
  try {
    read = await readRoot(opts.rpc, contract as `0x${string}`, p.day);
  } catch (e) {
    return fail("rpc", "root_on_chain", `the RPC did not answer rootOf(${p.day}): ${(e as Error).message.split("\n")[0]}`);
  }
  const network = p.chain?.network;
  if (network && network !== `eip155:${read.chainId}`) return fail("inclusion", "root_on_chain", `the RPC is chain eip155:${read.chainId}, the proof names ${network}`);
  if (/^0x0{64}$/.test(read.root)) return fail("inclusion", "root_on_chain", `no root is published for day ${p.day} at ${contract}`);
  if (read.root !== p.root.toLowerCase()) return fail("inclusion", "root_on_chain", `rootOf(${p.day}) is ${read.root}, the proof folds to ${p.root}`);
  checks.push({ name: "root_on_chain", status: "pass", detail: `rootOf(${p.day}) at ${contract} on eip155:${read.chainId} is ${read.root}` });
  return { ok: true, code: "ok", detail: `included in day ${p.day}'s root, published on eip155:${read.chainId}`, checks };
}
