/**
 * Per-actor rate limits in Postgres, fixed epoch-aligned windows (docs/LIMITS.md "Rate limits"): one conditional
 * upsert per token, so no number of servers can pass `max` in a window.
 */
import { AppError } from "@/lib/errors";
import { clientOr, rows, utcParam, type Client } from "@/lib/sql";
import { LIMITED_ACTIONS, describeRate, describeSeconds, limitsConfig, type ActionName, type RateLimit } from "./config";
import { clientAddress } from "./client-address";

export interface TakeOptions {
  now?: Date;
  client?: Client;
  limit?: RateLimit | null;
  /** Takes a block of tokens per statement (the router's hot path); docs/LIMITS.md "Leased tokens". */
  lease?: boolean;
}

export interface Taken {
  /** Infinity when the action is not limited. */
  remaining: number;
  resetsAt: Date | null;
}

export const LEASE_MAX = 20;
const leaseSize = (limit: RateLimit) => Math.max(1, Math.min(LEASE_MAX, Math.floor(limit.max / 100)));
/** Taken and unspent tokens, per database client and bucket. */
const leases = new WeakMap<object, Map<string, { windowStart: number; left: number }>>();

const MAX_ACTOR_CHARS = 200;

const TAKE_SQL = `INSERT INTO "rate_limit_windows" ("bucket", "windowStart", "expiresAt", "count")
  VALUES ($1, ${utcParam(2)}, ${utcParam(3)}, 1)
  ON CONFLICT ("bucket", "windowStart") DO UPDATE SET "count" = "rate_limit_windows"."count" + 1
    WHERE "rate_limit_windows"."count" < $4::int
  RETURNING "count"`;

/** All $5 tokens or none. */
const TAKE_BLOCK_SQL = `INSERT INTO "rate_limit_windows" ("bucket", "windowStart", "expiresAt", "count")
  VALUES ($1, ${utcParam(2)}, ${utcParam(3)}, $5::int)
  ON CONFLICT ("bucket", "windowStart") DO UPDATE SET "count" = "rate_limit_windows"."count" + $5::int
    WHERE "rate_limit_windows"."count" + $5::int <= $4::int
  RETURNING "count"`;

/** `actor`: a user, organisation, client address or API key id, or "*" for a deployment-wide ceiling. */
export async function takeRateLimit(action: ActionName, actor: string, opts: TakeOptions = {}): Promise<Taken> {
  const limit = opts.limit !== undefined ? opts.limit : limitsConfig().rates[action];
  if (!limit) return { remaining: Infinity, resetsAt: null };
  const now = (opts.now ?? new Date()).getTime();
  const windowMs = limit.windowSeconds * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  const end = start + windowMs;
  const bucket = `${action}:${actor.slice(0, MAX_ACTOR_CHARS)}`;
  const client = await clientOr(opts.client);
  const size = opts.lease ? leaseSize(limit) : 1;
  if (size > 1) {
    let held = leases.get(client);
    if (!held) leases.set(client, (held = new Map()));
    const lease = held.get(bucket);
    if (lease && lease.windowStart === start && lease.left > 0) {
      lease.left--;
      return { remaining: lease.left, resetsAt: new Date(end) };
    }
    held.delete(bucket);
    const block = await rows<{ count: number }>(client, TAKE_BLOCK_SQL, bucket, new Date(start).toISOString(), new Date(end).toISOString(), limit.max, size);
    if (block.length === 1) {
      held.set(bucket, { windowStart: start, left: size - 1 });
      if (held.size > 10_000) held.delete(held.keys().next().value as string);
      return { remaining: limit.max - Number(block[0].count), resetsAt: new Date(end) };
    }
    // Fewer than a block left: one at a time.
  }
  const got = await rows<{ count: number }>(client, TAKE_SQL, bucket, new Date(start).toISOString(), new Date(end).toISOString(), limit.max);
  if (got.length === 1) return { remaining: limit.max - Number(got[0].count), resetsAt: new Date(end) };
  throw rateLimited(action, limit, Math.ceil((end - now) / 1000));
}

export function rateLimited(action: ActionName, limit: RateLimit, retryAfterSeconds: number): AppError {
  const a = LIMITED_ACTIONS[action];
  const wait = Math.max(1, retryAfterSeconds);
  return new AppError("rate_limited", `Too many ${a.what}: at most ${describeRate(limit)} for ${a.per}. Try again in ${describeSeconds(wait)}.`, [], {
    limit: action,
    max: limit.max,
    windowSeconds: limit.windowSeconds,
    retryAfterSeconds: wait,
  });
}

export async function sweepRateLimitWindows(now = new Date(), client?: Client): Promise<number> {
  const c = await clientOr(client);
  const gone = await rows<{ n: number }>(c, `WITH gone AS (DELETE FROM "rate_limit_windows" WHERE "expiresAt" <= ${utcParam(1)} RETURNING 1) SELECT count(*)::int AS n FROM gone`, now.toISOString());
  return Number(gone[0]?.n ?? 0);
}

/** The attestation and evidence routes' two limits: per client address, then for the whole deployment. */
export async function takeAttestationLimits(headers: Headers): Promise<void> {
  await takeRateLimit("attestation", clientAddress(headers, limitsConfig().trustedProxies));
  await takeRateLimit("attestationAll", "*");
}
