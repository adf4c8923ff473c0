/**
 * The listing routes through the one door (lib/listings/access.ts), as a client sees them: for each
 * actor, the owner's existing listing and a nonexistent id. Wherever an actor is refused, someone
 * else's listing answers exactly what a nonexistent id answers (404, same body but for the id);
 * signed out is 401 for both. Only the session is stubbed (there is no request cookie in a test);
 * the routes, the door and the database are the real ones.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { requestAnalysis, PRIORITY_OWNER } from "@/lib/queue/enqueue-analysis";
import { seedListing, seedOwner } from "@/test/analyses";
import { fullListing } from "@/test/readiness";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import * as listingRoute from "./[id]/route";
import * as publishRoute from "./[id]/publish/route";
import * as reanalyseRoute from "./[id]/reanalyse/route";
import * as analysisRoute from "../analyses/[id]/route";

const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t?.close());

const ACTORS = ["owner", "otherSeller", "sellerWithoutOrg", "moderator", "admin", "signedOut"] as const;
type ActorName = (typeof ACTORS)[number];

/** A fresh world per route: an owner with one listing, and everyone else (an active analysis is one per submitter). */
async function world() {
  const owner = await seedOwner(t.prisma);
  const listingId = await seedListing(t.prisma, owner.org.id);
  const ids: Record<ActorName, string | null> = {
    owner: owner.user.id,
    otherSeller: (await seedOwner(t.prisma)).user.id,
    sellerWithoutOrg: (await t.prisma.user.create({ data: { name: "No org", role: "seller" } })).id,
    moderator: (await seedOwner(t.prisma, "moderator")).user.id,
    admin: (await seedOwner(t.prisma, "admin")).user.id,
    signedOut: null,
  };
  return { ids, listingId, ownerId: owner.user.id };
}

type Call = (id: string) => Promise<Response>;
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });

/** Status and body of one call, the id masked so two answers compare whole. */
async function outcome(ids: Record<ActorName, string | null>, actor: ActorName, call: Call, id: string) {
  session.uid = ids[actor];
  const res = await call(id);
  const body = await res.json();
  return { status: res.status, body: res.status >= 400 ? JSON.parse(JSON.stringify(body).replaceAll(id, "<id>")) : undefined };
}

const NOT_FOUND = { status: 404, body: { error: { code: "not_found", message: "listing <id> does not exist or is not yours", details: [] } } };
const SIGNED_OUT = { status: 401, body: { error: { code: "unauthorized", message: "Sign in to do this.", details: [] } } };

/**
 * Run the table for one route: `allowed` is the status each actor gets on the owner's listing when
 * let in; anyone not listed must get exactly what a nonexistent id gets.
 */
async function table(call: Call, allowed: Partial<Record<ActorName, number>>, opts: { setup?: (w: Awaited<ReturnType<typeof world>>) => Promise<string>; missing?: string; notFound?: typeof NOT_FOUND } = {}) {
  const w = await world();
  const target = opts.setup ? await opts.setup(w) : w.listingId;
  const missing = opts.missing ?? "lst_does_not_exist";
  const notFound = opts.notFound ?? NOT_FOUND;
  for (const actor of ACTORS) {
    const onMissing = await outcome(w.ids, actor, call, missing);
    const onTarget = await outcome(w.ids, actor, call, target);
    const refused = actor === "signedOut" ? SIGNED_OUT : notFound;
    expect(onMissing, `${actor} on a nonexistent id`).toEqual(refused);
    if (allowed[actor]) expect(onTarget.status, `${actor} on the owner's`).toBe(allowed[actor]);
    else expect(onTarget, `${actor} on the owner's: the same answer as a nonexistent id`).toEqual(onMissing);
  }
  return w;
}

describe("listing routes answer someone else's listing like a nonexistent one", () => {
  it("GET /api/listings/:id (owner, or a moderator)", async () => {
    await table((id) => listingRoute.GET(new Request(`http://test/api/listings/${id}`), ctx(id)), { owner: 200, moderator: 200, admin: 200 });
  });

  it("PUT /api/listings/:id (owner, or a moderator) changes nothing when refused", async () => {
    let target = "";
    const title = async () => (await t.prisma.listing.findUniqueOrThrow({ where: { id: target }, select: { title: true } })).title;
    await table(
      async (id) => {
        const before = await title();
        const wanted = `Retitled ${Math.random().toString(36).slice(2)}`;
        const res = await listingRoute.PUT(new Request(`http://test/api/listings/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(fullListing({ title: wanted })) }), ctx(id));
        expect(await title()).toBe(res.ok && id === target ? wanted : before);
        return res;
      },
      { owner: 200, moderator: 200, admin: 200 },
      { setup: async (w) => (target = w.listingId) },
    );
  });

  it("POST /api/listings/:id/publish (owner, or a moderator)", async () => {
    await table((id) => publishRoute.POST(new Request(`http://test/api/listings/${id}/publish`, { method: "POST" }), ctx(id)), { owner: 202, moderator: 202, admin: 202 });
  });

  it("POST /api/listings/:id/reanalyse (owner only: moderators are not let in)", async () => {
    const w = await table((id) => reanalyseRoute.POST(new Request(`http://test/api/listings/${id}/reanalyse`, { method: "POST" }), ctx(id)), { owner: 202 });
    const queued = await t.prisma.analysis.findMany({ where: { listingId: w.listingId } });
    expect(queued.map((a) => a.submitter)).toEqual([w.ownerId]);
  });

  it("GET /api/analyses/:id of a listing's analysis (the listing's owner, or a moderator)", async () => {
    await table((id) => analysisRoute.GET(new Request(`http://test/api/analyses/${id}`), ctx(id)), { owner: 200, moderator: 200, admin: 200 }, {
      setup: async (w) => (await requestAnalysis({ submitter: w.ownerId, listingId: w.listingId, targetUrl: "https://api.weatherly.dev", trigger: "reanalyse", priority: PRIORITY_OWNER })).id,
      missing: "ana_does_not_exist",
      notFound: { status: 404, body: { error: { code: "not_found", message: "analysis <id> does not exist or is not yours", details: [] } } },
    });
  });

  it("GET /api/analyses/:id of a URL submission (no listing yet: its submitter, or a moderator)", async () => {
    await table((id) => analysisRoute.GET(new Request(`http://test/api/analyses/${id}`), ctx(id)), { owner: 200, moderator: 200, admin: 200 }, {
      setup: async (w) => (await requestAnalysis({ submitter: w.ownerId, listingId: null, targetUrl: "https://api.example.com", trigger: "submit", priority: PRIORITY_OWNER })).id,
      missing: "ana_does_not_exist",
      notFound: { status: 404, body: { error: { code: "not_found", message: "analysis <id> does not exist or is not yours", details: [] } } },
    });
  });
});
