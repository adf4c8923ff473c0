/**
 * Caps on one seller organisation (docs/LIMITS.md "Caps"): analyses in flight and listings created per day. The check
 * precedes the write, so concurrent requests may overshoot by as many as arrive at once.
 */
import { MODERATION_ROLES, type Actor } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { clientOr, rows, type Client } from "@/lib/sql";
import { limitsConfig } from "./config";
import { takeRateLimit } from "./rate-limit";

/** About one analysis's run. */
export const CAP_RETRY_AFTER_SECONDS = 60;

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

/** `organizationId`: the listing's, or the actor's own for a URL submission. */
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

export async function takeListingAllowance(organizationId: string, client?: Client): Promise<void> {
  await takeRateLimit("listings", organizationId, { client });
}
