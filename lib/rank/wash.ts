/**
 * Wash (docs/RANK.md "Wash", "Payment rings"): a payer funded by the seller's own wallets, or one of a
 * payment ring's wallets (sellers whose payees pay each other, read from the ledger), is not a distinct
 * payer. Transfer logs are read through readChain, bounded and cached per sweep; what an outage leaves
 * unread is said (unmeasured), never guessed.
 */
import { hash } from "node:crypto";
import { getAddress, parseAbi, type Address, type PublicClient } from "viem";
import { readChain, type ChainRead, type RpcSettings } from "@/lib/chain/rpc";
import { DAY_MS, MIN_DISTINCT_PAYERS } from "@/lib/rank/score";
import { medianOfAmounts, utcTimestamp, type LedgerFactsRow } from "@/lib/facts/aggregate";
import { clientOr, rows, type Client } from "@/lib/sql";
import { ringLedger, ringExclusions, ringSummary, type RingLedger, type WashRing } from "./wash-ring";

export type { WashRing } from "./wash-ring";

/** Re-read from the chain when payers or wallets changed, or after this long. */
export const WASH_REMEASURE_MS = 60 * 60_000;
/** Per getLogs: public RPCs refuse very long topic lists. */
export const WASH_PAYERS_PER_READ = 200;
/** An unmeasured check is retried after this long; the last measured one stands meanwhile. */
export const WASH_RETRY_UNMEASURED_MS = 5 * 60_000;
export const WASH_READS_IN_FLIGHT = 8;
export const WASH_WINDOW_MS = 30 * DAY_MS;
/**
 * How far back a payer's funding by a seller wallet is looked for, up to its first settlement: a year, not the
 * 30-day window, or a seller could fund wallets, wait 31 days and pay from them unseen (lib/rank/wash.test.ts, last).
 */
export const WASH_FUNDING_LOOKBACK_MS = 365 * DAY_MS;

const TRANSFER = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]);

export type WashReason = "seller_wallet" | "funded_by_seller" | "funded_by_ring" | "ring_payee" | "ring_only";
/** Reasons read from the chain (kept through an outage); the ring_* ones are re-read from the ledger on every check. */
const CHAIN_REASONS: ReadonlySet<WashReason> = new Set(["seller_wallet", "funded_by_seller", "funded_by_ring"]);
/** The flag a listing carries when most of its payers are a ring's (selection leaves it out: lib/catalog/select-evidence.ts). */
export const WASH_RING_FLAG = "wash_ring";

export interface WashExclusion {
  payer: string;
  reason: WashReason;
  /** The wallet that funded the payer and the funding transaction (funded_by_*). */
  from?: string;
  transaction?: string;
  /** ring_payee: a listing of another ring seller this payer is a payee of. */
  listing?: string;
}

export interface WashFacts {
  excluded: WashExclusion[];
  measuredAtMs: number | null;
  /** Why the latest read failed (the last measured exclusions then stand). */
  unmeasured: string | null;
  payersBefore: number;
  /** The ring this listing's seller is in, or null. */
  ring: WashRing | null;
}

export interface WashCache {
  blocks: Map<string, Promise<ChainRead<{ from: bigint; to: bigint }>>>;
  logs: Map<string, Promise<ChainRead<Array<{ from: string; to: string; transaction: string; block: bigint }>>>>;
  /** The ledger's payment rings in the window, read once per sweep. */
  rings?: Promise<RingLedger>;
  settings?: RpcSettings;
}

export function newWashCache(settings?: RpcSettings): WashCache {
  return { blocks: new Map(), logs: new Map(), settings };
}

interface PayerRow {
  lid: string;
  payer: string;
  network: string;
  asset: string;
  amounts: string;
  firstBlock: string | null;
}

interface StoredWash {
  lid: string;
  inputKey: string;
  measuredAtMs: number | null;
  excluded: WashExclusion[];
  unmeasured: string | null;
  fingerprint?: string;
  checkedAtMs?: number;
  ring?: WashRing | null;
}

/** An outage retries soon; no reader configured waits until due (only an operator can fix it). */
function retriesSoon(unmeasured: string | null): boolean {
  return unmeasured !== null && !unmeasured.startsWith("no ");
}

/** Unchanged when no settled payer arrived or left the window: the check is kept. */
function fingerprintOf(r: LedgerFactsRow): string {
  return `${r.distinctPayers30d}|${r.lastSettledAtMs ?? ""}|${r.oldestPayment30dMs ?? ""}`;
}

