/**
 * The one intake, through both doors: the seller's form (draftFromUrlAction) and the API
 * (POST /api/analyses {url}), against loopback fixture sellers whose endpoint handlers count the
 * calls they get and hold each one open a while, so calls in flight together can be seen.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { FIXTURE_SELLERS, startFixtureSellers, type FixtureSeller, type FixtureServer } from "@/sellers";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";

// The door's target check as lib/net exports it, counted (the real function does the work).
vi.mock("@/lib/net", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/net")>();
  return { ...real, checkTarget: vi.fn(real.checkTarget) };
});
// The server action and the route read the signed-in user from next-auth; here the test says who.
const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));

import { checkTarget } from "@/lib/net";
import { draftFromUrlAction } from "@/lib/surfaces/seller-actions";
import { POST as submitRoute } from "@/app/api/analyses/route";
import { opsClaim, opsFail } from "@/lib/ops/handlers";
import { realProbe } from "@/lib/catalog-monitor/probes";
import { completeLease } from "@/lib/analyses/store-result";
import { createListingForSeller } from "@/lib/listings/save";
import { publishListing } from "@/lib/listings/publish";
import { loadListingDocuments } from "@/lib/listings/load-listing-documents";
import { registerListing } from "./register-listing";
import { writeDraftedListing } from "@/lib/listings/save";
import { adminDesk } from "@/lib/surfaces/admin";
import { fullListing } from "@/test/readiness";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";

const HOLD_MS = 150;
const hits = new Map<string, number>();
let inFlight = 0;
let maxInFlight = 0;

/** The seller with every endpoint handler counting its calls and holding each for HOLD_MS. */
function counted(s: FixtureSeller): FixtureSeller {
  const slug = s.slug;
  return {
    ...s,
    endpoints: s.endpoints.map((e) => ({
      ...e,
      handle: async (ctx) => {
        const key = `${e.method} /${slug}${e.path}`;
        hits.set(key, (hits.get(key) ?? 0) + 1);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          await new Promise((r) => setTimeout(r, HOLD_MS));
          await e.handle(ctx);
        } finally {
          inFlight--;
        }
      },
    })),
  };
}

const fixture = (slug: string) => FIXTURE_SELLERS.find((x) => x.slug === slug)!;
/** A paid GET endpoint (agent-verdict's 402, answered to a GET): a URL that is a resource itself. */
const av = fixture("agent-verdict");
const getQuote: FixtureSeller = {
  ...av,
  slug: "get-quote",
  discovery: { wellKnown: false, openapi: false },
  endpoints: [{ ...av.endpoints[0], method: "GET", path: "/quote", handle: (ctx) => av.endpoints[0].handle({ ...ctx, body: Buffer.from("{}") }) }],
};

let server: FixtureServer;
let t: TestDatabase;
const savedAllow = process.env.TOLLGATE_PROBE_ALLOW_HOSTS;

