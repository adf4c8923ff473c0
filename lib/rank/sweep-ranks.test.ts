import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { computeRank, DAY_MS } from "@/lib/rank/score";
import { ledgerFacts, listingIdRanges, utcTimestamp } from "@/lib/facts/aggregate";
import { rankInputsFor } from "./inputs";
import { buildRankFixtures } from "@/test/rank-shapes";
import { DUE_FULL_SHARE, explainStoredRank, FULL_SWEEP_INTERVAL_MS, inputsFromDocument, RANK_SWEEP_LOCK_KEY, rankInputsDocument, rankInputsHash, recomputeListingRank, runRankSweep } from "./sweep-ranks";
import { recordPayment } from "@/lib/ledger/record";
import { createTestListing } from "@/test/ledger";

let t: TestDatabase;
const NOW = new Date("2026-12-02T12:00:00.000Z");
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

describe("the stored inputs document", () => {
  it("reads back to the very inputs it was made from, for every seed-table fixture", () => {
    for (const { inputs } of Object.values(buildRankFixtures(NOW))) {
      const doc = JSON.parse(rankInputsDocument(inputs));
      expect(inputsFromDocument(doc, inputs.now)).toEqual(inputs);
      expect(computeRank(inputsFromDocument(doc, inputs.now)!)).toEqual(computeRank(inputs));
    }
    expect(inputsFromDocument(["rank-inputs/0"], NOW)).toBeNull();
  });
});

describe("listing_ranks rows", () => {
  it("exist from a listing's insert on and copy its browse key: tier, sortWeight, publication, category", async () => {
    const id = await createTestListing(t.prisma, { tier: 3, sortWeight: 2, category: "maps", publicationState: "draft" });
    const copy = () => t.prisma.listingRank.findUnique({ where: { listingId: id }, select: { tier: true, sortWeight: true, published: true, category: true, rankScore: true } });
    expect(await copy()).toEqual({ tier: 3, sortWeight: 2, published: false, category: "maps", rankScore: null });
    await t.prisma.listing.update({ where: { id }, data: { tier: 1, sortWeight: -4, category: "vision", publicationState: "published" } });
    expect(await copy()).toEqual({ tier: 1, sortWeight: -4, published: true, category: "vision", rankScore: null });
    await t.prisma.listing.update({ where: { id }, data: { title: "Renamed" } });
    expect(await copy()).toMatchObject({ tier: 1, published: true });
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "archived" } });
    expect(await copy()).toMatchObject({ published: false });
    await t.prisma.endpoint.deleteMany({ where: { listingId: id } });
    await t.prisma.listing.delete({ where: { id } });
    expect(await copy()).toBeNull();
  });
});

