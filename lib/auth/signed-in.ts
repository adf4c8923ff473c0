/** The signed-in user's id or a 401, before a route reads its body (docs/LIMITS.md "Request bodies"). */
import { requireActor } from "@/lib/auth/roles";
import { sessionUserId } from "@/lib/auth/session";

export async function requireSessionUserId(): Promise<string> {
  return (await requireActor(await sessionUserId())).id;
}