beforeAll(async () => {
  server = await startFixtureSellers({ port: 0, sellers: [counted(fixture("validity-check")), counted(getQuote)] });
  // Before anything reads lib/env (it parses once): the probe's allow-list names this loopback seller.
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${server.port}`;
  t = await createTestDatabase();
});
afterAll(async () => {
  if (savedAllow === undefined) delete process.env.TOLLGATE_PROBE_ALLOW_HOSTS;
  else process.env.TOLLGATE_PROBE_ALLOW_HOSTS = savedAllow;
  await server?.close();
  await t?.close();
});
beforeEach(() => {
  hits.clear();
  maxInFlight = 0;
  vi.mocked(checkTarget).mockClear();
});

const VALIDITY_ENDPOINTS = ["GET /validity-check/criteria", "POST /validity-check/precheck", "POST /validity-check/upto", "POST /validity-check/validity"];

describe("the form's door (draftFromUrlAction → registerListing, review)", () => {
  it("calls each endpoint exactly once, several at a time, and validates the target once", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const r = await draftFromUrlAction(`  ${server.url}/validity-check  `);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.url).toBe(`${server.url}/validity-check`);
    expect(r.draft.endpoints.map((e) => `${e.method} /validity-check${e.path}`).sort()).toEqual([...VALIDITY_ENDPOINTS].sort());
    expect(Object.fromEntries(hits)).toEqual(Object.fromEntries(VALIDITY_ENDPOINTS.map((k) => [k, 1])));
    expect(maxInFlight).toBeGreaterThan(1);
    expect(checkTarget).toHaveBeenCalledTimes(1);
    expect("calls" in r).toBe(false); // the raw answers stay on the server
  });

  it("answers with the named checks of each payable endpoint and our readiness rules, each receipted", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const r = await draftFromUrlAction(`${server.url}/validity-check`);
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(r.checks.map((c) => c.endpoint).sort()).toEqual(["POST /upto", "POST /validity"]);
    for (const c of r.checks) {
      expect(c.checks.map((x) => x.id)).toEqual(["reachable", "returns_402", "has_bazaar_extension", "parses", "method_matches"]);
      expect(c.checks.find((x) => x.id === "returns_402")?.pass).toBe(true);
    }
    expect(r.readiness.rules.length).toBeGreaterThan(20);
    const receipts = await t.prisma.bazaarReceipt.findMany({ where: { kind: "register", caller: `user:${user.id}` } });
    expect(receipts.map((x) => x.resourceUrl).sort()).toEqual(r.checks.map((c) => c.url).sort());
  });

  it("checks the target once at the draft and the saved base URL once at publish, handing it on to the queue", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const url = `${server.url}/get-quote/quote`;
    const r = await draftFromUrlAction(url);
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(checkTarget).toHaveBeenCalledTimes(1);
    const saved = await createListingForSeller(user.id, r.draft, `import:${url}`);
    vi.mocked(checkTarget).mockClear();
    const published = await publishListing(user.id, saved.id);
    expect(published.analysis.state).toBe("queued");
    expect(checkTarget).toHaveBeenCalledTimes(1);
    expect(vi.mocked(checkTarget).mock.calls[0][0]).toBe(r.draft.baseUrl);
    expect((await t.prisma.analysis.findUniqueOrThrow({ where: { id: published.analysis.id } })).targetUrl).toBe(r.draft.baseUrl);
  });

  it("a URL that is an endpoint itself is called once, not once as a document and again for its 402", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const r = await draftFromUrlAction(`${server.url}/get-quote/quote`);
    expect(r.ok).toBe(true);
    // (The 402's bazaar names POST, so the draft says POST; the point here is the one GET.)
    if (r.ok) expect(r.draft.endpoints.map((e) => `${e.path} ${e.payable} ${e.pricing?.usd}`)).toEqual(["/get-quote/quote true 0.04"]);
    expect(Object.fromEntries(hits)).toEqual({ "GET /get-quote/quote": 1 });
  });

  it("a refused target is the form's refusal, with advice, and nothing is called", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const r = await draftFromUrlAction(`${server.url}/validity-check?key=1`);
    expect(r).toMatchObject({ ok: false, code: "query_not_allowed" });
    if (!r.ok) expect(r.advice).toBeTruthy();
    expect(hits.size).toBe(0);
    expect(checkTarget).toHaveBeenCalledTimes(1);
  });
});

describe("duplicate intake (issue 19 item 2)", () => {
  it("the same owner drafting a service it already lists is offered the existing listing; another owner may list it and is told nothing", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const url = `${server.url}/validity-check`;
    const first = await draftFromUrlAction(url);
    if (!first.ok) throw new Error(JSON.stringify(first));
    expect(first.existing).toEqual([]);
    const saved = await createListingForSeller(user.id, first.draft, `import:${url}`);

    // Again, with a trailing slash: the same base URL.
    const again = await draftFromUrlAction(`${url}/`);
    if (!again.ok) throw new Error(JSON.stringify(again));
    expect(again.existing).toEqual([{ id: saved.id, slug: saved.slug, title: first.draft.title, publicationState: "draft", reason: "base_url" }]);
    expect(saved.slug.length).toBeLessThanOrEqual(48);

    // Another organisation: allowed, and not told of the first one's (private) draft.
    const other = await seedOwner(t.prisma);
    session.uid = other.user.id;
    const theirs = await draftFromUrlAction(url);
    if (!theirs.ok) throw new Error(JSON.stringify(theirs));
    expect(theirs.existing).toEqual([]);
    const second = await createListingForSeller(other.user.id, theirs.draft, `import:${url}`);
    expect(second.id).not.toBe(saved.id);
    expect(second.slug).not.toBe(saved.slug);
  });
});

describe("the same title at intake", () => {
  it("flags the organisation's own listing and another's published one of the same title (any case or spacing), never another's draft", async () => {
    const url = `${server.url}/validity-check`;
    const probe = await seedOwner(t.prisma);
    session.uid = probe.user.id;
    const drafted = await draftFromUrlAction(url);
    if (!drafted.ok) throw new Error(JSON.stringify(drafted));
    const title = drafted.draft.title;
    expect(drafted.sameTitle).toEqual([]);

    const mine = await seedOwner(t.prisma);
    const shouting = `  ${title.toUpperCase().replace(/ /g, "  ")} `;
    const ownId = await seedListing(t.prisma, mine.org.id, { baseUrl: "https://elsewhere.example.com", title: shouting });
    const theirs = await seedOwner(t.prisma);
    const publishedId = await seedListing(t.prisma, theirs.org.id, { baseUrl: "https://mirror.example.com", title });
    const draftId = await seedListing(t.prisma, theirs.org.id, { baseUrl: "https://private.example.com", title });
    await t.prisma.listing.update({ where: { id: draftId }, data: { publicationState: "draft" } });

    session.uid = mine.user.id;
    const r = await draftFromUrlAction(url);
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(r.sameTitle.map((x) => [x.id, x.own])).toEqual([[ownId, true], [publishedId, false]]);
    expect(r.sameTitle.map((x) => x.id)).not.toContain(draftId);
  });
});

describe("duplicate intake at the API's door (issue 19 item 10)", () => {
  const submit = (body: unknown) => submitRoute(new Request("http://x/api/analyses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));

  it("the same owner is refused with 409 duplicate_listing naming the listing, unless it confirms; another owner is queued and the moderators see the overlap", async () => {
    const mine = await seedOwner(t.prisma);
    const host = `dup-${mine.org.slug}.example.com`;
    const existingId = await seedListing(t.prisma, mine.org.id, { baseUrl: `https://${host}/api` });
    const existing = await t.prisma.listing.findUniqueOrThrow({ where: { id: existingId } });
    session.uid = mine.user.id;
    const before = await t.prisma.analysis.count();

    // Another spelling of the same base URL: the host's case, "www." and a trailing slash do not matter.
    const res = await submit({ url: `https://www.${host.toUpperCase()}/api/` });
    expect(res.status).toBe(409);
    const body = (await res.json()).error;
    expect(body).toMatchObject({ code: "duplicate_listing", existing: [{ id: existingId, slug: existing.slug, title: existing.title, publicationState: "published", reason: "base_url" }] });
    expect(body.message).toContain(existingId);
    expect(body.message).toContain("allowDuplicate");
    expect(body.details).toEqual([{ pointer: "/url", message: `the same base URL as listing ${existingId} (${existing.slug})` }]);
    expect(await t.prisma.analysis.count()).toBe(before);

    // Only a boolean confirms.
    expect((await submit({ url: `https://${host}/api`, allowDuplicate: "yes" })).status).toBe(400);
    // Confirmed: queued.
    expect((await submit({ url: `https://${host}/api`, allowDuplicate: true })).status).toBe(202);
    // A different path on the host is a different service: past the duplicate check, it meets the
    // one-active-analysis rule instead (that analysis is still queued).
    expect((await (await submit({ url: `https://${host}/other` })).json()).error.code).toBe("conflict");

    // Another organisation: queued, told nothing of the first one's listing.
    const theirs = await seedOwner(t.prisma);
    session.uid = theirs.user.id;
    const queued = await submit({ url: `https://${host}/api` });
    expect(queued.status).toBe(202);
    expect(JSON.stringify(await queued.json())).not.toContain(existingId);
    // When the completion writes their draft (the worker's draft, written as lib/analyses/store-result.ts
    // does), the moderators' desk flags the two listings of one service.
    const analysis = await t.prisma.analysis.findFirstOrThrow({ where: { submitter: theirs.user.id }, orderBy: { createdAt: "desc" } });
    const written = await writeDraftedListing(t.prisma, fullListing({ baseUrl: `https://${host}/api` }), { analysisId: analysis.id, submitter: theirs.user.id, targetUrl: analysis.targetUrl });
    const moderator = await seedOwner(t.prisma, "moderator");
    const desk = await adminDesk(moderator.user.id);
    expect(desk.listings.find((l) => l.id === written)!.overlaps).toEqual([expect.objectContaining({ id: existingId, reason: "base_url" })]);
    expect(desk.listings.find((l) => l.id === existingId)!.overlaps).toEqual([expect.objectContaining({ id: written, reason: "base_url" })]);
  });

  it("a re-analysis by listing id is never a duplicate", async () => {
    const mine = await seedOwner(t.prisma);
    const existingId = await seedListing(t.prisma, mine.org.id, { baseUrl: `https://again-${mine.org.slug}.example.com` });
    session.uid = mine.user.id;
    expect((await submit({ listingId: existingId })).status).toBe(202);
  });
});

