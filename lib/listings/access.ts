/**
 * The one door for listing-scoped authorisation: the owner (a user of the listing's organisation), moderators and
 * admins only with `{ moderators: true }`. The rule is a where-clause, so "someone else's" answers exactly like "no
 * such id" (404); signed out is 401 before any lookup.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { isModerator, requireActor, type Actor } from "@/lib/auth/roles";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { PrismaLike } from "@/lib/sql";

export interface ListingAccessOptions {
  /** Off unless the caller asks. */
  moderators?: boolean;
}

function seesEveryListing(actor: Actor, opts: ListingAccessOptions): boolean {
  return !!opts.moderators && isModerator(actor);
}

/** A where-clause to AND with any listing query. A tombstone is no one's: it answers like no such listing. */
export function listingWhereForActor(actor: Actor, opts: ListingAccessOptions = {}): Prisma.ListingWhereInput {
  if (seesEveryListing(actor, opts)) return { deletedAt: null };
  // A user of no organisation owns no listing.
  if (!actor.organizationId) return { id: { in: [] } };
  return { organizationId: actor.organizationId, deletedAt: null };
}

/** Those they submitted (a URL submission has no listing yet) and those of listings they may see. */
export function analysisWhereForActor(actor: Actor, opts: ListingAccessOptions = {}): Prisma.AnalysisWhereInput {
  if (seesEveryListing(actor, opts)) return {};
  return { OR: [{ submitter: actor.id }, { listing: { is: listingWhereForActor(actor) } }] };
}

/** 401 when signed out, 404 on any miss. */
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
