/**
 * GET /api/endpoints/:id/evidence/proof on a real anvil and real stored grades: the day's root
 * published by the tick as the demo wires it (the facilitator's signer and queue), the proof served
 * for the endpoint's own bundle only and checked against rootOf on chain and the evidence route's
 * bytes, 404 root_not_published before the day's root exists.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, utcDay } from "@/lib/attest/daily-root";
import { EVIDENCE_ROOTS_ABI, LOCAL_EVIDENCE_ROOTS_ADDRESS } from "@/lib/attest/evidence-roots";
import { verifyInclusion } from "@/lib/attest/merkle";
import { ROOTS_CALLER } from "@/lib/attest/root-chain";
import { attestedBundleHashes, runDailyRoot } from "@/lib/attest/root-ticks";
import { gradeListing } from "@/lib/attest/sweep";
import { signerFor } from "@/lib/badges/keys";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { facilitatorFromEnv } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { fixedKeyring } from "@/test/badges";
import { GRADE_NOW, gradedListing } from "@/test/attest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { GET as evidence } from "../route";
import { GET } from "./route";

let node: AnvilNode;
let local: LocalChain;
let db: TestDatabase;
const endpoints: { endpointId: string; bundle: string; day: number }[] = [];

beforeAll(async () => {
  [node, db] = await Promise.all([startAnvil(), createTestDatabase()]);
  local = await setupLocalChain(node.rpcUrl);
  // The demo's configuration: the local chain and the facilitator's key (env() is read lazily, after this).
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  for (let i = 0; i < 3; i++) {
    const { id, endpointId } = await gradedListing(db.prisma, 3);
    await gradeListing(db.prisma, id, { now: GRADE_NOW, signer: signerFor(fixedKeyring()) });
    const [g] = await db.query<{ bundle: string; issuedAt: string }>(
      `SELECT g."bundleSha256" AS "bundle", to_char(g."issuedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "issuedAt" FROM "trust_grades" g JOIN "endpoints" e ON e."listingId" = g."listingId" WHERE e."id" = $1`,
      [endpointId],
    );
    endpoints.push({ endpointId, bundle: g.bundle, day: utcDay(new Date(g.issuedAt)) });
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([node?.stop(), db?.close()]);
});

const get = (route: typeof GET, id: string, query = "") => route(new Request(`http://127.0.0.1:3999/api/endpoints/${id}/evidence/proof${query}`), { params: Promise.resolve({ id }) });
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe("GET /api/endpoints/:id/evidence/proof", () => {
  it("a day's hashes are the bundles of the attestations issued that UTC day", async () => {
    const days = [...new Set(endpoints.map((e) => e.day))];
    for (const day of days) {
      expect((await attestedBundleHashes(day, db)).sort()).toEqual(endpoints.filter((e) => e.day === day).map((e) => e.bundle).sort());
    }
    expect(await attestedBundleHashes(days[0] - 1, db)).toEqual([]);
  });

  it("404 root_not_published before the tick publishes the day; then the proof, verified against rootOf on chain and the evidence route's bytes", async () => {
    const [first] = endpoints;
    const before = await get(GET, first.endpointId);
    expect(before.status).toBe(404);
    expect((await before.json()).error).toMatchObject({ code: "root_not_published", day: first.day, status: null });

    // The tick, the day after the last grade (and its grace) is over.
    const lastDay = Math.max(...endpoints.map((e) => e.day));
    const run = await runDailyRoot(new Date((lastDay + 1) * DAY_MS + 10 * 60_000));
    expect(run).toMatchObject({ leader: true });
    expect(facilitatorFromEnv().sends.history().filter((s) => s.caller === ROOTS_CALLER).length).toBe(new Set(endpoints.map((e) => e.day)).size);

    for (const e of endpoints) {
      const onChain = await local.publicClient.readContract({ address: LOCAL_EVIDENCE_ROOTS_ADDRESS, abi: EVIDENCE_ROOTS_ABI, functionName: "rootOf", args: [e.day] });
      const bytes = Buffer.from(await (await get(evidence, e.endpointId)).arrayBuffer());
      expect(sha(bytes.toString("utf8"))).toBe(e.bundle);
      for (const query of ["", `?sha256=${e.bundle}`]) {
        const res = await get(GET, e.endpointId, query);
        expect(res.status).toBe(200);
        expect(res.headers.get("access-control-allow-origin")).toBe("*");
        const proof = await res.json();
        expect(Object.keys(proof).sort()).toEqual(["_type", "bundleSha256", "chain", "day", "leaf", "root", "siblings"]);
        expect(proof).toMatchObject({ _type: "tollgate.inclusion-proof/1", bundleSha256: e.bundle, day: e.day, root: onChain, chain: { network: "eip155:31337", contract: LOCAL_EVIDENCE_ROOTS_ADDRESS.toLowerCase() } });
        expect(proof.chain.transaction).toMatch(/^0x[0-9a-f]{64}$/);
        expect(verifyInclusion(proof.bundleSha256, proof.siblings, onChain)).toBe(true);
      }
    }
  });

  it("another endpoint's bundle, or one never attested, is not this endpoint's: 404 no_bundle; an unknown endpoint 404", async () => {
    const [a, b] = endpoints;
    for (const [id, bundle] of [[b.endpointId, a.bundle], [a.endpointId, b.bundle], [a.endpointId, sha("never attested")]]) {
      const res = await get(GET, id, `?sha256=${bundle}`);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatchObject({ code: "not_found", reason: "no_bundle" });
    }
    const unknown = await get(GET, "nosuchendpoint");
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.reason).toBe("no_endpoint");
  });

  it("400 naming /sha256 or /id for a malformed hash or id", async () => {
    const [a] = endpoints;
    for (const q of ["?sha256=", `?sha256=${a.bundle.toUpperCase()}`, `?sha256=0x${a.bundle}`, "?sha256=abc"]) {
      const res = await get(GET, a.endpointId, q);
      expect(res.status, q).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "bad_request", details: [{ pointer: "/sha256" }] });
    }
    const badId = await get(GET, "no/such id");
    expect(badId.status).toBe(400);
    expect((await badId.json()).error.details[0].pointer).toBe("/id");
  });
});