/** The rows with excluded payers removed (below the floor untouched), and the wash facts per listing. */
export async function applyWash(
  input: readonly LedgerFactsRow[],
  now: Date,
  client?: Client,
  cache: WashCache = newWashCache(),
): Promise<{ rows: LedgerFactsRow[]; wash: Map<string, WashFacts> }> {
  const wash = new Map<string, WashFacts>();
  const candidates = input.filter((r) => r.distinctPayers30d >= MIN_DISTINCT_PAYERS);
  if (candidates.length === 0) return { rows: [...input], wash };
  const c = await clientOr(client);
  const [stored, rings] = await Promise.all([storedWashOf(c, candidates.map((r) => r.id)), (cache.rings ??= ringLedger(c, now))]);
  // The ring exclusions are re-read from the ledger on every check (one read per sweep): another
  // seller's payments can make or break a ring without this listing's own ledger moving.
  const ringOf = new Map(candidates.map((r) => [r.id, ringExclusions(r.id, rings)] as const));
  // A listing whose ledger has not moved since its last check, checked recently, keeps that check
  // without reading anything else (a full sweep every few minutes must not re-read every payer).
  const due = candidates.filter((r) => {
    const s = stored.get(r.id);
    const age = now.getTime() - (s?.checkedAtMs ?? -Infinity);
    return !s || s.fingerprint !== fingerprintOf(r) || (s.ring?.organizations ?? []).join(",") !== (rings.ringOf.get(rings.orgOf.get(r.id) ?? "")?.join(",") ?? "") || age < 0 || age >= (retriesSoon(s.unmeasured) ? WASH_RETRY_UNMEASURED_MS : WASH_REMEASURE_MS);
  });
  const dueIds = new Set(due.map((r) => r.id));
  const payersBefore = new Map(candidates.map((r) => [r.id, r.distinctPayers30d]));
  for (const r of candidates) {
    const s = stored.get(r.id);
    if (s && !dueIds.has(r.id)) wash.set(r.id, { excluded: s.excluded.filter(chainReason), measuredAtMs: s.measuredAtMs, unmeasured: s.unmeasured, payersBefore: r.distinctPayers30d, ring: null });
  }
  // Payers are read for the listings checked now and for those with exclusions (their median is re-taken).
  const payerIds = candidates.filter((r) => dueIds.has(r.id) || (wash.get(r.id)?.excluded.length ?? 0) > 0 || ringOf.get(r.id)!.excluded.length > 0).map((r) => r.id);
  const [payers, wallets] = await Promise.all([payerIds.length ? payersOf(c, payerIds, now) : [], due.length ? walletsOf(c, [...dueIds], now) : new Map<string, string[]>()]);
  const byListing = new Map<string, PayerRow[]>();
  for (const p of payers) byListing.set(p.lid, [...(byListing.get(p.lid) ?? []), p]);
  const writes: StoredWash[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < due.length; i = next++) {
      const r = due[i];
      const { facts, write } = await washOf(r.id, byListing.get(r.id) ?? [], wallets.get(r.id) ?? [], ringOf.get(r.id)!.funders, stored.get(r.id) ?? null, now, cache);
      writes.push({ ...write, fingerprint: fingerprintOf(r), checkedAtMs: now.getTime() });
      wash.set(r.id, facts);
    }
  };
  await Promise.all(Array.from({ length: Math.min(WASH_READS_IN_FLIGHT, due.length) }, worker));
  // The ring's payers join the chain's exclusions; the listing's ring summary says how many and why.
  const writeOf = new Map(writes.map((w) => [w.lid, w]));
  for (const r of candidates) {
    const w = wash.get(r.id);
    if (!w) continue;
    const ring = ringOf.get(r.id)!;
    const excluded = [...w.excluded, ...ring.excluded.filter((e) => !w.excluded.some((x) => x.payer === e.payer))];
    const summary = ring.organizations.length ? ringSummary(ring.organizations, excluded, payersBefore.get(r.id)!) : null;
    wash.set(r.id, { ...w, excluded, ring: summary });
    const s = stored.get(r.id);
    const write = writeOf.get(r.id);
    if (write) Object.assign(write, { excluded, ring: summary });
    else if (s && (JSON.stringify(s.excluded) !== JSON.stringify(excluded) || JSON.stringify(s.ring ?? null) !== JSON.stringify(summary))) {
      writes.push({ ...s, excluded, ring: summary });
    }
  }
  if (writes.length) await storeWash(c, writes, now);
  const rowsOut = input.map((r) => {
    const w = wash.get(r.id);
    if (!w || w.excluded.length === 0) return r;
    const out = new Set(w.excluded.map((e) => e.payer));
    const kept = (byListing.get(r.id) ?? []).filter((p) => !out.has(p.payer.toLowerCase()));
    const keptPayers = new Set(kept.map((p) => p.payer.toLowerCase())).size;
    const median = medianOfAmounts(kept.flatMap((p) => p.amounts.split(",")));
    return { ...r, distinctPayers30d: keptPayers, medianSettledPrice30d: median === null ? null : median / Number(`1e${r.settleDecimals}`) };
  });
  return { rows: rowsOut, wash };
}

