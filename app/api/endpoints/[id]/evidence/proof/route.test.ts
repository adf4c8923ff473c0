/**
 * GET /api/endpoints/:id/evidence/proof on a real anvil: the day's root published by the tick as the
 * demo wires it (the facilitator's signer and queue), the proof served for the endpoint's own bundle
 * only, 404 root_not_published before the day's root exists.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attestedBundleHashes, runDailyRoot } from "@/lib/attest/root-ticks";
import { DAY_MS } from "@/lib/attest/daily-root";
import { EVIDENCE_ROOTS_ABI, LOCAL_EVIDENCE_ROOTS_ADDRESS } from "@/lib/attest/evidence-roots";
import { verifyInclusion } from "@/lib/attest/merkle";
import { ROOTS_CALLER } from "@/lib/attest/root-chain";
import { startAnvil, type AnvilNode } from "@/lib/chain/anvil";
import { facilitatorFromEnv } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, setupLocalChain, type LocalChain } from "@/lib/chain/local-chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { GET } from "./route";

let node: AnvilNode;
let local: LocalChain;
let db: TestDatabase;

const DAY = 20_427;
const at = (day: number, hh: number, mm = 0) => new Date(day * DAY_MS + (hh * 60 + mm) * 60_000).toISOString();
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const [b1, b2, b3, b4] = ["e1 morning", "e1 last minute", "e2", "e1 next day"].map(sha);

async function grade(endpointId: string, bundle: string, issuedAt: string): Promise<void> {
  await db.query(`INSERT INTO "trust_evidence_bundles" ("sha256", "encoding", "bytes", "size") VALUES ($1, 'identity', '\\x7b7d'::bytea, 2) ON CONFLICT DO NOTHING`, [bundle]);
  await db.query(
    `INSERT INTO "trust_grades" ("id", "listingId", "endpointId", "method", "path", "verdict", "detail", "rubricRef", "readingRef", "rubricSha256", "readingSha256", "seed",
       "scoredAt", "bundleSha256", "observations", "statement", "envelope", "keyid", "issuedAt", "expiresAt")
     VALUES ($1, 'lst_1', $2, 'GET', '/x', 'insufficient_evidence', '{}', 'r', 'r/1', $3, $3, 1, $4::timestamptz AT TIME ZONE 'UTC', $5, 0, '{}', '{}', 'k', $4::timestamptz AT TIME ZONE 'UTC', ($4::timestamptz + interval '1 day') AT TIME ZONE 'UTC')`,
    [`grd_${bundle.slice(0, 12)}`, endpointId, sha("rubric"), issuedAt, bundle],
  );
}

beforeAll(async () => {
  [node, db] = await Promise.all([startAnvil(), createTestDatabase()]);
  local = await setupLocalChain(node.rpcUrl);
  // The demo's configuration: the local chain and the facilitator's key (env() is read lazily, after this).
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  await grade("ep_1", b1, at(DAY, 10));
  await grade("ep_1", b2, at(DAY, 23, 59));
  await grade("ep_2", b3, at(DAY, 4));
  await grade("ep_1", b4, at(DAY + 1, 0, 1));
});
afterAll(async () => {
  await Promise.all([node?.stop(), db?.close()]);
});

const get = (id: string, query: string) => GET(new Request(`http://127.0.0.1:3999/api/endpoints/${id}/evidence/proof${query}`), { params: Promise.resolve({ id }) });

describe("GET /api/endpoints/:id/evidence/proof", () => {
  it("a day's hashes are the bundles of the attestations issued that UTC day", async () => {
    expect((await attestedBundleHashes(DAY, db)).sort()).toEqual([b1, b2, b3].sort());
    expect(await attestedBundleHashes(DAY + 1, db)).toEqual([b4]);
    expect(await attestedBundleHashes(DAY - 1, db)).toEqual([]);
  });

  it("404 root_not_published before the tick publishes the day; then the proof, verified against rootOf on chain", async () => {
    const before = await get("ep_1", `?sha256=${b1}`);
    expect(before.status).toBe(404);
    expect((await before.json()).error).toMatchObject({ code: "root_not_published", day: DAY, status: null });

    const run = await runDailyRoot(new Date((DAY + 1) * DAY_MS + 10 * 60_000));
    expect(run).toMatchObject({ leader: true });
    expect(facilitatorFromEnv().sends.history().filter((s) => s.caller === ROOTS_CALLER)).toHaveLength(1);

    const onChain = await local.publicClient.readContract({ address: LOCAL_EVIDENCE_ROOTS_ADDRESS, abi: EVIDENCE_ROOTS_ABI, functionName: "rootOf", args: [DAY] });
    for (const [id, bundle] of [["ep_1", b1], ["ep_1", b2], ["ep_2", b3]]) {
      const res = await get(id, `?sha256=${bundle}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const proof = await res.json();
      expect(Object.keys(proof).sort()).toEqual(["_type", "bundleSha256", "chain", "day", "leaf", "root", "siblings"]);
      expect(proof).toMatchObject({ _type: "tollgate.inclusion-proof/1", bundleSha256: bundle, day: DAY, root: onChain, chain: { network: "eip155:31337", contract: LOCAL_EVIDENCE_ROOTS_ADDRESS.toLowerCase() } });
      expect(proof.chain.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(verifyInclusion(proof.bundleSha256, proof.siblings, onChain)).toBe(true);
    }
    // The next day is not over: its bundle has no proof yet.
    const next = await get("ep_1", `?sha256=${b4}`);
    expect(next.status).toBe(404);
    expect((await next.json()).error).toMatchObject({ code: "root_not_published", day: DAY + 1 });
  });

  it("another endpoint's bundle, or an unknown one, is not this endpoint's: 404 not_found", async () => {
    for (const [id, bundle] of [["ep_2", b1], ["ep_1", b3], ["ep_1", sha("never attested")], ["ep_nope", b1]]) {
      const res = await get(id, `?sha256=${bundle}`);
      expect(res.status, `${id} ${bundle}`).toBe(404);
      expect((await res.json()).error.code).toBe("not_found");
    }
  });

  it("400 naming /sha256 for a missing or malformed hash", async () => {
    for (const q of ["", "?sha256=", `?sha256=${b1.toUpperCase()}`, `?sha256=0x${b1}`, "?sha256=abc"]) {
      const res = await get("ep_1", q);
      expect(res.status, q).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "bad_request", details: [{ pointer: "/sha256" }] });
    }
  });
});
