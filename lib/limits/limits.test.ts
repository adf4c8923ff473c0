/**
 * Rate limits and caps (docs/LIMITS.md) on whichever database the suite runs on: PGlite by default,
 * the server PostgreSQL with TEST_DATABASE_URL. Each limited action is driven through its own door
 * (the lib use case, or the route as a client calls it) until it answers 429 `rate_limited` with
 * Retry-After; each test gets its own actors, so no budget is shared between tests.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAppError, toResponse, type AppError } from "@/lib/errors";
import { createApiKey } from "@/lib/apikeys";
import { issueNonce } from "@/lib/auth/siwe";
import { reanalyseForActor } from "@/lib/analyses/progress";
import { registerListing } from "@/lib/intake/register-listing";
import { publishListing } from "@/lib/listings/publish";
import { createListingForSeller } from "@/lib/listings/save";
import { configureLimits, restoreLimits, takeRateLimit, type LimitsConfig } from "@/lib/limits";
import { clientAddress } from "@/lib/limits/client-address";
import { sweepLimits } from "@/lib/limits/ticks";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";
import * as nonceRoute from "@/app/api/auth/siwe-nonce/route";
import * as authRoute from "@/app/api/auth/[...nextauth]/route";
import * as selectRoute from "@/app/router/select/route";
import * as callRoute from "@/app/router/call/[listing]/[...path]/route";

const fixture = JSON.parse(fs.readFileSync(path.join(process.cwd(), "lib/scoring/readiness/fixtures/well-built-brand-new.listing.json"), "utf8"));

let t: TestDatabase;
let saved: LimitsConfig;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterEach(() => restoreLimits(saved));
afterAll(() => t?.close());

function limit(over: Parameters<typeof configureLimits>[0]) {
  saved = configureLimits(over);
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!isAppError(e)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}

function expect429(e: AppError, action: string) {
  expect(e.code).toBe("rate_limited");
  expect(e.status).toBe(429);
  expect(e.extra.limit).toBe(action);
  const res = toResponse(e);
  expect(res.status).toBe(429);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
}

async function expect429Response(res: Response, action: string) {
  expect(res.status).toBe(429);
  const retry = Number(res.headers.get("retry-after"));
  expect(retry).toBeGreaterThanOrEqual(1);
  const body = await res.json();
  expect(body.error).toMatchObject({ code: "rate_limited", limit: action, retryAfterSeconds: retry });
  expect(body.error.message).toMatch(/^Too many .+: at most \d+ per .+\. Try again in .+\.$/);
}

describe("a fixed window in Postgres", () => {
  it("gives max tokens, then 429 with the seconds to the window's end; the next window starts afresh", async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 11, 4, 12, 0, s));
    const lim = { max: 3, windowSeconds: 60 };
    for (let i = 0; i < 3; i++) expect((await takeRateLimit("select", "k-window", { now: at(10), limit: lim })).remaining).toBe(2 - i);
    const e = await refusal(takeRateLimit("select", "k-window", { now: at(15), limit: lim }));
    expect429(e, "select");
    expect(e.extra).toMatchObject({ max: 3, windowSeconds: 60, retryAfterSeconds: 45 });
    expect(e.message).toBe("Too many select requests: at most 3 per minute for one API key. Try again in 45 seconds.");
    expect(toResponse(e).headers.get("retry-after")).toBe("45");
    // Refused tokens are not counted: the row stays at the limit.
    expect((await t.prisma.rateLimitWindow.findMany({ where: { bucket: "select:k-window" } })).map((r) => r.count)).toEqual([3]);
    // Another actor has its own budget; the next window is a new one.
    expect((await takeRateLimit("select", "k-other", { now: at(15), limit: lim })).remaining).toBe(2);
    expect((await takeRateLimit("select", "k-window", { now: new Date(at(0).getTime() + 60_000), limit: lim })).remaining).toBe(2);
  });

  it("is atomic under concurrency: 40 at once against a limit of 10 take exactly 10", async () => {
    const lim = { max: 10, windowSeconds: 3600 };
    const now = new Date();
    const settled = await Promise.allSettled(Array.from({ length: 40 }, () => takeRateLimit("call", "k-race", { now, limit: lim })));
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(10);
    const refused = settled.filter((s) => s.status === "rejected") as PromiseRejectedResult[];
    expect(refused).toHaveLength(30);
    for (const r of refused) expect((r.reason as AppError).code).toBe("rate_limited");
    expect((await t.prisma.rateLimitWindow.findFirstOrThrow({ where: { bucket: "call:k-race" } })).count).toBe(10);
  });

  it("leased tokens (the router's): a block per statement, never more than max across two servers, at most a block less", async () => {
    const lim = { max: 300, windowSeconds: 3600 }; // a block of 3 (a hundredth)
    const now = new Date();
    // Two servers on one database: each its own client, so each its own leases.
    const servers = [t.prisma, t as unknown as typeof t.prisma];
    await takeRateLimit("call", "k-lease", { now, limit: lim, lease: true, client: servers[0] });
    expect((await t.prisma.rateLimitWindow.findFirstOrThrow({ where: { bucket: "call:k-lease" } })).count).toBe(3);
    await takeRateLimit("call", "k-lease", { now, limit: lim, lease: true, client: servers[0] });
    await takeRateLimit("call", "k-lease", { now, limit: lim, lease: true, client: servers[0] });
    expect((await t.prisma.rateLimitWindow.findFirstOrThrow({ where: { bucket: "call:k-lease" } })).count).toBe(3); // spent here, no statement
    let granted = 3;
    for (let i = 0; ; i++) {
      const ok = await takeRateLimit("call", "k-lease", { now, limit: lim, lease: true, client: servers[i % 2] }).then(
        () => true,
        (e: AppError) => (expect(e.code).toBe("rate_limited"), false),
      );
      if (!ok) break;
      granted++;
    }
    expect(granted).toBeLessThanOrEqual(300);
    expect(granted).toBeGreaterThanOrEqual(300 - 2 * (3 - 1));
    expect((await t.prisma.rateLimitWindow.findFirstOrThrow({ where: { bucket: "call:k-lease" } })).count).toBe(300);
  });

  it("an action set to off is not limited", async () => {
    limit({ rates: { select: null } });
    for (let i = 0; i < 5; i++) expect((await takeRateLimit("select", "k-off")).remaining).toBe(Infinity);
    expect(await t.prisma.rateLimitWindow.count({ where: { bucket: "select:k-off" } })).toBe(0);
  });
});

describe("every limited action answers 429 after its limit", () => {
  it("intake (a URL submission), per user; the other seller is not affected", async () => {
    limit({ rates: { intake: { max: 2, windowSeconds: 3600 } }, activeAnalyses: null });
    const a = await seedOwner(t.prisma);
    const b = await seedOwner(t.prisma);
    for (let i = 0; i < 2; i++) await registerListing(a.user.id, { url: `https://api-${i}.example.com/v1`, mode: "queue" }, { allowHosts: [] }).catch((e) => expect(e.code).toBe("conflict"));
    expect429(await refusal(registerListing(a.user.id, { url: "https://api-9.example.com/v1", mode: "queue" }, { allowHosts: [] })), "intake");
    expect429(await refusal(registerListing(a.user.id, { url: "https://api-9.example.com/v1", mode: "review" }, { allowHosts: [] })), "intake");
    await registerListing(b.user.id, { url: "https://api-b.example.com/v1", mode: "queue" }, { allowHosts: [] });
  });

  it("publish, per user, before anything changes", async () => {
    limit({ rates: { publish: { max: 2, windowSeconds: 3600 } }, activeAnalyses: null });
    const { user } = await seedOwner(t.prisma);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createListingForSeller(user.id, { ...fixture, slug: `lim-pub-${user.id}-${i}` })).id);
    await publishListing(user.id, ids[0]);
    await publishListing(user.id, ids[1]);
    expect429(await refusal(publishListing(user.id, ids[2])), "publish");
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id: ids[2] } })).publicationState).toBe("draft");
    expect(await t.prisma.analysis.count({ where: { listingId: ids[2] } })).toBe(0);
  });

  it("re-analyse, per user", async () => {
    limit({ rates: { reanalyse: { max: 2, windowSeconds: 3600 } }, activeAnalyses: null });
    const { org, user } = await seedOwner(t.prisma);
    const listingId = await seedListing(t.prisma, org.id);
    await reanalyseForActor(user.id, listingId);
    // The second is within the limit and refused by the one-active rule (409), as before.
    expect((await refusal(reanalyseForActor(user.id, listingId))).code).toBe("conflict");
    expect429(await refusal(reanalyseForActor(user.id, listingId)), "reanalyse");
  });

  it("new listings a day, per organisation: the third is refused and nothing is written", async () => {
    limit({ rates: { listings: { max: 2, windowSeconds: 86_400 } } });
    const { org, user } = await seedOwner(t.prisma);
    const colleague = await t.prisma.user.create({ data: { name: "Colleague", role: "seller", organizationId: org.id } });
    await createListingForSeller(user.id, { ...fixture, slug: `lim-day-${org.id}-1` });
    await createListingForSeller(colleague.id, { ...fixture, slug: `lim-day-${org.id}-2` });
    const e = await refusal(createListingForSeller(user.id, { ...fixture, slug: `lim-day-${org.id}-3` }));
    expect429(e, "listings");
    expect(e.message).toMatch(/at most 2 per day for one seller organisation/);
    expect(await t.prisma.listing.count({ where: { organizationId: org.id } })).toBe(2);
    // An invalid document is refused for what it is and spends nothing.
    expect((await refusal(createListingForSeller(user.id, { ...fixture, baseUrl: "nope" }))).code).toBe("invalid_document");
  });

  it("SIWE nonce issue, per client address, then across the deployment; nonces are swept once expired or spent", async () => {
    limit({ rates: { nonce: { max: 2, windowSeconds: 600 }, nonceAll: { max: 3, windowSeconds: 60 } } });
    const get = (ip: string) => nonceRoute.GET(new Request("http://localhost/api/auth/siwe-nonce", { headers: { "x-forwarded-for": ip } }));
    const before = await t.prisma.authNonce.count();
    expect((await get("203.0.113.7")).status).toBe(200);
    expect((await get("203.0.113.7")).status).toBe(200);
    await expect429Response(await get("203.0.113.7"), "nonce");
    // Another address has its own budget, until the deployment-wide ceiling.
    expect((await get("203.0.113.8")).status).toBe(200);
    await expect429Response(await get("203.0.113.9"), "nonceAll");
    expect(await t.prisma.authNonce.count()).toBe(before + 3);
  });

  it("SIWE verify (POST /api/auth/callback/siwe), per client address, before next-auth reads the form", async () => {
    limit({ rates: { verify: { max: 2, windowSeconds: 600 } } });
    for (let i = 0; i < 2; i++) await takeRateLimit("verify", "198.51.100.4");
    const res = await authRoute.POST(
      new Request("http://localhost/api/auth/callback/siwe", { method: "POST", headers: { "x-forwarded-for": "198.51.100.4", "content-type": "application/x-www-form-urlencoded" }, body: "message=x&signature=0x" }),
      { params: Promise.resolve({ nextauth: ["callback", "siwe"] }) },
    );
    await expect429Response(res, "verify");
  });

  it("/router/select, per API key", async () => {
    limit({ rates: { select: { max: 2, windowSeconds: 60 } } });
    const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
    const [k1, k2] = [await createApiKey({ actorId: admin, name: "one", scopes: ["router:select"] }), await createApiKey({ actorId: admin, name: "two", scopes: ["router:select"] })];
    const call = (secret: string) =>
      selectRoute.POST(new Request("http://localhost/router/select", { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify({ task: "geocode" }) }));
    expect((await call(k1.secret)).status).toBe(200);
    expect((await call(k1.secret)).status).toBe(200);
    await expect429Response(await call(k1.secret), "select");
    expect((await call(k2.secret)).status).toBe(200);
  });

  it("/router/call, per API key, before the relay reads the body or looks up the listing", async () => {
    limit({ rates: { call: { max: 1, windowSeconds: 60 } } });
    const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
    const key = await createApiKey({ actorId: admin, name: "caller", scopes: ["router:call"] });
    const call = () =>
      callRoute.POST(new Request("http://localhost/router/call/no-such-listing/run", { method: "POST", headers: { authorization: `Bearer ${key.secret}` }, body: "{}" }), {
        params: Promise.resolve({ listing: "no-such-listing", path: ["run"] }),
      });
    expect((await call()).status).toBe(404);
    await expect429Response(await call(), "call");
  });
});

describe("caps on one seller", () => {
  it("active analyses per organisation: the fourth publish waits; the refused listing is not published; publishing an analysing one again is not refused", async () => {
    limit({ activeAnalyses: 3 });
    const { org, user } = await seedOwner(t.prisma);
    const colleague = await t.prisma.user.create({ data: { name: "Colleague", role: "seller", organizationId: org.id } });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createListingForSeller(user.id, { ...fixture, slug: `cap-${org.id}-${i}` })).id);
    await publishListing(user.id, ids[0]);
    await publishListing(colleague.id, ids[1]);
    await publishListing(user.id, ids[2]);
    const e = await refusal(publishListing(user.id, ids[3]));
    expect429(e, "activeAnalyses");
    expect(e.extra).toMatchObject({ max: 3, active: 3 });
    expect(e.message).toMatch(/already has 3 analyses queued or running, the most one seller may have at once \(3\)/);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id: ids[3] } })).publicationState).toBe("draft");
    // Publishing one that is being analysed again returns its analysis and queues nothing.
    expect((await publishListing(user.id, ids[0])).analysis.listingId).toBe(ids[0]);
    // The URL door and re-analysis are capped too.
    expect429(await refusal(registerListing(user.id, { url: "https://capped.example.com/v1", mode: "queue" }, { allowHosts: [] })), "activeAnalyses");
    expect429(await refusal(reanalyseForActor(colleague.id, ids[4])), "activeAnalyses");
    // Once one finishes, the next one goes.
    await t.prisma.analysis.updateMany({ where: { listingId: ids[0] }, data: { state: "failed", finishedAt: new Date() } });
    await publishListing(user.id, ids[3]);
  });

  it("sweeps and the demo seed are not counted, and moderators are not capped", async () => {
    limit({ activeAnalyses: 1 });
    const { org, user } = await seedOwner(t.prisma);
    const mod = (await seedOwner(t.prisma, "moderator")).user;
    const a = (await createListingForSeller(user.id, { ...fixture, slug: `cap2-${org.id}-a` })).id;
    const b = (await createListingForSeller(user.id, { ...fixture, slug: `cap2-${org.id}-b` })).id;
    const { onListingPublished } = await import("@/lib/queue/enqueue-analysis");
    await onListingPublished(a, "system:demo-seed");
    expect((await t.prisma.analysis.findFirstOrThrow({ where: { listingId: a } })).requestedBy).toBeNull();
    await publishListing(user.id, b);
    expect((await t.prisma.analysis.findFirstOrThrow({ where: { listingId: b } })).requestedBy).toBe(user.id);
    // The seller is at the cap now; a moderator acting on the seller's listing is not.
    expect429(await refusal(reanalyseForActor(user.id, a)), "activeAnalyses");
    const c = (await createListingForSeller(user.id, { ...fixture, slug: `cap2-${org.id}-c` })).id;
    expect429(await refusal(publishListing(user.id, c)), "activeAnalyses");
    await publishListing(mod.id, c);
  });
});

describe("the sweep", () => {
  it("deletes ended windows and expired or spent nonces, and keeps the rest", async () => {
    const now = new Date();
    await takeRateLimit("select", "k-old", { now: new Date(now.getTime() - 3_600_000), limit: { max: 5, windowSeconds: 60 } });
    await takeRateLimit("select", "k-live", { now, limit: { max: 5, windowSeconds: 3600 } });
    const expired = await issueNonce(new Date(now.getTime() - 11 * 60_000));
    const spent = await issueNonce(now);
    await t.prisma.authNonce.update({ where: { nonce: spent }, data: { usedAt: now } });
    const fresh = await issueNonce(now);
    const swept = await sweepLimits(now);
    expect(swept.windows).toBeGreaterThanOrEqual(1);
    expect(swept.nonces).toBeGreaterThanOrEqual(2);
    expect(await t.prisma.rateLimitWindow.count({ where: { bucket: "select:k-old" } })).toBe(0);
    expect(await t.prisma.rateLimitWindow.count({ where: { bucket: "select:k-live" } })).toBe(1);
    expect(await t.prisma.authNonce.findUnique({ where: { nonce: expired } })).toBeNull();
    expect(await t.prisma.authNonce.findUnique({ where: { nonce: spent } })).toBeNull();
    expect(await t.prisma.authNonce.findUnique({ where: { nonce: fresh } })).not.toBeNull();
  });
});

describe("who is counted", () => {
  it("the client address is the X-Forwarded-For entry as many places from the right as there are proxies", () => {
    const h = (v: string | null) => new Headers(v === null ? {} : { "x-forwarded-for": v });
    expect(clientAddress(h("203.0.113.7"), 0)).toBe("203.0.113.7");
    expect(clientAddress(h("spoofed, 203.0.113.7"), 1)).toBe("203.0.113.7");
    expect(clientAddress(h("spoofed, 203.0.113.7, 10.0.0.2"), 2)).toBe("203.0.113.7");
    expect(clientAddress(h("203.0.113.7"), 3)).toBe("203.0.113.7");
    expect(clientAddress(h(null), 0)).toBe("unknown");
  });
});
