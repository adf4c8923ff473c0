/**
 * Finding an attestation by URL when it is contested (docs/ATTESTATIONS.md "Finding an attestation by URL"):
 * a later listing of the same URL, another organisation's or the seller's own second one, never takes over what
 * the guard reads; the guard names the method it pays and is held to that method's endpoint; a base URL written
 * with an upper-case host or a default port is found at its own URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor, publicKeySet } from "@/lib/badges/keys";
import { gradeListing } from "@/lib/attest/sweep";
import { writeListing } from "@/lib/listings/save";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring, RFC8032_TEST1_SEED_HEX } from "@/test/badges";
import { gradedDoc, gradedListing } from "@/test/attest";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint } from "@/test/readiness";
import { PAY_TO, USDC } from "@/test/trust";
import { TollgateGuard, type PaymentTerms } from "@/clients/guard/src/index";
import { GET } from "@/app/api/attestations/route";

let t: TestDatabase;
const keyring = fixedKeyring();
const URL_X = "https://api.example.com/v1/x";
const get = (query: string) => GET(new Request(`http://localhost/api/attestations${query}`));
const guard = () => new TollgateGuard({ tollgate: "http://localhost", keys: publicKeySet(keyring), fetch: (async (i: RequestInfo | URL) => GET(new Request(String(i)))) as typeof fetch, now: () => Date.now() + 60_000 });
const priced = (amount: string) => ({ label: "$0.01", usd: "0.01", machine: { amount, asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed" as const, dynamic: null });
let honest: { id: string; endpointId: string };
let terms: PaymentTerms;

beforeAll(async () => {
  process.env.BADGE_SIGNING_KEY = Buffer.from(RFC8032_TEST1_SEED_HEX, "hex").toString("base64");
  process.env.BADGE_SIGNING_KEY_NOT_BEFORE = "2026-01-01T00:00:00Z";
  t = await createTestDatabase();
  honest = await gradedListing(t.prisma, 4);
  await gradeListing(t.prisma, honest.id, { now: new Date(), signer: signerFor(keyring) });
  const s = (await (await get(`?url=${encodeURIComponent(URL_X)}`)).json()).statement;
  terms = { url: URL_X, method: "POST", scheme: "exact", network: s.payment.network, asset: s.payment.asset, payTo: s.payment.payTo, amount: s.payment.amount };
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe("a URL listed more than once", () => {
  it("the honest POST payment is vouched for before anyone else lists the URL", async () => {
    expect(await guard().check(terms)).toMatchObject({ ok: true, statement: { endpoint: { id: honest.endpointId, method: "POST" } } });
  });

  it("another organisation listing the same URL later (with a method that sorts first) takes over nothing", async () => {
    const { org } = await seedOwner(t.prisma);
    const squat = await writeListing(gradedDoc({ endpoints: [fullEndpoint({ method: "DELETE", path: "/v1/x", payable: true, pricing: priced("1") }), fullEndpoint({ method: "POST", path: "/v1/x", payable: true, pricing: priced("1") })] }), { organizationId: org.id, publicationState: "published" });
    await gradeListing(t.prisma, squat.id, { now: new Date(), signer: signerFor(keyring), force: true });
    // Without a method, and with the squatter's own POST: the first-published listing answers.
    for (const q of [`?url=${encodeURIComponent(URL_X)}`, `?url=${encodeURIComponent(URL_X)}&method=POST`]) {
      const body = await (await get(q)).json();
      expect(body.statement.endpoint).toMatchObject({ id: honest.endpointId, listingId: honest.id });
    }
    expect(await guard().check(terms)).toMatchObject({ ok: true, statement: { endpoint: { id: honest.endpointId } } });
    // A method only the squatter lists there is the squatter's, and the honest POST is never checked against it.
    expect((await (await get(`?url=${encodeURIComponent(URL_X)}&method=DELETE`)).json()).statement.endpoint.listingId).toBe(squat.id);
  });

  it("the seller's own second listing of the URL (to shed the first one's grade) is not what the guard reads", async () => {
    const first = await t.prisma.listing.findUniqueOrThrow({ where: { id: honest.id }, select: { organizationId: true } });
    const second = await writeListing(gradedDoc(), { organizationId: first.organizationId, publicationState: "published" });
    await gradeListing(t.prisma, second.id, { now: new Date(), signer: signerFor(keyring), force: true });
    expect((await (await get(`?url=${encodeURIComponent(URL_X)}&method=POST`)).json()).statement.endpoint.listingId).toBe(honest.id);
  });
});

describe("a squatter who listed a seller's URL first", () => {
  const VICTIM = "https://victim.example.com";
  const victimUrl = `${VICTIM}/v1/x`;
  const lookup = async () => (await (await get(`?url=${encodeURIComponent(victimUrl)}&method=POST`)).json()).statement.endpoint.listingId as string;

  it("holds the URL only until the seller lists it from the wallet the endpoint is paid to; the seller's own later listing does not take it back from the first", async () => {
    // A stranger lists the seller's URL before the seller does (its grade names the seller's payTo, as probed).
    const squat = await gradedListing(t.prisma, 4, { baseUrl: VICTIM });
    await gradeListing(t.prisma, squat.id, { now: new Date(), signer: signerFor(keyring), force: true });
    expect(await lookup()).toBe(squat.id);
    // The seller signs in with its payee wallet (SIWE makes a user and an organisation of it) and lists its URL.
    const seller = await t.prisma.user.create({ data: { name: "payee", walletAddress: PAY_TO.toLowerCase(), role: "seller", organization: { create: { slug: `payee-${Date.now()}`, name: "Payee" } } } });
    const own = await gradedListing(t.prisma, 4, { baseUrl: VICTIM, organizationId: seller.organizationId! });
    await gradeListing(t.prisma, own.id, { now: new Date(), signer: signerFor(keyring), force: true });
    expect(await lookup()).toBe(own.id);
    const s = (await (await get(`?url=${encodeURIComponent(victimUrl)}&method=POST`)).json()).statement;
    expect(await guard().check({ url: victimUrl, method: "POST", scheme: "exact", network: s.payment.network, asset: s.payment.asset, payTo: s.payment.payTo, amount: s.payment.amount })).toMatchObject({ ok: true, statement: { endpoint: { listingId: own.id } } });
    // The seller's second listing of the URL, from the same wallet, does not take over from its first.
    const second = await gradedListing(t.prisma, 4, { baseUrl: VICTIM, organizationId: seller.organizationId! });
    await gradeListing(t.prisma, second.id, { now: new Date(), signer: signerFor(keyring), force: true });
    expect(await lookup()).toBe(own.id);
  });
});

describe("one seller, two methods on one path", () => {
  it("a POST payment is judged by the POST endpoint's attestation, never the GET one's", async () => {
    const { org } = await seedOwner(t.prisma);
    const base = "https://two.example.com";
    const { id } = await writeListing(gradedDoc({ baseUrl: base, endpoints: [fullEndpoint({ method: "POST", path: "/v1/x", payable: true, pricing: priced("10000") }), fullEndpoint({ method: "GET", path: "/v1/x", payable: false, pricing: null })] }), { organizationId: org.id, publicationState: "published" });
    await gradeListing(t.prisma, id, { now: new Date(), signer: signerFor(keyring), force: true });
    const g = guard();
    const post = await g.check({ ...terms, url: `${base}/v1/x` });
    // Checked against the POST endpoint (its own attestation), not refused as the free GET endpoint's.
    expect(post).not.toMatchObject({ code: "free_listing" });
    if (post.ok) expect(post.statement.endpoint.method).toBe("POST");
    // The GET endpoint's attestation says free; a payment asked there is refused as such.
    expect(await g.check({ ...terms, url: `${base}/v1/x`, method: "GET" })).toMatchObject({ ok: false, code: "free_listing" });
    // Each method is its own lookup and cache entry.
    expect([...g.stats.lookups.keys()].sort()).toEqual([`GET ${base}/v1/x`, `POST ${base}/v1/x`]);
    // A method no endpoint can be listed with is unlisted, without asking Tollgate.
    expect(await g.check({ ...terms, url: `${base}/v1/x`, method: "OPTIONS" })).toMatchObject({ ok: false, code: "unlisted" });
  });

  it("guard.fetch reads the method from the call: init.method, a Request's method, else GET", async () => {
    const g = guard();
    const charge = { method: "tempo", intent: "charge", request: { amount: terms.amount, currency: terms.asset, recipient: terms.payTo, methodDetails: { chainId: 8453 } } };
    const paying = g.fetch(async (_input: RequestInfo | URL, _init?: RequestInit) => {
      await g.mppxOnChallenge(charge);
      return new Response("paid");
    });
    const pay = (input: RequestInfo | URL, init?: RequestInit) => paying(input, init).then((r) => r.text(), (e: { code?: string }) => e.code ?? String(e));
    expect(await pay(URL_X, { method: "post" })).toBe("paid");
    expect(await pay(new Request(URL_X, { method: "POST" }))).toBe("paid");
    // No GET endpoint is listed at this URL.
    expect(await pay(URL_X)).toBe("unlisted");
  });
});

describe("a base URL not written as the lookup writes URLs", () => {
  it("an upper-case host and an explicit default port are found at the listing's own URL", async () => {
    const { org } = await seedOwner(t.prisma);
    for (const base of ["https://Mixed.Example.com:443", "http://PLAIN.example.com:80/api/"]) {
      const { id } = await writeListing(gradedDoc({ baseUrl: base }), { organizationId: org.id, publicationState: "published" });
      const url = `${base.replace(/\/$/, "")}/v1/x`;
      // Listed and not yet graded: no_attestation, not no_endpoint ("unlisted" to the guard).
      const body = await (await get(`?url=${encodeURIComponent(url)}`)).json();
      expect(body.error?.reason, base).toBe("no_attestation");
      expect(id).toBeTruthy();
    }
    // A port that is not the default is part of the origin.
    expect((await (await get(`?url=${encodeURIComponent("https://mixed.example.com:8443/v1/x")}`)).json()).error?.reason).toBe("no_endpoint");
  });
});
