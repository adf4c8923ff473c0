/**
 * Per-actor rate limits in Postgres, fixed windows (docs/LIMITS.md "Rate limits"). A token is taken
 * by one statement: an upsert on (bucket, window start) that adds one only while the count is under
 * the limit, so concurrent requests on any number of servers can never take more than `max` in a
 * window (the row lock of ON CONFLICT DO UPDATE serialises them, and its WHERE is checked against
 * the row as the last writer left it). No row back means the window is full: a 429 `rate_limited`
 * with the seconds until the window ends (lib/errors.ts answers them as Retry-After).
 *
 * Windows are aligned to the epoch (an hour's window is a clock hour, a day's a UTC day): a burst
 * straddling a boundary can reach twice `max` in one window's length, never more; the simplicity is
 * worth it here, where the limits are tens of times what honest use needs.
 */
import { AppError } from "@/lib/errors";
import { clientOr, rows, utcParam, type Client } from "@/lib/sql";
import { LIMITED_ACTIONS, describeRate, describeSeconds, limitsConfig, type ActionName, type RateLimit } from "./config";

export interface TakeOptions {
  now?: Date;
  client?: Client;
  /** The limit to apply instead of the configured one (tests, benches). */
  limit?: RateLimit | null;
  /**
   * Take a block of tokens in one statement and spend them here before asking again (the router's
   * hot path): the window can still never pass `max` on any number of servers, and a server leaves at
   * most LEASE_MAX - 1 taken but unspent per window and actor. docs/LIMITS.md "Leased tokens".
   */
  lease?: boolean;
}

export interface Taken {
  /** Tokens left in this window after this one (Infinity when the action is not limited). */
  remaining: number;
  /** When this window ends. */
  resetsAt: Date | null;
}

/** The most tokens one statement takes for a leasing caller; a hundredth of the limit, at least one. */
export const LEASE_MAX = 20;
const leaseSize = (limit: RateLimit) => Math.max(1, Math.min(LEASE_MAX, Math.floor(limit.max / 100)));
/** Tokens taken and not yet spent, per database client and bucket, for the window they were taken in. */
const leases = new WeakMap<object, Map<string, { windowStart: number; left: number }>>();

/** The longest actor key kept (an API key id, a user id, an IP address are far shorter). */
const MAX_ACTOR_CHARS = 200;

const TAKE_SQL = `INSERT INTO "rate_limit_windows" ("bucket", "windowStart", "expiresAt", "count")
  VALUES ($1, ${utcParam(2)}, ${utcParam(3)}, 1)
  ON CONFLICT ("bucket", "windowStart") DO UPDATE SET "count" = "rate_limit_windows"."count" + 1
    WHERE "rate_limit_windows"."count" < $4::int
  RETURNING "count"`;

/** TAKE_SQL for a block of $5 tokens: all of them or none. */
const TAKE_BLOCK_SQL = `INSERT INTO "rate_limit_windows" ("bucket", "windowStart", "expiresAt", "count")
  VALUES ($1, ${utcParam(2)}, ${utcParam(3)}, $5::int)
  ON CONFLICT ("bucket", "windowStart") DO UPDATE SET "count" = "rate_limit_windows"."count" + $5::int
    WHERE "rate_limit_windows"."count" + $5::int <= $4::int
  RETURNING "count"`;

/**
 * Take one token of `action` for `actor` (a user id, an organisation id, a client address, an API
 * key id, or "*" for a deployment-wide ceiling), or throw the 429 that names the limit.
 */
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
    // Fewer than a block left in this window: one at a time, as a caller that does not lease.
  }
  const got = await rows<{ count: number }>(client, TAKE_SQL, bucket, new Date(start).toISOString(), new Date(end).toISOString(), limit.max);
  if (got.length === 1) return { remaining: limit.max - Number(got[0].count), resetsAt: new Date(end) };
  throw rateLimited(action, limit, Math.ceil((end - now) / 1000));
}

/** The 429 for a full window: what is limited, the number, whose budget, and when to come back. */
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

/** Windows that have ended (every limit's row is useless once its window is over). */
export async function sweepRateLimitWindows(now = new Date(), client?: Client): Promise<number> {
  const c = await clientOr(client);
  const gone = await rows<{ n: number }>(c, `WITH gone AS (DELETE FROM "rate_limit_windows" WHERE "expiresAt" <= ${utcParam(1)} RETURNING 1) SELECT count(*)::int AS n FROM gone`, now.toISOString());
  return Number(gone[0]?.n ?? 0);
}
