/**
 * The daily root (docs/ATTESTATIONS.md "The daily root"): leader-locked and idempotent, the row stored before the
 * send, never sent twice.
 */
import type { Hex } from "viem";
import { AppError } from "@/lib/errors";
import { clientOr, rows, session, transaction, type Client } from "@/lib/sql";
import { buildTree, isBundleSha256, type InclusionPath, type MerkleTree } from "./merkle";
import type { RootChain } from "./root-chain";

export const DAY_MS = 86_400_000;
export const PUBLISH_GRACE_MS = 5 * 60_000;
export const CATCH_UP_DAYS = 7;
export const DAILY_ROOT_LOCK_KEY = 724_021_410;

export function utcDay(at: Date | number): number {
  return Math.floor((typeof at === "number" ? at : at.getTime()) / DAY_MS);
}

export type DayHashes = (day: number, client: Client) => Promise<string[]>;

export type RootStatus = "sending" | "sent" | "published" | "conflict";

export interface RootRow {
  day: number;
  root: Hex;
  leaves: number;
  network: string;
  contract: string;
  publisher: string;
  status: RootStatus;
  transaction: Hex | null;
  chainRoot: Hex | null;
}

export interface DayOutcome {
  day: number;
  /** conflict: the chain holds another root for the day (recorded, never proved against). */
  outcome: "published" | "already" | "pending" | "empty" | "conflict";
  sent: boolean;
  root?: Hex;
  leaves?: number;
  transaction?: Hex | null;
}

const ROW_COLUMNS = `"day", "root", "leaves", "network", "contract", "publisher", "status", "transaction", "chainRoot"`;

async function readRow(client: Client, day: number): Promise<RootRow | null> {
  const [row] = await rows<RootRow>(client, `SELECT ${ROW_COLUMNS} FROM "evidence_roots" WHERE "day" = $1`, day);
  return row ?? null;
}

async function settle(client: Client, day: number, status: "sent" | "published" | "conflict", transactionHash: Hex | null, chainRoot: Hex | null = null): Promise<void> {
  await rows(
    client,
    `UPDATE "evidence_roots" SET "status" = $2, "transaction" = COALESCE("transaction", $3), "chainRoot" = $4,
            "publishedAt" = CASE WHEN $2 = 'published' THEN CURRENT_TIMESTAMP ELSE "publishedAt" END
     WHERE "day" = $1`,
    day,
    status,
    transactionHash,
    chainRoot,
  );
}

async function insertDay(client: Client, chain: RootChain, day: number, tree: MerkleTree, bundles: string[]): Promise<void> {
  await transaction(client, async (tx) => {
    await rows(
      tx,
      `INSERT INTO "evidence_roots" ("day", "root", "leaves", "network", "contract", "publisher", "status") VALUES ($1, $2, $3, $4, $5, $6, 'sending')`,
      day,
      tree.root,
      tree.leaves.length,
      chain.network,
      chain.contract,
      chain.publisher,
    );
    await rows(tx, `INSERT INTO "evidence_root_leaves" ("day", "bundleSha256") SELECT $1, unnest(string_to_array($2, ','))`, day, [...new Set(bundles)].join(","));
  });
}

export async function publishDay(day: number, chain: RootChain, dayHashes: DayHashes, client: Client): Promise<DayOutcome> {
  const row = await readRow(client, day);
  if (row && (row.status === "published" || row.status === "conflict")) return { day, outcome: "already", sent: false, root: row.root, leaves: row.leaves, transaction: row.transaction };
  if (row && (row.network !== chain.network || row.contract !== chain.contract)) {
    throw new Error(`day ${day}'s root was begun on ${row.network} ${row.contract}, not ${chain.network} ${chain.contract}: finish it there`);
  }

  if (!row) {
    const bundles = await dayHashes(day, client);
    if (bundles.length === 0) return { day, outcome: "empty", sent: false };
    const tree = buildTree(bundles);
    await insertDay(client, chain, day, tree, bundles);
    const onChain = await chain.rootOf(day);
    if (onChain) return reconcile(client, chain, { day, root: tree.root, leaves: tree.leaves.length, transaction: null }, onChain);
    return send(client, chain, day, tree.root, tree.leaves.length);
  }

  const onChain = await chain.rootOf(day);
  if (onChain) return reconcile(client, chain, row, onChain);
  if (row.transaction) {
    // A mined revert needs a person.
    const outcome = await chain.outcome(row.transaction);
    if (outcome === null) return { day, outcome: "pending", sent: false, root: row.root, leaves: row.leaves, transaction: row.transaction };
    const after = await chain.rootOf(day);
    if (after) return reconcile(client, chain, row, after);
    throw new Error(`day ${day}'s publish ${row.transaction} was mined (${outcome}) but rootOf(${day}) is empty: see docs/CHAIN.md "Evidence roots"`);
  }
  // A send that never named its transaction: one in flight may be it, so wait.
  if ((await chain.inFlight()) > 0) return { day, outcome: "pending", sent: false, root: row.root, leaves: row.leaves, transaction: null };
  return send(client, chain, day, row.root, row.leaves);
}

async function send(client: Client, chain: RootChain, day: number, root: Hex, leaves: number): Promise<DayOutcome> {
  const hash = await chain.send(day, root, leaves);
  await settle(client, day, "sent", hash);
  const outcome = await chain.outcome(hash);
  if (outcome === null) return { day, outcome: "pending", sent: true, root, leaves, transaction: hash };
  const onChain = await chain.rootOf(day);
  if (!onChain) throw new Error(`day ${day}'s publish ${hash} was mined (${outcome}) but rootOf(${day}) is empty`);
  const done = await reconcile(client, chain, { day, root, leaves, transaction: hash }, onChain);
  return { ...done, sent: true };
}

