/**
 * The daily root on a real anvil and database: published once in one transaction and read back,
 * re-runs that send nothing, crashes around the send reconciled from the chain, a foreign root
 * recorded as a conflict, the contract's owner-only and write-once rules, and the inclusion proofs.
 */
import { createHash } from "node:crypto";
import { formatAbiItem } from "viem/utils";
import { getAddress, type Abi, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { EVIDENCE_ROOTS_ARTIFACT_DATA, evidenceRootsAddress, LOCAL_EVIDENCE_ROOTS_OWNER } from "@/devchain/evidence-roots-local";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { parseEnv } from "@/lib/env";
import { isAppError } from "@/lib/errors";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { DAILY_ROOT_LOCK_KEY, DAY_MS, dayInclusionProofs, inclusionProof, publishDay, publishDueRoots, type DayHashes } from "./daily-root";
import { EVIDENCE_ROOTS_ABI, LOCAL_EVIDENCE_ROOTS_ADDRESS, rootsTarget } from "./evidence-roots";
import { buildTree, verifyInclusion } from "./merkle";
import { createRootChain, type RootChain } from "./root-chain";

let node: AnvilNode;
let local: LocalChain;
let db: TestDatabase;
let chain: RootChain;
const contract = LOCAL_EVIDENCE_ROOTS_ADDRESS;

beforeAll(async () => {
  [node, db] = await Promise.all([startAnvil(), createTestDatabase()]);
  local = await setupLocalChain(node.rpcUrl);
  chain = createRootChain({ network: LOCAL_NETWORK, contract, rpcUrl: node.rpcUrl, key: LOCAL_DEV_KEYS[9] });
});
afterAll(async () => {
  await Promise.all([node?.stop(), db?.close()]);
});

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const bundlesOf = (day: number, n: number) => Array.from({ length: n }, (_, i) => sha(`day ${day} bundle ${i}`));
/** Days far apart, so each test's catch-up window (7 days) holds only its own. */
const dayAt = (k: number) => 20_000 + k * 10;
const afterDay = (day: number) => new Date((day + 1) * DAY_MS + 10 * 60_000);
const hashesFor = (days: Record<number, string[]>): DayHashes => async (day) => days[day] ?? [];

/** A RootChain that counts what it is asked, and can fail on cue. */
function counting(base: RootChain, faults: { afterSend?: () => never; outcome?: () => never } = {}) {
  const calls = { send: 0, rootOf: 0, publication: 0 };
  const c: RootChain = {
    ...base,
    rootOf: (d) => (calls.rootOf++, base.rootOf(d)),
    publication: (d) => (calls.publication++, base.publication(d)),
    async send(d, r, l) {
      calls.send++;
      const hash = await base.send(d, r, l);
      if (faults.afterSend) faults.afterSend();
      return hash;
    },
    outcome: (h, t) => (faults.outcome ? faults.outcome() : base.outcome(h, t)),
  };
  return { chain: c, calls };
}

const rowOf = async (day: number) => (await db.query<Record<string, unknown>>(`SELECT * FROM "evidence_roots" WHERE "day" = $1`, [day]))[0];
const eventsOf = (day: number) => local.publicClient.getContractEvents({ address: contract, abi: EVIDENCE_ROOTS_ABI, eventName: "RootPublished", args: { day }, fromBlock: "earliest" });
const rootOnChain = (day: number) => local.publicClient.readContract({ address: contract, abi: EVIDENCE_ROOTS_ABI, functionName: "rootOf", args: [day] });

async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (isAppError(e)) return { code: e.code, status: e.status, message: e.message };
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("EvidenceRoots on the local chain", () => {
  it("sits at the constant address the app reads, owned by the facilitator's signer, and the ABI matches the artefact", async () => {
    expect(evidenceRootsAddress()).toBe(LOCAL_EVIDENCE_ROOTS_ADDRESS);
    expect(getAddress(LOCAL_EVIDENCE_ROOTS_OWNER)).toBe(local.accounts[9].address);
    expect(await local.publicClient.readContract({ address: contract, abi: EVIDENCE_ROOTS_ABI, functionName: "owner" })).toBe(local.accounts[9].address);
    const sig = (i: unknown) => formatAbiItem(i as Abi[number]);
    const named = (i: { type: string }) => ["function", "event", "error"].includes(i.type);
    const artefact = new Set((EVIDENCE_ROOTS_ARTIFACT_DATA.abi as { type: string }[]).filter(named).map(sig));
    for (const item of EVIDENCE_ROOTS_ABI.filter(named)) expect(artefact, sig(item)).toContain(sig(item));
    // A second setup of the same chain keeps it (no second deployment, same address).
    await setupLocalChain(node.rpcUrl);
    expect(await local.publicClient.getCode({ address: contract })).toBe(EVIDENCE_ROOTS_ARTIFACT_DATA.deployedBytecode);
  });

  it("the demo's configuration publishes there with the facilitator's key, sharing its send queue", () => {
    const t = rootsTarget({ evidenceRoots: {}, rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: node.rpcUrl, TOLLGATE_FACILITATOR_KEY: LOCAL_DEV_KEYS[9], TOLLGATE_EVIDENCE_ROOTS_KEY: undefined });
    expect(t).toEqual({ network: LOCAL_NETWORK, contract: contract.toLowerCase(), rpcUrl: node.rpcUrl, key: LOCAL_DEV_KEYS[9], facilitatorSigner: true });
    const base = "0x1111111111111111111111111111111111111111";
    expect(rootsTarget({ evidenceRoots: { "eip155:84532": base }, rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: undefined, TOLLGATE_FACILITATOR_KEY: LOCAL_DEV_KEYS[9], TOLLGATE_EVIDENCE_ROOTS_KEY: undefined })).toEqual({
      unconfigured: "no RPC URL for eip155:84532: set TOLLGATE_RPC_URL_eip155_84532",
    });
    expect(rootsTarget({ evidenceRoots: { "eip155:84532": base }, rpcUrls: { "eip155:84532": "https://rpc.example" }, TOLLGATE_CHAIN_RPC_URL: node.rpcUrl, TOLLGATE_FACILITATOR_KEY: LOCAL_DEV_KEYS[9], TOLLGATE_EVIDENCE_ROOTS_KEY: LOCAL_DEV_KEYS[3] })).toMatchObject({
      network: "eip155:84532",
      contract: base,
      key: LOCAL_DEV_KEYS[3],
      facilitatorSigner: false,
    });
    expect(rootsTarget({ evidenceRoots: {}, rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: undefined, TOLLGATE_FACILITATOR_KEY: undefined, TOLLGATE_EVIDENCE_ROOTS_KEY: undefined })).toHaveProperty("unconfigured");
  });

  it("TOLLGATE_EVIDENCE_ROOTS_<network> names the contract of one network; a malformed one stops start-up naming it", () => {
    const a = "0x1111111111111111111111111111111111111111";
    expect(parseEnv({ TOLLGATE_EVIDENCE_ROOTS_eip155_84532: a, TOLLGATE_EVIDENCE_ROOTS_KEY: LOCAL_DEV_KEYS[3] })).toMatchObject({ evidenceRoots: { "eip155:84532": a }, TOLLGATE_EVIDENCE_ROOTS_KEY: LOCAL_DEV_KEYS[3] });
    expect(parseEnv({}).evidenceRoots).toEqual({});
    expect(() => parseEnv({ TOLLGATE_EVIDENCE_ROOTS_eip155_84532: a, TOLLGATE_EVIDENCE_ROOTS_eip155_8453: a })).toThrow(/TOLLGATE_EVIDENCE_ROOTS_eip155_8453 names a second network/);
    expect(() => parseEnv({ TOLLGATE_EVIDENCE_ROOTS_eip155_84532: "0x1234" })).toThrow(/TOLLGATE_EVIDENCE_ROOTS_eip155_84532 must be the EvidenceRoots contract's/);
    expect(() => parseEnv({ TOLLGATE_EVIDENCE_ROOTS_BASE: a })).toThrow(/must name a CAIP-2 network/);
    expect(() => parseEnv({ TOLLGATE_EVIDENCE_ROOTS_KEY: "0x12" })).toThrow(/TOLLGATE_EVIDENCE_ROOTS_KEY/);
  });

  it("only the owner may publish", async () => {
    const stranger = createRootChain({ network: LOCAL_NETWORK, contract, rpcUrl: node.rpcUrl, key: LOCAL_DEV_KEYS[1] });
    await expect(stranger.send(dayAt(90), `0x${"ab".repeat(32)}`, 3)).rejects.toThrow(/OwnableUnauthorizedAccount/);
    expect(await rootOnChain(dayAt(90))).toBe(`0x${"00".repeat(32)}`);
  });

  it("a day is written once: a second publish reverts with DayAlreadyPublished; a zero root or no leaves with EmptyRoot", async () => {
    const day = dayAt(91);
    const hash = await chain.send(day, `0x${"cd".repeat(32)}`, 2);
    expect(await chain.outcome(hash)).toBe("success");
    await expect(chain.send(day, `0x${"ef".repeat(32)}`, 2)).rejects.toThrow(/DayAlreadyPublished/);
    await expect(chain.send(dayAt(92), `0x${"00".repeat(32)}`, 2)).rejects.toThrow(/EmptyRoot/);
    await expect(chain.send(dayAt(92), `0x${"cd".repeat(32)}`, 0)).rejects.toThrow(/EmptyRoot/);
    expect(await chain.rootOf(day)).toBe(`0x${"cd".repeat(32)}`);
  });
});

describe("publishDueRoots", () => {
  it("publishes the previous UTC day's root in one transaction and records it; a re-run reads and sends nothing", async () => {
    const day = dayAt(1);
    const bundles = bundlesOf(day, 37);
    const tree = buildTree(bundles);
    const { chain: c, calls } = counting(chain);
    // Before the day is over (and its grace has passed), nothing is due.
    expect((await publishDueRoots({ chain: c, dayHashes: hashesFor({ [day]: bundles }), now: new Date((day + 1) * DAY_MS + 60_000) })).days.filter((d) => d.day === day)).toEqual([]);
    const run = await publishDueRoots({ chain: c, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) });
    expect(run.leader).toBe(true);
    const mine = run.days.find((d) => d.day === day)!;
    expect(mine).toMatchObject({ outcome: "published", sent: true, root: tree.root, leaves: 37 });
    expect(run.days.filter((d) => d.day !== day).every((d) => d.outcome === "empty")).toBe(true);
    expect(calls.send).toBe(1);
    expect(await rootOnChain(day)).toBe(tree.root);
    expect(await local.publicClient.readContract({ address: contract, abi: EVIDENCE_ROOTS_ABI, functionName: "leavesOf", args: [day] })).toBe(37);
    const receipt = await local.publicClient.getTransactionReceipt({ hash: mine.transaction! });
    expect(receipt.to?.toLowerCase()).toBe(contract.toLowerCase());
    expect(receipt.from.toLowerCase()).toBe(LOCAL_EVIDENCE_ROOTS_OWNER.toLowerCase());
    expect(await rowOf(day)).toMatchObject({ day, root: tree.root, leaves: 37, network: LOCAL_NETWORK, contract: contract.toLowerCase(), status: "published", transaction: mine.transaction, chainRoot: null });
    expect((await db.query(`SELECT count(*)::int AS n FROM "evidence_root_leaves" WHERE "day" = $1`, [day]))[0]).toEqual({ n: 37 });

    // Again, and again a day later: the published day is neither read nor sent.
    const again = counting(chain);
    await publishDueRoots({ chain: again.chain, dayHashes: hashesFor({ [day]: [...bundles, sha("late")] }), now: afterDay(day) });
    await publishDueRoots({ chain: again.chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day + 1) });
    expect(again.calls).toEqual({ send: 0, rootOf: 0, publication: 0 });
    expect(await publishDay(day, again.chain, hashesFor({}), db)).toMatchObject({ outcome: "already", sent: false });
    expect(await eventsOf(day)).toHaveLength(1);
  });

  it("a day without bundles writes nothing", async () => {
    const day = dayAt(2);
    const run = await publishDueRoots({ chain, dayHashes: hashesFor({}), now: afterDay(day) });
    expect(run.days.map((d) => d.outcome)).toEqual(Array(7).fill("empty"));
    expect(await rowOf(day)).toBeUndefined();
  });

  it("two runs at once: one leader, one transaction", async () => {
    const day = dayAt(3);
    const bundles = bundlesOf(day, 5);
    const { chain: c, calls } = counting(chain);
    const runs = await Promise.all([1, 2, 3].map(() => publishDueRoots({ chain: c, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) })));
    expect(runs.filter((r) => r.leader)).toHaveLength(1);
    expect(calls.send).toBe(1);
    expect(await eventsOf(day)).toHaveLength(1);
  });

  it.runIf(!!process.env.TEST_DATABASE_URL)("another process holding the leader lock: this one reads and sends nothing", async () => {
    const day = dayAt(10);
    const { chain: c, calls } = counting(chain);
    await db.session(async (conn) => {
      await conn.query("SELECT pg_advisory_lock($1, hashtext(current_schema()))", [DAILY_ROOT_LOCK_KEY]);
      try {
        expect(await publishDueRoots({ chain: c, dayHashes: hashesFor({ [day]: bundlesOf(day, 2) }), now: afterDay(day) })).toEqual({ leader: false, days: [] });
      } finally {
        await conn.query("SELECT pg_advisory_unlock($1, hashtext(current_schema()))", [DAILY_ROOT_LOCK_KEY]);
      }
    });
    expect(calls).toEqual({ send: 0, rootOf: 0, publication: 0 });
    expect(await rowOf(day)).toBeUndefined();
  });

  it("a crash after the node accepted the send but before its hash was recorded: the next run finds the root on chain and its event, and sends nothing", async () => {
    const day = dayAt(4);
    const bundles = bundlesOf(day, 12);
    const tree = buildTree(bundles);
    const crash = counting(chain, {
      afterSend: () => {
        throw new Error("process killed");
      },
    });
    await expect(publishDueRoots({ chain: crash.chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) })).rejects.toThrow("process killed");
    expect(await rowOf(day)).toMatchObject({ status: "sending", transaction: null, root: tree.root });
    expect(await rootOnChain(day)).toBe(tree.root);

    const next = counting(chain);
    const run = await publishDueRoots({ chain: next.chain, dayHashes: hashesFor({ [day]: [...bundles, sha("written after the crash")] }), now: afterDay(day) });
    const events = await eventsOf(day);
    expect(events).toHaveLength(1);
    expect(run.days.find((d) => d.day === day)).toMatchObject({ outcome: "published", sent: false, root: tree.root, transaction: events[0].transactionHash });
    expect(next.calls.send).toBe(0);
    expect(await rowOf(day)).toMatchObject({ status: "published", transaction: events[0].transactionHash, leaves: 12 });
  });

  it("a crash after the hash was recorded, before the receipt: the next run confirms that transaction", async () => {
    const day = dayAt(5);
    const bundles = bundlesOf(day, 3);
    const crash = counting(chain, {
      outcome: () => {
        throw new Error("process killed");
      },
    });
    await expect(publishDueRoots({ chain: crash.chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) })).rejects.toThrow("process killed");
    const sent = await rowOf(day);
    expect(sent).toMatchObject({ status: "sent" });
    const next = counting(chain);
    const run = await publishDueRoots({ chain: next.chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) });
    expect(run.days.find((d) => d.day === day)).toMatchObject({ outcome: "published", sent: false, transaction: sent.transaction });
    expect(next.calls).toMatchObject({ send: 0, publication: 0 });
    expect(await eventsOf(day)).toHaveLength(1);
  });

  it("a row written before a send that is still in the node's pool waits for it instead of sending a second", async () => {
    const day = dayAt(6);
    const bundles = bundlesOf(day, 4);
    const tree = buildTree(bundles);
    await local.publicClient.request({ method: "evm_setAutomine" as never, params: [false] as never });
    try {
      const crash = counting(chain, {
        afterSend: () => {
          throw new Error("process killed");
        },
      });
      await expect(publishDueRoots({ chain: crash.chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) })).rejects.toThrow("process killed");
      const next = counting(chain);
      const run = await publishDueRoots({ chain: next.chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) });
      expect(run.days.find((d) => d.day === day)).toMatchObject({ outcome: "pending", sent: false });
      expect(next.calls.send).toBe(0);
    } finally {
      await local.publicClient.request({ method: "evm_setAutomine" as never, params: [true] as never });
      await local.publicClient.request({ method: "evm_mine" as never, params: [] as never });
    }
    const run = await publishDueRoots({ chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) });
    expect(run.days.find((d) => d.day === day)).toMatchObject({ outcome: "published", sent: false, root: tree.root });
    expect(await eventsOf(day)).toHaveLength(1);
  });

  it("a root someone else wrote for the day is recorded as a conflict, never overwritten nor proved against", async () => {
    const day = dayAt(7);
    const foreign = `0x${"77".repeat(32)}` as Hex;
    await chain.outcome(await chain.send(day, foreign, 9));
    const bundles = bundlesOf(day, 6);
    const { chain: c, calls } = counting(chain);
    const run = await publishDueRoots({ chain: c, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) });
    expect(run.days.find((d) => d.day === day)).toMatchObject({ outcome: "conflict", sent: false });
    expect(calls.send).toBe(0);
    expect(await rowOf(day)).toMatchObject({ status: "conflict", chainRoot: foreign, root: buildTree(bundles).root });
    expect(await refusal(inclusionProof(bundles[0], day))).toMatchObject({ code: "root_not_published", status: 404 });
    expect(await rootOnChain(day)).toBe(foreign);
  });
});