describe("runRankSweep", () => {
  let a: string, b: string, c: string;
  beforeAll(async () => {
    a = await createTestListing(t.prisma);
    b = await createTestListing(t.prisma, { featuredLevel: 2 });
    c = await createTestListing(t.prisma, { publicationState: "draft" });
  });

  it("ranks every listing, storing unrounded scores, components with facts, the hash and rankedAt", async () => {
    const r = await runRankSweep({ now: NOW, batchSize: 2 });
    expect(r).toMatchObject({ leader: true, scanned: 3, updated: 3, unchanged: 0, batches: 2 });
    const inputs = (await rankInputsFor([b], NOW)).get(b)!;
    const expected = computeRank(inputs);
    const row = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: b } });
    expect(row.qualityScore).toBe(expected.quality);
    expect(row.rankScore).toBe(expected.rank);
    expect(row.inputsHash).toBe(rankInputsHash(inputs));
    expect(row.rankedAt?.toISOString()).toBe(NOW.toISOString());
    // Beside the score: each component's value, and the facts that give back every reason.
    const c = expected.components;
    expect(row.gate).toBe(c.gate.gate);
    expect(row.components).toEqual({ gate: c.gate.gate, gateFactor: c.gate.value, liveness: c.liveness.value, traction: c.traction.value, priceIntegrity: c.priceIntegrity.value, featured: c.featured.value, verification: c.verification.value });
    const explained = explainStoredRank(row)!;
    expect(JSON.parse(JSON.stringify(explained.components))).toEqual(JSON.parse(JSON.stringify(expected.components)));
    expect(explained.components.featured.facts.level).toBe(2);
    // The wide listings row is not written by the sweep.
    expect(Object.keys(await t.prisma.listing.findUniqueOrThrow({ where: { id: b } }))).not.toContain("rankScore");
  });

  it("reading the catalog in id ranges scores every listing once, whatever the range size", async () => {
    await t.prisma.listingRank.updateMany({ data: { inputsHash: null } });
    const r = await runRankSweep({ now: NOW, batchSize: 1, readRange: 2 });
    expect(r).toMatchObject({ leader: true, scanned: 3, updated: 3, unchanged: 0, batches: 3 });
    const ranges = await listingIdRanges(2);
    expect(ranges).toHaveLength(2);
    const byRange = (await Promise.all(ranges.map((g) => ledgerFacts(g, NOW)))).flat().map((x) => x.id);
    expect([...byRange].sort()).toEqual([a, b, c].sort());
    expect(await runRankSweep({ now: NOW, readRange: 1 })).toMatchObject({ scanned: 3, updated: 0, unchanged: 3 });
  });

  it("skips listings whose inputs did not change, and re-ranks the one that did", async () => {
    const later = new Date(NOW.getTime() + 60_000);
    expect(await runRankSweep({ now: later })).toMatchObject({ leader: true, scanned: 3, updated: 0, unchanged: 3 });
    await recordPayment({ listingId: a, payer: wallet(1), status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: "USDC", network: "eip155:8453", at: new Date(NOW.getTime() - DAY_MS) });
    const before = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: c }, select: { rankedAt: true } });
    expect(await runRankSweep({ now: later })).toMatchObject({ updated: 1, unchanged: 2 });
    const row = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: a } });
    expect(row.gate).toBe("settleable");
    expect(explainStoredRank(row)!.components.gate.gate).toBe("settleable");
    expect(row.rankedAt?.toISOString()).toBe(later.toISOString());
    // The unchanged one keeps its old rankedAt: nothing was rewritten.
    expect((await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: c }, select: { rankedAt: true } })).rankedAt).toEqual(before.rankedAt);
  });

  it("time alone changes the hash when it changes a fact (a settlement leaving the 30-day window)", async () => {
    const r = await runRankSweep({ now: new Date(NOW.getTime() + 31 * DAY_MS) });
    expect(r.updated).toBeGreaterThanOrEqual(1);
    const row = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: a } });
    expect(row.gate).toBe("unknown");
    expect(explainStoredRank(row)!.components.gate.gate).toBe("unknown");
  });

  it("one sweep at a time in a process: a second concurrent call is not the leader and touches nothing", async () => {
    const [first, second] = await Promise.all([runRankSweep({ now: NOW }), runRankSweep({ now: NOW })]);
    expect([first.leader, second.leader].sort()).toEqual([false, true]);
    expect((first.leader ? second : first).scanned).toBe(0);
  });

  it("holds the advisory lock while it runs and releases it after", async () => {
    if (t.kind === "postgres") {
      // Another session holding the lock (another process's sweep) keeps this one out.
      await t.session(async (conn) => {
        // The sweep's key is (RANK_SWEEP_LOCK_KEY, this schema): a sweep in another schema of the
        // same database holds a different lock.
        await conn.query("SELECT pg_advisory_lock($1, hashtext(current_schema()))", [RANK_SWEEP_LOCK_KEY]);
        try {
          expect(await runRankSweep({ now: NOW })).toMatchObject({ leader: false, scanned: 0 });
        } finally {
          await conn.query("SELECT pg_advisory_unlock($1, hashtext(current_schema()))", [RANK_SWEEP_LOCK_KEY]);
        }
      });
    }
    expect((await runRankSweep({ now: NOW })).leader).toBe(true);
    // Released: no advisory lock with our key is left granted.
    const held = await t.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2
         AND objid::bigint = ((hashtext(current_schema())::bigint + 4294967296) % 4294967296) AND granted`,
      [RANK_SWEEP_LOCK_KEY],
    );
    expect(held[0].n).toBe(0);
  });

  it("records each leader's sweep in rank_sweep_runs (holder, start and end on the database's clock); a sweep that is not the leader records nothing", async () => {
    const before = await t.prisma.rankSweepRun.count();
    const [first, second] = await Promise.all([runRankSweep({ now: NOW }), runRankSweep({ now: NOW })]);
    expect([first.leader, second.leader].sort()).toEqual([false, true]);
    const runs = await t.prisma.rankSweepRun.findMany({ orderBy: { id: "asc" }, skip: before });
    expect(runs).toHaveLength(1);
    const [run] = runs;
    const led = first.leader ? first : second;
    expect(run).toMatchObject({ holder: expect.stringMatching(new RegExp(`:${process.pid}$`)), mode: "full", scanned: led.scanned, updated: led.updated, error: null });
    expect(run.finishedAt).not.toBeNull();
    expect(run.finishedAt!.getTime()).toBeGreaterThanOrEqual(run.startedAt.getTime());
  });

  it("recomputeListingRank writes at once, hash or not", async () => {
    await t.prisma.listing.update({ where: { id: b }, data: { featuredLevel: 5 } });
    const r = (await recomputeListingRank(b, NOW))!;
    const row = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: b } });
    expect(row.rankScore).toBe(r.rank);
    expect(r.components.featured.value).toBe(1.5);
    expect(await recomputeListingRank("missing", NOW)).toBeNull();
  });
});

describe("the facts documents", () => {
  it("carry free text, several prices and a tie between quotes exactly (tabs, line breaks, quotes and all)", async () => {
    const label = 'First\tlabel\nwith "quotes", a \\ backslash, ünïcode and {braces}';
    const id = await createTestListing(t.prisma, {
      endpoints: [
        { priceUsd: "0.05", priceLabel: "  ", priceDecimals: null },
        { priceUsd: "bad", priceLabel: label, priceDecimals: 2 },
        { priceUsd: "0.020", priceLabel: "later", priceDecimals: 6 },
      ],
    });
    const endpoints = await t.prisma.endpoint.findMany({ where: { listingId: id }, orderBy: { position: "asc" } });
    const at = new Date(NOW.getTime() - 86_400_000);
    // Two quotes at one instant: the greater id is the one read, whatever its amount.
    const q1 = await t.prisma.priceQuote.create({ data: { id: "q-tie-a", listingId: id, endpointId: endpoints[1].id, amount: "900", asset: "USDC", network: "eip155:8453", quotedAt: at, source: "test" } });
    const q2 = await t.prisma.priceQuote.create({ data: { id: "q-tie-b", listingId: id, endpointId: endpoints[1].id, amount: "700", asset: "USDC", network: "eip155:8453", quotedAt: at, source: "test" } });
    expect(q1.id < q2.id).toBe(true);
    const [row] = await ledgerFacts({ ids: [id] }, NOW);
    expect(row).toMatchObject({ id, advertisedPrice: 0.02, priceLabel: label, quotePrice: 7, quotedAtMs: at.getTime() });
    // The same facts whether the listing is read by id or within a range of the catalog.
    const [inRange] = (await ledgerFacts({ from: id, below: null }, NOW)).filter((r) => r.id === id);
    expect(inRange).toEqual(row);
  });
});

describe("the due sweep (the rank tick)", () => {
  const marks = async () => (await t.query<{ id: string }>(`SELECT "listingId" AS id FROM "rank_dirty" ORDER BY 1`)).map((r) => r.id);
  const clearMarks = () => t.query(`DELETE FROM "rank_dirty"`);
  const pay = (listingId: string, at: Date, status: "settled" | "failed" = "settled", payer = wallet(7)) =>
    recordPayment({ listingId, payer, status, advertisedAmount: "10000", settledAmount: status === "settled" ? "10000" : null, asset: "USDC", network: "eip155:8453", at });
  const dueAt = async (listingId: string) => (await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId }, select: { rankDueAt: true } })).rankDueAt;

  it("marks the listing of every write to a rank input, and of no other write", async () => {
    const x = await createTestListing(t.prisma);
    expect(await marks()).toContain(x); // its endpoints
    await clearMarks();
    await pay(x, new Date(NOW.getTime() - DAY_MS));
    expect(await marks()).toEqual([x]);
    await clearMarks();
    await t.prisma.healthSample.create({ data: { listingId: x, at: NOW, outcome: "up", confidence: 1, vantage: "test" } });
    expect(await marks()).toEqual([x]);
    await clearMarks();
    const q = await t.prisma.priceQuote.create({ data: { listingId: x, amount: "10000", asset: "USDC", network: "eip155:8453", quotedAt: NOW, source: "test" } });
    expect(await marks()).toEqual([x]);
    await clearMarks();
    // Quotes, samples and confirmed ledger rows are insert-only; the one update the ledger takes, a
    // waiting row's confirmation, marks its listing too.
    await expect(t.prisma.priceQuote.update({ where: { id: q.id }, data: { amount: "20000" } })).rejects.toThrow(/price_quotes is append-only/);
    const waiting = await recordPayment({ listingId: x, payer: wallet(8), status: "unconfirmed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", transactionId: `0x${"cd".repeat(32)}`, at: NOW });
    await clearMarks();
    await t.prisma.routerPayment.update({ where: { id: waiting.id }, data: { status: "failed", reason: "unproven", confirmedAt: NOW } });
    expect(await marks()).toEqual([x]);
    await clearMarks();
    await t.prisma.endpoint.updateMany({ where: { listingId: x }, data: { priceUsd: "0.02" } });
    expect(await marks()).toEqual([x]);
    await clearMarks();
    // The listing's own columns: only those the facts read.
    await t.prisma.listing.update({ where: { id: x }, data: { title: "Renamed", shortDescription: "Still the same inputs" } });
    expect(await marks()).toEqual([]);
    for (const data of [{ featuredLevel: 3 }, { verificationStatus: "verified" as const }, { healthStatus: "degraded" as const }, { publicationState: "unlisted" as const }]) {
      await t.prisma.listing.update({ where: { id: x }, data });
      expect(await marks(), JSON.stringify(data)).toEqual([x]);
      await clearMarks();
    }
  });

  it("reads only the marked, the due and the never-ranked listings, and claims the marks it read", async () => {
    const y = await createTestListing(t.prisma);
    const full = await runRankSweep({ now: NOW });
    expect(full).toMatchObject({ leader: true, mode: "full" });
    expect(await marks()).toEqual([]);
    const soon = (s: number) => new Date(NOW.getTime() + s * 1000);
    expect(await runRankSweep({ now: soon(1), mode: "due" })).toMatchObject({ leader: true, mode: "due", marked: 0, due: 0, scanned: 0, updated: 0 });

    await pay(y, new Date(NOW.getTime() - DAY_MS));
    expect(await runRankSweep({ now: soon(2), mode: "due" })).toMatchObject({ mode: "due", marked: 1, scanned: 1, updated: 1 });
    expect(await marks()).toEqual([]);
    const row = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: y } });
    expect(row.gate).toBe("settleable");
    expect(row.rankedAt?.toISOString()).toBe(soon(2).toISOString());
    // Due when that payment leaves the 30-day window: a millisecond after it is 30 days old.
    expect(row.rankDueAt?.toISOString()).toBe(new Date(NOW.getTime() - DAY_MS + 30 * DAY_MS + 1).toISOString());

    // A mark whose facts did not change is read and let go: nothing written.
    await t.prisma.listing.update({ where: { id: y }, data: { healthStatus: "operational" } });
    await t.prisma.listing.update({ where: { id: y }, data: { healthStatus: "unverified" } });
    expect(await runRankSweep({ now: soon(3), mode: "due" })).toMatchObject({ mode: "due", marked: 1, scanned: 1, updated: 0, unchanged: 1 });

    // A listing created since is unranked, so due.
    const z = await createTestListing(t.prisma);
    await clearMarks();
    expect(await runRankSweep({ now: soon(4), mode: "due" })).toMatchObject({ mode: "due", marked: 0, due: 1, scanned: 1, updated: 1 });
    expect((await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: z } })).inputsHash).not.toBeNull();
  });

  it("re-ranks a listing the instant time changes its facts, and only reschedules it when they stay the same", async () => {
    // One payer: an old failed attempt, then a settlement. The failure leaving the window changes no
    // fact (the payer still attempted within 30 days), so only the due time moves; the settlement
    // leaving changes the gate.
    const w = await createTestListing(t.prisma);
    const failedAt = new Date(NOW.getTime() - 20 * DAY_MS);
    const settledAt = new Date(NOW.getTime() - 10 * DAY_MS);
    await pay(w, failedAt, "failed");
    await pay(w, settledAt, "settled");
    const failureLeaves = new Date(failedAt.getTime() + 30 * DAY_MS + 1);
    const settlementLeaves = new Date(settledAt.getTime() + 30 * DAY_MS + 1);
    await runRankSweep({ now: new Date(failureLeaves.getTime() - 60_000) });
    expect((await dueAt(w))?.toISOString()).toBe(failureLeaves.toISOString());
    const before = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: w } });

    expect(await runRankSweep({ now: new Date(failureLeaves.getTime() - 1), mode: "due" })).toMatchObject({ mode: "due", due: 0, scanned: 0 });
    expect(await runRankSweep({ now: failureLeaves, mode: "due" })).toMatchObject({ mode: "due", due: 1, scanned: 1, updated: 0, unchanged: 1, rescheduled: 1 });
    const after = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: w } });
    expect(after.inputsHash).toBe(before.inputsHash);
    expect(after.rankedAt).toEqual(before.rankedAt);
    expect(after.rankDueAt?.toISOString()).toBe(settlementLeaves.toISOString());

    await runRankSweep({ now: new Date(settlementLeaves.getTime() - 60_000) });
    expect(await runRankSweep({ now: settlementLeaves, mode: "due" })).toMatchObject({ mode: "due", due: 1, scanned: 1, updated: 1 });
    const gone = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: w } });
    expect(gone.gate).toBe("unknown");
    expect(gone.rankDueAt).toBeNull(); // nothing left in any window
  });

  it("reads every listing when its last full read is FULL_SWEEP_INTERVAL_MS old, or when most of the catalog is due", async () => {
    const n = (await t.query<{ n: number }>(`SELECT count(*)::int AS n FROM "listing_ranks"`))[0].n;
    await runRankSweep({ now: NOW });
    expect(await runRankSweep({ now: new Date(NOW.getTime() + FULL_SWEEP_INTERVAL_MS - 1), mode: "due" })).toMatchObject({ mode: "due" });
    expect(await runRankSweep({ now: new Date(NOW.getTime() + FULL_SWEEP_INTERVAL_MS), mode: "due" })).toMatchObject({ mode: "full", scanned: n });
    // A clock that went back is no proof of a recent full read either.
    expect(await runRankSweep({ now: NOW, mode: "due" })).toMatchObject({ mode: "full", scanned: n });
    await t.query(`UPDATE "listing_ranks" SET "inputsHash" = NULL WHERE "listingId" IN (SELECT "listingId" FROM "listing_ranks" ORDER BY 1 LIMIT $1)`, [Math.floor(n * DUE_FULL_SHARE) + 1]);
    const r = await runRankSweep({ now: new Date(NOW.getTime() + 1000), mode: "due" });
    expect(r).toMatchObject({ mode: "full", scanned: n, updated: Math.floor(n * DUE_FULL_SHARE) + 1 });
  });

  it("puts its claimed marks back when it fails", async () => {
    await runRankSweep({ now: NOW });
    const ok = await createTestListing(t.prisma);
    // An id the facts documents refuse (a tab splits its line: no app-made id has one).
    const bad = await createTestListing(t.prisma, { id: "bad\tid" });
    await expect(runRankSweep({ now: new Date(NOW.getTime() + 1000), mode: "due" })).rejects.toThrow(/a listing line has 14 fields, not 13/);
    expect(await marks()).toEqual([ok, bad].sort());
    // The failed run is closed with its error: its leadership ended when the lock was let go.
    const failed = await t.prisma.rankSweepRun.findFirstOrThrow({ orderBy: { id: "desc" } });
    expect(failed).toMatchObject({ mode: "due", scanned: null, error: expect.stringMatching(/14 fields, not 13/) });
    expect(failed.finishedAt).not.toBeNull();
    await t.prisma.endpoint.deleteMany({ where: { listingId: bad } });
    await t.prisma.listing.delete({ where: { id: bad } });
    await runRankSweep({ now: new Date(NOW.getTime() + 2000), mode: "due" });
    expect(await marks()).toEqual([]);
  });

  it("waits for a writer that holds a mark, and then reads its write (server PostgreSQL)", async () => {
    if (t.kind !== "postgres") return;
    const v = await createTestListing(t.prisma);
    await runRankSweep({ now: NOW });
    await pay(v, new Date(NOW.getTime() - DAY_MS)); // committed: its mark exists
    let sweep: Promise<Awaited<ReturnType<typeof runRankSweep>>> | undefined;
    await t.session(async (conn) => {
      await conn.exec("BEGIN");
      // A second payment, uncommitted: its trigger's upsert holds the existing mark's row lock.
      await conn.query(
        `INSERT INTO "router_payments" ("id", "payer", "listingId", "advertisedAmount", "settledAmount", "asset", "network", "status", "createdAt")
         VALUES ('p-held', $1, $2, '10000', '10000', 'USDC', 'eip155:8453', 'settled', $3::timestamp)`,
        [wallet(8), v, utcTimestamp(new Date(NOW.getTime() - DAY_MS))],
      );
      let done = false;
      sweep = runRankSweep({ now: new Date(NOW.getTime() + 1000), mode: "due" });
      void sweep.then(() => (done = true));
      await new Promise((ok) => setTimeout(ok, 300));
      expect(done).toBe(false); // the claim waits for the writer
      await conn.exec("COMMIT");
    });
    expect(await sweep!).toMatchObject({ mode: "due", marked: 1, scanned: 1, updated: 1 });
    const [facts] = await ledgerFacts({ ids: [v] }, NOW);
    expect(facts.distinctPayers30d).toBe(2);
    const row = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: v } });
    expect(row.inputsHash).toBe(rankInputsHash((await rankInputsFor([v], NOW)).get(v)!));
    expect(await marks()).toEqual([]);
  });
});