async function reconcile(client: Client, chain: RootChain, row: Pick<RootRow, "day" | "root" | "leaves" | "transaction">, onChain: Hex): Promise<DayOutcome> {
  const event = row.transaction ? null : await chain.publication(row.day);
  const tx = row.transaction ?? event?.transaction ?? null;
  if (onChain === row.root) {
    if (!tx) throw new Error(`day ${row.day}'s root is on chain but no RootPublished event names its transaction`);
    await settle(client, row.day, "published", tx);
    return { day: row.day, outcome: "published", sent: false, root: row.root, leaves: row.leaves, transaction: tx };
  }
  await settle(client, row.day, "conflict", tx, onChain);
  return { day: row.day, outcome: "conflict", sent: false, root: row.root, leaves: row.leaves, transaction: tx };
}

export interface PublishRun {
  leader: boolean;
  days: DayOutcome[];
}

let running = false;

export async function publishDueRoots(opts: { chain: RootChain; dayHashes: DayHashes; now?: Date; client?: Client }): Promise<PublishRun> {
  if (running) return { leader: false, days: [] };
  running = true;
  try {
    const client = await clientOr(opts.client);
    return await session(client, async (conn) => {
      const [{ got }] = await rows<{ got: boolean }>(conn, "SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS got", DAILY_ROOT_LOCK_KEY);
      if (!got) return { leader: false, days: [] };
      try {
        const last = utcDay((opts.now ?? new Date()).getTime() - PUBLISH_GRACE_MS) - 1;
        const final = await rows<{ day: number }>(client, `SELECT "day" FROM "evidence_roots" WHERE "day" BETWEEN $1 AND $2 AND "status" IN ('published', 'conflict')`, last - CATCH_UP_DAYS + 1, last);
        const done = new Set(final.map((r) => Number(r.day)));
        const days: DayOutcome[] = [];
        for (let day = last - CATCH_UP_DAYS + 1; day <= last; day++) {
          if (done.has(day)) continue;
          days.push(await publishDay(day, opts.chain, opts.dayHashes, client));
        }
        return { leader: true, days };
      } finally {
        await rows(conn, "SELECT pg_advisory_unlock($1, hashtext(current_schema()))", DAILY_ROOT_LOCK_KEY);
      }
    });
  } finally {
    running = false;
  }
}

export interface InclusionProof {
  _type: "tollgate.inclusion-proof/1";
  bundleSha256: string;
  day: number;
  leaf: Hex;
  siblings: Hex[];
  root: Hex;
  chain: { network: string; contract: string; transaction: string };
}

const trees = new Map<string, MerkleTree>();
const TREES_KEPT = 4;

async function publishedTree(day: number, c: Client): Promise<{ row: RootRow & { transaction: Hex }; tree: MerkleTree }> {
  const row = await readRow(c, day);
  if (!row || row.status !== "published" || !row.transaction) {
    const why = !row ? "has no root yet" : row.status === "conflict" ? "has another root on chain than this catalog's" : "is being published";
    throw new AppError("root_not_published", `day ${day} (${new Date(day * DAY_MS).toISOString().slice(0, 10)}) ${why}: a proof exists once its root is on chain`, [], { day, status: row?.status ?? null });
  }
  const key = `${day} ${row.root}`;
  let tree = trees.get(key);
  if (!tree) {
    const leaves = await rows<{ bundleSha256: string }>(c, `SELECT "bundleSha256" FROM "evidence_root_leaves" WHERE "day" = $1`, day);
    tree = buildTree(leaves.map((l) => l.bundleSha256));
    if (tree.root !== row.root) throw new Error(`day ${day}'s stored leaves give root ${tree.root}, not the published ${row.root}`);
    trees.set(key, tree);
    if (trees.size > TREES_KEPT) trees.delete(trees.keys().next().value!);
  }
  return { row: row as RootRow & { transaction: Hex }, tree };
}

function proofJson(row: RootRow & { transaction: Hex }, bundleSha256: string, path: InclusionPath): InclusionProof {
  return {
    _type: "tollgate.inclusion-proof/1",
    bundleSha256,
    day: row.day,
    leaf: path.leaf,
    siblings: path.siblings,
    root: row.root,
    chain: { network: row.network, contract: row.contract, transaction: row.transaction },
  };
}

export async function inclusionProof(bundleSha256: string, day: number, client?: Client): Promise<InclusionProof> {
  if (!isBundleSha256(bundleSha256)) throw new AppError("bad_request", "sha256 must be the bundle's hash: 64 lowercase hex digits", [{ pointer: "/sha256", message: "must be 64 lowercase hex digits" }]);
  const { row, tree } = await publishedTree(day, await clientOr(client));
  const path = tree.proof(bundleSha256);
  if (!path) throw new AppError("not_found", `day ${day}'s root does not commit to bundle ${bundleSha256}`);
  return proofJson(row, bundleSha256, path);
}

export async function dayInclusionProofs(day: number, client?: Client): Promise<Map<string, InclusionProof>> {
  const { row, tree } = await publishedTree(day, await clientOr(client));
  const leaves = await rows<{ bundleSha256: string }>(await clientOr(client), `SELECT "bundleSha256" FROM "evidence_root_leaves" WHERE "day" = $1`, day);
  const out = new Map<string, InclusionProof>();
  for (const { bundleSha256 } of leaves) out.set(bundleSha256, proofJson(row, bundleSha256, tree.proof(bundleSha256)!));
  return out;
}