const chainReason = (e: WashExclusion) => CHAIN_REASONS.has(e.reason);

/** One listing's check: its facts, and the row to store. */
async function washOf(id: string, ps: PayerRow[], sellers: string[], ringFunders: string[], given: StoredWash | null, now: Date, cache: WashCache): Promise<{ facts: WashFacts; write: StoredWash }> {
  // The stored ring exclusions are the ledger's, re-read by the caller; only the chain's are carried here.
  const prior = given && { ...given, excluded: given.excluded.filter(chainReason) };
  const payerSet = [...new Set(ps.map((p) => p.payer.toLowerCase()))].sort();
  const sellerSet = new Set(sellers);
  const funders = [...new Set([...sellerSet, ...ringFunders])].sort();
  // A payer that is the seller's own wallet needs no chain read.
  const self: WashExclusion[] = payerSet.filter((p) => sellerSet.has(p)).map((payer) => ({ payer, reason: "seller_wallet" }));
  type Group = { network: string; asset: string; payers: string[]; firstBlock: Map<string, bigint | null> };
  const groups = new Map<string, Group>();
  for (const p of ps) {
    const payer = p.payer.toLowerCase();
    if (sellerSet.has(payer)) continue;
    const key = `${p.network} ${p.asset.toLowerCase()}`;
    const g: Group = groups.get(key) ?? { network: p.network, asset: p.asset.toLowerCase(), payers: [], firstBlock: new Map() };
    if (!g.payers.includes(payer)) g.payers.push(payer);
    const block = p.firstBlock === null ? null : BigInt(p.firstBlock);
    const had = g.firstBlock.get(payer);
    g.firstBlock.set(payer, had === undefined ? block : had === null || block === null ? null : had < block ? had : block);
    groups.set(key, g);
  }
  const inputKey = hash("sha256", JSON.stringify([[...sellerSet].sort(), ringFunders, payerSet, [...groups.keys()].sort().map((k) => [k, groups.get(k)!.payers.sort()])]), "hex");
  const fresh = prior && prior.inputKey === inputKey && prior.measuredAtMs !== null && now.getTime() - prior.measuredAtMs < WASH_REMEASURE_MS;
  const current = (xs: WashExclusion[]) => xs.filter((e) => payerSet.includes(e.payer));
  if (fresh) {
    const excluded = current(prior.excluded);
    return { facts: { excluded, measuredAtMs: prior.measuredAtMs, unmeasured: null, payersBefore: payerSet.length, ring: null }, write: { ...prior, excluded, unmeasured: null } };
  }

  const funded: WashExclusion[] = [];
  const unread: string[] = [];
  if (funders.length > 0) {
    for (const g of groups.values()) {
      const read = await fundingTransfers(g.network, g.asset, funders, g.payers.sort(), now, cache);
      if (!read.ok) {
        unread.push(read.unmeasured);
        continue;
      }
      for (const t of read.value) {
        // Funding counts up to the payer's first settlement here: a later refund does not make the buyer the seller's.
        const first = g.firstBlock.get(t.to);
        if (first !== null && first !== undefined && t.block > first) continue;
        // A seller wallet's funding is named before a ring payee's.
        const reason = sellerSet.has(t.from) ? "funded_by_seller" : "funded_by_ring";
        const had = funded.findIndex((f) => f.payer === t.to);
        if (had < 0) funded.push({ payer: t.to, reason, from: t.from, transaction: t.transaction });
        else if (reason === "funded_by_seller" && funded[had].reason === "funded_by_ring") funded[had] = { payer: t.to, reason, from: t.from, transaction: t.transaction };
      }
    }
  }
  if (unread.length === 0) {
    const excluded = [...self, ...funded];
    return {
      facts: { excluded, measuredAtMs: now.getTime(), unmeasured: null, payersBefore: payerSet.length, ring: null },
      write: { lid: id, inputKey, measuredAtMs: now.getTime(), excluded, unmeasured: null },
    };
  }
  // Chain unread: the last measured exclusions stand (an outage neither clears nor blames), plus what was seen.
  const kept = prior ? current(prior.excluded) : [];
  const excluded = [...self, ...funded, ...kept.filter((k) => !self.some((s) => s.payer === k.payer) && !funded.some((f) => f.payer === k.payer))];
  const unmeasured = [...new Set(unread)].join("; ");
  return {
    facts: { excluded, measuredAtMs: prior?.measuredAtMs ?? null, unmeasured, payersBefore: payerSet.length, ring: null },
    write: { lid: id, inputKey: prior?.inputKey ?? "", measuredAtMs: prior?.measuredAtMs ?? null, excluded, unmeasured },
  };
}