describe("the API's door (POST /api/analyses {url} → registerListing, queue)", () => {
  it("validates once and queues; the worker drafts and probes with one call per endpoint; the completion writes what the form's save writes", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const url = `${server.url}/validity-check`;

    // The form: draft, then the seller saves it as it stands (saveListingAction's create).
    const form = await draftFromUrlAction(url);
    if (!form.ok) throw new Error(JSON.stringify(form));
    const saved = await createListingForSeller(user.id, form.draft, `import:${url}`);

    // The API: the organisation already lists it (the form's save), so 409 naming that listing,
    // before a target check or an analysis row; then, confirmed, 202 with the queued analysis and no listing yet.
    vi.mocked(checkTarget).mockClear();
    const submit = (body: unknown) => submitRoute(new Request("http://x/api/analyses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
    const analysesBefore = await t.prisma.analysis.count();
    const refused = await submit({ url });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({ code: "duplicate_listing", existing: [{ id: saved.id, slug: saved.slug, reason: "base_url" }] });
    expect(await t.prisma.analysis.count()).toBe(analysesBefore);
    vi.mocked(checkTarget).mockClear();
    const res = await submit({ url, allowDuplicate: true });
    expect(res.status).toBe(202);
    const queued = (await res.json()) as { id: string; state: string; listingId: string | null };
    expect(queued).toMatchObject({ state: "queued", listingId: null });
    expect(checkTarget).toHaveBeenCalledTimes(1);
    expect((await t.prisma.analysis.findUniqueOrThrow({ where: { id: queued.id } })).targetUrl).toBe(url);

    // The worker: draft (step 2) then probe, each endpoint called once in the run.
    hits.clear();
    const { jobs } = await opsClaim({ workerId: "intake-test", limit: 5, rubricVersions: MONITOR_RUBRIC_VERSIONS });
    const job = jobs.find((j) => j.id === queued.id)!;
    expect(job.document).toBeNull();
    const reported: Array<[number, number]> = [];
    const probed = await realProbe()(job, new AbortController().signal, (done, total) => reported.push([done, total]));
    if (!probed.ok) throw new Error(probed.reason);
    // Live progress (issue 19 item 7): from 0 to every endpoint, one at a time, as each probe ends.
    expect(reported).toEqual([0, 1, 2, 3, 4].map((n) => [n, 4]));
    expect(Object.fromEntries(hits)).toEqual(Object.fromEntries(VALIDITY_ENDPOINTS.map((k) => [k, 1])));
    expect(probed.evidence.endpoints.filter((e) => e.status === 402).map((e) => e.path).sort()).toEqual(["/upto", "/validity"]);
    expect(probed.evidence.endpoints.every((e) => e.findings.some((f) => f.check === "R1" && f.severity === "pass"))).toBe(true);

    // The completion (step 3) writes the listing through the same writer: the same document as the form's save.
    const done = await completeLease(job.id, { leaseToken: job.leaseToken, evidence: probed.evidence, document: probed.document });
    expect(done.listingId).not.toBe(saved.id);
    const docs = await loadListingDocuments(t.prisma, [saved.id, done.listingId]);
    const { slug: formSlug, ...fromForm } = docs.get(saved.id)!;
    const { slug: apiSlug, ...fromApi } = docs.get(done.listingId)!;
    expect(fromApi).toEqual(fromForm);
    // Both short and readable (lib/listings/save.ts shortSlug): the API's is the form's words, cut to
    // leave room for its random suffix.
    expect(apiSlug).toMatch(/^[a-z0-9-]+-[0-9a-f]{6}$/);
    expect(formSlug!.startsWith(apiSlug!.slice(0, -7))).toBe(true);
    expect(formSlug!.length).toBeLessThanOrEqual(48);
    expect(apiSlug!.length).toBeLessThanOrEqual(48);
    const row = await t.prisma.listing.findUniqueOrThrow({ where: { id: done.listingId } });
    expect(row).toMatchObject({ organizationId: user.organizationId, publicationState: "draft", source: `import:${url}`, currentResultId: done.resultId });
  });

  it("a target refused after DNS resolution fails the analysis with the refusal code, and no draft listing is written (issue #20 item 6)", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const listingsBefore = await t.prisma.listing.count();
    const res = await submitRoute(new Request("http://x/api/analyses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: "https://rebound.example.com/api" }) }));
    expect(res.status).toBe(202);
    const queued = (await res.json()) as { id: string };
    const { jobs } = await opsClaim({ workerId: "intake-test", limit: 5, rubricVersions: MONITOR_RUBRIC_VERSIONS });
    const job = jobs.find((j) => j.id === queued.id)!;
    // The name resolves to loopback: safeFetch refuses every call after resolution.
    const probed = await realProbe({ resolver: async () => [{ address: "127.0.0.1", family: 4 }] })(job, new AbortController().signal);
    expect(probed).toMatchObject({ ok: false, retryable: false });
    if (probed.ok) return;
    expect(probed.reason).toMatch(/^refused_target: address_forbidden: /);
    const failed = await opsFail(job.id, { leaseToken: job.leaseToken, reason: probed.reason, retryable: probed.retryable });
    expect(failed.state).toBe("failed");
    const row = await t.prisma.analysis.findUniqueOrThrow({ where: { id: queued.id } });
    expect(row).toMatchObject({ state: "failed", listingId: null });
    expect(await t.prisma.listing.count()).toBe(listingsBefore);
  });

  it("a refused target is a 400 naming the refusal, before any row", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const before = await t.prisma.analysis.count();
    const res = await submitRoute(new Request("http://x/api/analyses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: "https://user:pw@api.example.com/" }) }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain("credentials_in_url");
    expect(await t.prisma.analysis.count()).toBe(before);
    expect(checkTarget).toHaveBeenCalledTimes(1);
  });

  it("registerListing is the entry both doors share: a seller without an organisation is refused at either", async () => {
    const lone = await t.prisma.user.create({ data: { name: "No org", role: "seller" } });
    await expect(registerListing(lone.id, { url: `${server.url}/validity-check`, mode: "queue" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(registerListing(lone.id, { url: `${server.url}/validity-check`, mode: "review" })).rejects.toMatchObject({ code: "forbidden" });
    expect(checkTarget).not.toHaveBeenCalled();
  });
});

describe("unpaid calls per submission, on both doors", () => {
  const submitApi = (body: unknown) => submitRoute(new Request("http://x/api/analyses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
  const claimed = async (id: string) => (await opsClaim({ workerId: "per-submission", limit: 50, rubricVersions: MONITOR_RUBRIC_VERSIONS })).jobs.find((j) => j.id === id)!;
  const draftCallsOf = (organizationId: string) => t.prisma.intakeDraftCall.count({ where: { organizationId } });

  it("each endpoint is called unpaid once: the form's draft, save, publish and probe; the API's queue, draft and probe", async () => {
    const url = `${server.url}/validity-check`;
    const once = Object.fromEntries(VALIDITY_ENDPOINTS.map((k) => [k, 1]));

    // The form: the draft calls each endpoint; the publish analysis's probe takes those answers.
    const seller = await seedOwner(t.prisma);
    session.uid = seller.user.id;
    hits.clear();
    const form = await draftFromUrlAction(url);
    if (!form.ok) throw new Error(JSON.stringify(form));
    const saved = await createListingForSeller(seller.user.id, form.draft, `import:${url}`);
    const published = await publishListing(seller.user.id, saved.id);
    const job = await claimed(published.analysis.id);
    expect(job.prefetched?.length).toBe(VALIDITY_ENDPOINTS.length);
    const probed = await realProbe()(job, new AbortController().signal);
    if (!probed.ok) throw new Error(probed.reason);
    expect(Object.fromEntries(hits)).toEqual(once);
    expect(probed.evidence.endpoints.filter((e) => e.status === 402).map((e) => e.path).sort()).toEqual(["/upto", "/validity"]);
    await completeLease(job.id, { leaseToken: job.leaseToken, evidence: probed.evidence, document: null });

    // Taken once: the next analysis of the listing (a re-analysis) calls the endpoints afresh.
    const again = await submitApi({ listingId: saved.id });
    expect(again.status).toBe(202);
    const next = await claimed(((await again.json()) as { id: string }).id);
    expect(next.prefetched).toBeUndefined();

    // The API: queued, then the worker drafts and probes in one run.
    const other = await seedOwner(t.prisma);
    session.uid = other.user.id;
    hits.clear();
    const res = await submitApi({ url });
    expect(res.status).toBe(202);
    const apiJob = await claimed(((await res.json()) as { id: string }).id);
    const apiProbed = await realProbe()(apiJob, new AbortController().signal);
    if (!apiProbed.ok) throw new Error(apiProbed.reason);
    expect(Object.fromEntries(hits)).toEqual(once);
  });

  it("a draft's answers serve only its own organisation's publish, and only while fresh", async () => {
    const url = `${server.url}/validity-check`;
    const drafter = await seedOwner(t.prisma);
    session.uid = drafter.user.id;
    const form = await draftFromUrlAction(url);
    if (!form.ok) throw new Error(JSON.stringify(form));
    expect(await draftCallsOf(drafter.org.id)).toBeGreaterThanOrEqual(VALIDITY_ENDPOINTS.length);

    // Another organisation publishing the same endpoints does not get them (its probe calls for itself).
    const publisher = await seedOwner(t.prisma);
    const theirs = await createListingForSeller(publisher.user.id, form.draft, `import:${url}`);
    const theirJob = await claimed((await publishListing(publisher.user.id, theirs.id)).analysis.id);
    expect(theirJob.prefetched).toBeUndefined();

    // Past the window the drafter's own publish does not take them either.
    await t.prisma.intakeDraftCall.updateMany({ where: { organizationId: drafter.org.id }, data: { createdAt: new Date(Date.now() - 16 * 60_000) } });
    const mine = await createListingForSeller(drafter.user.id, form.draft, `import:${url}`);
    const myJob = await claimed((await publishListing(drafter.user.id, mine.id)).analysis.id);
    expect(myJob.prefetched).toBeUndefined();
  });
});
