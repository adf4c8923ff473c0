/**
 * Who may see or act on a listing's analyses: its owner (a user of the listing's organization) or a
 * moderator. The role and organization are read fresh from the database on every call (lib/auth).
 */
import { AppError } from "@/lib/errors";
import { isModerator, requireActor, type Actor } from "@/lib/auth/roles";
import type { PrismaLike } from "@/lib/sql";

export async function requireListingOwner(
  client: PrismaLike,
  userId: string | null | undefined,
  listingId: string,
  opts: { allowModerator?: boolean } = {},
): Promise<{ actor: Actor; listing: { id: string; organizationId: string; baseUrl: string } }> {
  const actor = await requireActor(userId);
  const listing = await client.listing.findUnique({ where: { id: listingId }, select: { id: true, organizationId: true, baseUrl: true } });
  // Not found and not yours answer the same, so ids of other sellers' listings are not confirmed.
  const owner = !!listing && !!actor.organizationId && actor.organizationId === listing.organizationId;
  if (!listing || (!owner && !(opts.allowModerator && isModerator(actor)))) {
    throw new AppError("not_found", `listing ${listingId} does not exist or is not yours`);
  }
  return { actor, listing };
}