async function fundingTransfers(network: string, asset: string, sellers: string[], payers: string[], now: Date, cache: WashCache): Promise<ChainRead<Array<{ from: string; to: string; transaction: string; block: bigint }>>> {
  const range = await fundingBlocks(network, now, cache);
  if (!range.ok) return range;
  const out: Array<{ from: string; to: string; transaction: string; block: bigint }> = [];
  for (let i = 0; i < payers.length; i += WASH_PAYERS_PER_READ) {
    const chunk = payers.slice(i, i + WASH_PAYERS_PER_READ);
    const key = `${network} ${asset} ${range.value.from}-${range.value.to} ${sellers.join(",")} ${chunk.join(",")}`;
    let read = cache.logs.get(key);
    if (!read) {
      read = readChain(
        network,
        async (client: PublicClient) => {
          const logs = await client.getContractEvents({
            address: getAddress(asset),
            abi: TRANSFER,
            eventName: "Transfer",
            args: { from: sellers.map((s) => getAddress(s)) as Address[], to: chunk.map((p) => getAddress(p)) as Address[] },
            fromBlock: range.value.from,
            toBlock: range.value.to,
            strict: true,
          });
          return logs.map((l) => ({ from: l.args.from.toLowerCase(), to: l.args.to.toLowerCase(), transaction: l.transactionHash, block: l.blockNumber }));
        },
        { settings: cache.settings },
      );
      cache.logs.set(key, read);
    }
    const r = await read;
    if (!r.ok) return r;
    out.push(...r.value);
  }
  return { ok: true, value: out };
}

/** Binary search on timestamps for the funding look-back's first block. */
function fundingBlocks(network: string, now: Date, cache: WashCache): Promise<ChainRead<{ from: bigint; to: bigint }>> {
  let p = cache.blocks.get(network);
  if (!p) {
    const start = BigInt(Math.floor((now.getTime() - WASH_FUNDING_LOOKBACK_MS) / 1000));
    p = readChain(network, (client) => firstBlockAtOrAfter(client, start), { settings: cache.settings });
    cache.blocks.set(network, p);
  }
  return p;
}

export async function firstBlockAtOrAfter(client: PublicClient, timestamp: bigint): Promise<{ from: bigint; to: bigint }> {
  const latest = await client.getBlock({ blockTag: "latest" });
  let lo = 0n;
  let hi = latest.number;
  if (latest.timestamp < timestamp) return { from: latest.number + 1n, to: latest.number };
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    const b = await client.getBlock({ blockNumber: mid });
    if (b.timestamp < timestamp) lo = mid + 1n;
    else hi = mid;
  }
  return { from: lo, to: latest.number };
}

function payersOf(c: Client, ids: string[], now: Date): Promise<PayerRow[]> {
  return rows<PayerRow>(
    c,
    `SELECT p."listingId" AS lid, p."payer", p."network", p."asset", string_agg(p."settledAmount", ',') AS amounts, min(p."blockNumber")::text AS "firstBlock"
       FROM "router_payments" p
      WHERE p."listingId" = ANY($1::text[]) AND p."status" = 'settled' AND NOT p."house"
        AND p."createdAt" >= $2::timestamp - interval '30 days' AND p."createdAt" <= $2::timestamp
      GROUP BY 1, 2, 3, 4`,
    ids,
    utcTimestamp(now),
  );
}