describe("inclusion proofs", () => {
  it("every bundle of a published day gets a proof that verifies against the root rootOf(day) returns", async () => {
    const day = dayAt(8);
    const bundles = bundlesOf(day, 21);
    await publishDueRoots({ chain, dayHashes: hashesFor({ [day]: bundles }), now: afterDay(day) });
    const onChain = await rootOnChain(day);
    const row = await rowOf(day);
    const all = await dayInclusionProofs(day);
    expect([...all.keys()].sort()).toEqual([...bundles].sort());
    for (const b of bundles) {
      expect(all.get(b)).toEqual(await inclusionProof(b, day));
      const p = await inclusionProof(b, day);
      expect(p).toMatchObject({ _type: "tollgate.inclusion-proof/1", bundleSha256: b, day, root: onChain, chain: { network: LOCAL_NETWORK, contract: contract.toLowerCase(), transaction: row.transaction } });
      expect(verifyInclusion(p.bundleSha256, p.siblings, p.root)).toBe(true);
    }
  });

  it("refuses: a malformed hash (400), a day without a root (404 root_not_published), a bundle the root does not hold (404 not_found)", async () => {
    const day = dayAt(8);
    expect(await refusal(inclusionProof("ABC", day))).toMatchObject({ code: "bad_request", status: 400 });
    expect(await refusal(inclusionProof(sha("x"), dayAt(9)))).toMatchObject({ code: "root_not_published", status: 404 });
    expect(await refusal(inclusionProof(sha("not that day's"), day))).toMatchObject({ code: "not_found", status: 404 });
  });

  it("what a root commits to cannot be changed in the database", async () => {
    const day = dayAt(8);
    await db.asOwner(async (owner) => {
      for (const sql of [
        `UPDATE "evidence_roots" SET "root" = '0x${"12".repeat(32)}' WHERE "day" = ${day}`,
        `UPDATE "evidence_roots" SET "status" = 'sending' WHERE "day" = ${day}`,
        `UPDATE "evidence_roots" SET "transaction" = '0x${"34".repeat(32)}' WHERE "day" = ${day}`,
        `DELETE FROM "evidence_roots" WHERE "day" = ${day}`,
        `INSERT INTO "evidence_root_leaves" ("day", "bundleSha256") VALUES (${day}, '${sha("smuggled")}')`,
        `DELETE FROM "evidence_root_leaves" WHERE "day" = ${day}`,
      ]) {
        await expect(owner.query(sql), sql).rejects.toThrow(/evidence_root/);
      }
    });
    const p = await inclusionProof(bundlesOf(day, 21)[0], day);
    expect(verifyInclusion(p.bundleSha256, p.siblings, await rootOnChain(day))).toBe(true);
  });
});
