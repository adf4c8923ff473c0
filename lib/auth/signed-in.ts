/**
 * The signed-in user's id, or a 401, checked before a route reads its request body (docs/LIMITS.md
 * "Request bodies": authenticate first). The role and organisation are still read fresh by the
 * action itself; this only makes sure an anonymous request is answered before any byte is read.
 * (Its own file, so tests that stub lib/auth/session.ts's sessionUserId stub it here too.)
 */
import { requireActor } from "@/lib/auth/roles";
import { sessionUserId } from "@/lib/auth/session";

export async function requireSessionUserId(): Promise<string> {
  return (await requireActor(await sessionUserId())).id;
}