/** Members' SIWE wallets, payTo quoted and paid on the organisation's listings, canary payTos; lower-cased. */
async function walletsOf(c: Client, ids: string[], now: Date): Promise<Map<string, string[]>> {
  const found = await rows<{ lid: string; wallets: string[] | null }>(
    c,
    `WITH orgs AS (SELECT DISTINCT "organizationId" AS org FROM "listings" WHERE "id" = ANY($1::text[])),
          wallets AS (
            SELECT o.org, array_agg(DISTINCT w.addr) FILTER (WHERE w.addr IS NOT NULL) AS wallets
              FROM orgs o
              LEFT JOIN LATERAL (
                SELECT lower(u."walletAddress") AS addr FROM "users" u WHERE u."organizationId" = o.org
                UNION SELECT lower(x."quotedPayTo") FROM "router_payments" x JOIN "listings" l ON l."id" = x."listingId"
                 WHERE l."organizationId" = o.org AND x."createdAt" >= $2::timestamp - interval '30 days'
                UNION SELECT lower(x."chainTo") FROM "router_payments" x JOIN "listings" l ON l."id" = x."listingId"
                 WHERE l."organizationId" = o.org AND x."status" = 'settled' AND x."createdAt" >= $2::timestamp - interval '30 days'
                UNION SELECT lower(s."quotedPayTo") FROM "canary_samples" s JOIN "listings" l ON l."id" = s."listingId" WHERE l."organizationId" = o.org
              ) w ON true
             GROUP BY o.org)
     SELECT l."id" AS lid, w.wallets FROM "listings" l JOIN wallets w ON w.org = l."organizationId" WHERE l."id" = ANY($1::text[])`,
    ids,
    utcTimestamp(now),
  );
  return new Map(found.map((f) => [f.lid, (f.wallets ?? []).filter((w) => /^0x[0-9a-f]{40}$/.test(w))]));
}

async function storedWashOf(c: Client, ids: string[]): Promise<Map<string, StoredWash>> {
  const found = await rows<StoredWash & { checkedAtMs: number }>(
    c,
    `SELECT "listingId" AS lid, "inputKey", (extract(epoch FROM "measuredAt") * 1000)::float8 AS "measuredAtMs", "excluded", "unmeasured",
            "fingerprint", (extract(epoch FROM "checkedAt") * 1000)::float8 AS "checkedAtMs", "ring"
       FROM "listing_wash" WHERE "listingId" = ANY($1::text[])`,
    ids,
  );
  return new Map(found.map((f) => [f.lid, { ...f, measuredAtMs: f.measuredAtMs === null ? null : Number(f.measuredAtMs), checkedAtMs: Number(f.checkedAtMs) }]));
}

async function storeWash(c: Client, writes: StoredWash[], now: Date): Promise<void> {
  await rows(
    c,
    `INSERT INTO "listing_wash" ("listingId", "inputKey", "measuredAt", "excluded", "unmeasured", "fingerprint", "checkedAt", "ring")
     SELECT w.lid, w."inputKey", CASE WHEN w."measuredAtMs" IS NULL THEN NULL ELSE to_timestamp(w."measuredAtMs" / 1000.0) AT TIME ZONE 'UTC' END,
            w.excluded, w.unmeasured, w.fingerprint, COALESCE(to_timestamp(w."checkedAtMs" / 1000.0) AT TIME ZONE 'UTC', $2::timestamp), w.ring
       FROM jsonb_to_recordset($1::jsonb) AS w(lid text, "inputKey" text, "measuredAtMs" float8, excluded jsonb, unmeasured text, fingerprint text, "checkedAtMs" float8, ring jsonb)
     ON CONFLICT ("listingId") DO UPDATE SET "inputKey" = EXCLUDED."inputKey", "measuredAt" = EXCLUDED."measuredAt",
       "excluded" = EXCLUDED."excluded", "unmeasured" = EXCLUDED."unmeasured", "fingerprint" = EXCLUDED."fingerprint", "checkedAt" = EXCLUDED."checkedAt", "ring" = EXCLUDED."ring"
     RETURNING "listingId"`,
    JSON.stringify(writes),
    utcTimestamp(now),
  );
}

export async function storedWash(listingId: string, client?: Client): Promise<(StoredWash & { checkedAtMs: number }) | null> {
  const c = await clientOr(client);
  const [found] = await rows<StoredWash & { checkedAtMs: number }>(
    c,
    `SELECT "listingId" AS lid, "inputKey", (extract(epoch FROM "measuredAt") * 1000)::float8 AS "measuredAtMs", "excluded", "unmeasured",
            (extract(epoch FROM "checkedAt") * 1000)::float8 AS "checkedAtMs", "ring"
       FROM "listing_wash" WHERE "listingId" = $1`,
    listingId,
  );
  return found ? { ...found, measuredAtMs: found.measuredAtMs === null ? null : Number(found.measuredAtMs), checkedAtMs: Number(found.checkedAtMs) } : null;
}
