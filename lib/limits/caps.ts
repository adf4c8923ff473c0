/**
 * Caps on one seller (docs/LIMITS.md "Caps"): how many analyses the people of one seller
 * organisation may have queued, deferred or running at once, and how many listings it may create in
 * a day. Publishing ten listings used to queue ten analyses at once; now the fourth waits.
 *
 * The active-analyses cap counts rows whose `requestedBy` is one of the organisation's people (set by
 * lib/queue/enqueue-analysis.ts for an owner's submit, re-analysis or publish; sweeps and the demo
 * seed leave it null and are not counted). It is checked before the row is written, not in the same
 * statement: concurrent requests of one organisation can pass it together and overshoot it by as
 * many as arrive at once, which the per-user rate limits bound. Moderators and admins act on anyone's
 * listings and are not capped.
 */
import { MODERATION_ROLES, type Actor } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { clientOr, rows, type Client } from "@/lib/sql";
import { limitsConfig } from "./config";
import { takeRateLimit } from "./rate-limit";

/** What a 429 for a full cap suggests waiting: about one analysis's run. */
export const CAP_RETRY_AFTER_SECONDS = 60;

/** Active analyses asked for by the people of `organizationId` (or by `userId` alone, without one). */
export async function activeAnalysesOf(who: { userId: string; organizationId: string | null }, client?: Client): Promise<number> {
  const c = await clientOr(client);
  const sql = who.organizationId
    ? `SELECT count(*)::int AS n FROM "catalog_scoring_analyses" a
         WHERE a."requestedBy" IN (SELECT u."id" FROM "users" u WHERE u."organizationId" = $1)
           AND a."requestedBy" IS NOT NULL AND a."state" IN ('deferred', 'queued', 'running')`
    : `SELECT count(*)::int AS n FROM "catalog_scoring_analyses" a
         WHERE a."requestedBy" = $1 AND a."state" IN ('deferred', 'queued', 'running')`;
  const got = await rows<{ n: number }>(c, sql, who.organizationId ?? who.userId);
  return Number(got[0]?.n ?? 0);
}

/**
 * Refuse (429 `rate_limited`, limit "activeAnalyses") when the actor's organisation already has the
 * cap's number of analyses in flight. `organizationId` is the organisation the analysis is for (the
 * listing's, or the actor's own for a URL submission).
 */
export async function assertAnalysisCapacity(actor: Pick<Actor, "id" | "role" | "organizationId">, client?: Client): Promise<void> {
  const cap = limitsConfig().activeAnalyses;
  if (cap === null || MODERATION_ROLES.includes(actor.role)) return;
  const active = await activeAnalysesOf({ userId: actor.id, organizationId: actor.organizationId }, client);
  if (active < cap) return;
  throw new AppError(
    "rate_limited",
    `Your organisation already has ${active} analyses queued or running, the most one seller may have at once (${cap}). Wait for one to finish, then ask again.`,
    [],
    { limit: "activeAnalyses", max: cap, active, retryAfterSeconds: CAP_RETRY_AFTER_SECONDS },
  );
}

/** One new listing of the organisation's daily allowance (429 once it is spent). */
export async function takeListingAllowance(organizationId: string, client?: Client): Promise<void> {
  await takeRateLimit("listings", organizationId, { client });
}
