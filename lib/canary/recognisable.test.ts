/** The canary's calls name neither the canary nor Tollgate in any header the seller receives (docs/CANARY.md). */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { callEndpoint } from "./pay";
import { ENDPOINT_SELECT } from "./choose";

let t: TestDatabase;
let seller: ReturnType<typeof createServer>;
let host: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  seller = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(500, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((r) => seller.listen(0, "127.0.0.1", r));
  host = `127.0.0.1:${(seller.address() as AddressInfo).port}`;
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
  seller?.close();
});

describe("the canary's calls cannot be told from a buyer's", () => {
  it("the request the seller receives names no canary (User-Agent)", async () => {
    const listingId = await createTestListing(t.prisma, { baseUrl: `http://${host}` });
    const listing = await t.prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { slug: true } });
    const e = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId }, select: ENDPOINT_SELECT });
    const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "test", state: "running" } });
    const done = await callEndpoint(
      { slug: listing.slug, endpoint: e as never, identity: { runId: run.id, listingId, endpointId: e.id, method: e.method, path: e.path, listedAmount: e.priceAmount }, account: privateKeyToAccount(generatePrivateKey()), slowMs: 30_000, priorId: null },
      { allowHosts: [host] },
    );
    expect(done.data.reason).toBe("unpaid_http_500"); // the seller was reached
    expect(seen.length).toBeGreaterThan(0);
    for (const h of seen) expect(JSON.stringify(h)).not.toMatch(/canary|tollgate/i);
  });
});
