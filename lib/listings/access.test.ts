/**
 * The one listing door: every actor × (their own / someone else's listing, no such id). Someone else's
 * listing answers exactly like a nonexistent id (404, same body but for the id), so a listing id of
 * another seller is never confirmed; moderators pass only where the caller asks for them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { requireActor } from "@/lib/auth/roles";
import { listingWhereForActor, requireListingAccess, type ListingAccessOptions } from "@/lib/listings/access";
import { seedListing, seedOwner } from "@/test/analyses";
import { createTestDatabase, type TestDatabase } from "@/test/db";

let t: TestDatabase;
const ids: Record<string, string | null> = {};
let listingId: string;
let otherListingId: string;
const MISSING = "lst_does_not_exist";

beforeAll(async () => {
  t = await createTestDatabase();
  const owner = await seedOwner(t.prisma);
  const other = await seedOwner(t.prisma);
  listingId = await seedListing(t.prisma, owner.org.id);
  otherListingId = await seedListing(t.prisma, other.org.id);
  ids.owner = owner.user.id;
  ids.otherSeller = other.user.id;
  ids.sellerWithoutOrg = (await t.prisma.user.create({ data: { name: "No org", role: "seller" } })).id;
  // seedOwner gives moderators and admins an organization of their own, which owns nothing here.
  ids.moderator = (await seedOwner(t.prisma, "moderator")).user.id;
  ids.admin = (await seedOwner(t.prisma, "admin")).user.id;
  ids.signedOut = null;
  ids.unknownUser = "usr_gone";
});
afterAll(() => t?.close());

/** What the door answers, with the listing id masked so two answers can be compared whole. */
async function outcome(actor: string, id: string, opts: ListingAccessOptions) {
  try {
    const { actor: a, listing } = await requireListingAccess(ids[actor], id, opts);
    expect(a.id).toBe(ids[actor]);
    expect(listing.id).toBe(id);
    return { status: 200 };
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    return { status: err.status, code: err.code, message: err.message.replaceAll(id, "<id>") };
  }
}

const NOT_FOUND = { status: 404, code: "not_found", message: "listing <id> does not exist or is not yours" };
const SIGNED_OUT = { status: 401, code: "unauthorized", message: "Sign in to do this." };

// [actor, options, answer on the owner's existing listing]; a nonexistent id is always NOT_FOUND, or SIGNED_OUT.
const TABLE: Array<[string, ListingAccessOptions, { status: number }]> = [
  ["owner", {}, { status: 200 }],
  ["owner", { moderators: true }, { status: 200 }],
  ["otherSeller", {}, NOT_FOUND],
  ["otherSeller", { moderators: true }, NOT_FOUND],
  ["sellerWithoutOrg", {}, NOT_FOUND],
  ["moderator", {}, NOT_FOUND],
  ["moderator", { moderators: true }, { status: 200 }],
  ["admin", {}, NOT_FOUND],
  ["admin", { moderators: true }, { status: 200 }],
  ["signedOut", {}, SIGNED_OUT],
  ["signedOut", { moderators: true }, SIGNED_OUT],
  ["unknownUser", { moderators: true }, SIGNED_OUT],
];

describe("requireListingAccess", () => {
  it.each(TABLE)("%s with %j", async (actor, opts, expected) => {
    expect(await outcome(actor, listingId, opts)).toEqual(expected);
    const missing = await outcome(actor, MISSING, opts);
    expect(missing).toEqual(expected.status === 401 ? SIGNED_OUT : NOT_FOUND);
    // Refused: someone else's listing and no listing at all are indistinguishable.
    if (expected.status !== 200) expect(missing).toEqual(expected);
  });

  it("the owner of one listing is refused another seller's like a nonexistent one", async () => {
    expect(await outcome("owner", otherListingId, {})).toEqual(NOT_FOUND);
    expect(await outcome("otherSeller", otherListingId, {})).toEqual({ status: 200 });
  });

  it("reads the role fresh: a demoted moderator is refused at once", async () => {
    const m = await seedOwner(t.prisma, "moderator");
    ids.demoted = m.user.id;
    expect(await outcome("demoted", listingId, { moderators: true })).toEqual({ status: 200 });
    await t.prisma.user.update({ where: { id: m.user.id }, data: { role: "seller" } });
    expect(await outcome("demoted", listingId, { moderators: true })).toEqual(NOT_FOUND);
  });
});

describe("listingWhereForActor", () => {
  it("scopes a listing query to the actor's organization, or to everything for a moderator who is let in", async () => {
    const visible = async (actor: string, opts: ListingAccessOptions = {}) =>
      (await t.prisma.listing.findMany({ where: listingWhereForActor(await requireActor(ids[actor]), opts), select: { id: true } })).map((l) => l.id).sort();
    expect(await visible("owner")).toEqual([listingId]);
    expect(await visible("otherSeller")).toEqual([otherListingId]);
    expect(await visible("sellerWithoutOrg")).toEqual([]);
    expect(await visible("moderator")).toEqual([]);
    expect(await visible("moderator", { moderators: true })).toEqual([listingId, otherListingId].sort());
    expect(await visible("admin", { moderators: true })).toEqual([listingId, otherListingId].sort());
  });
});
