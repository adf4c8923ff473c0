/**
 * The one door for listing-scoped authorisation (reading, editing, publishing, analysing a listing).
 * Who may: the owner, meaning a user of the listing's organization; moderators and admins only where
 * the caller says so with `{ moderators: true }`. The rule is a Prisma where-clause, so the lookup
 * itself is scoped: a listing the actor may not see is simply not found, and "someone else's" answers
 * exactly like "no such id" (404), never confirming that another seller's listing id exists.
 * Signed out is 401 before anything is looked up, which says nothing about the id either.
 * The role and organization are read fresh from the database on every call (lib/auth).
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { isModerator, requireActor, type Actor } from "@/lib/auth/roles";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { PrismaLike } from "@/lib/sql";

export interface ListingAccessOptions {
  /** Let moderators and admins through as well as the owner. Off unless the caller asks. */
  moderators?: boolean;
}

/** Moderators (and admins) see every listing, but only where the caller asked for them. */
function seesEveryListing(actor: Actor, opts: ListingAccessOptions): boolean {
  return !!opts.moderators && isModerator(actor);
}

/**
 * The listings this actor may see or act on, as a where-clause to AND with any listing query. A
 * deleted listing (its tombstone, lib/listings/lifecycle.ts) is no one's to see or act on: it answers
 * like no such listing, its history kept in the database.
 */
export function listingWhereForActor(actor: Actor, opts: ListingAccessOptions = {}): Prisma.ListingWhereInput {
  if (seesEveryListing(actor, opts)) return { deletedAt: null };
  // A user of no organization owns no listing.
  if (!actor.organizationId) return { id: { in: [] } };
  return { organizationId: actor.organizationId, deletedAt: null };
}

/**
 * The analyses this actor may read: those they submitted (a URL submission has no listing yet) and
 * those of listings they may see; with `{ moderators: true }`, every analysis for a moderator.
 */
export function analysisWhereForActor(actor: Actor, opts: ListingAccessOptions = {}): Prisma.AnalysisWhereInput {
  if (seesEveryListing(actor, opts)) return {};
  return { OR: [{ submitter: actor.id }, { listing: { is: listingWhereForActor(actor) } }] };
}

/**
 * The signed-in actor and the listing, found through listingWhereForActor: 401 when signed out,
 * 404 on any miss (no such id, or not theirs to see).
 */
export async function requireListingAccess(
  actorId: string | null | undefined,
  listingId: string,
  opts: ListingAccessOptions & { client?: PrismaLike } = {},
): Promise<{ actor: Actor; listing: { id: string; organizationId: string; baseUrl: string } }> {
  const actor = await requireActor(actorId);
  const prisma = opts.client ?? (await db());
  const listing = await prisma.listing.findFirst({
    where: { AND: [{ id: listingId }, listingWhereForActor(actor, opts)] },
    select: { id: true, organizationId: true, baseUrl: true },
  });
  if (!listing) throw new AppError("not_found", `listing ${listingId} does not exist or is not yours`);
  return { actor, listing };
}
