/**
 * The ops API is for catalog-monitor workers only: `Authorization: Bearer <TOLLGATE_WORKER_TOKEN>`.
 * Workers hold this token and no database credentials. With no token configured the ops API is
 * closed (there is no default token to guess).
 */
import crypto from "node:crypto";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

export function requireWorkerToken(req: Request): void {
  const expected = env().TOLLGATE_WORKER_TOKEN;
  if (!expected) throw new AppError("unavailable", "The ops API is disabled: TOLLGATE_WORKER_TOKEN is not set on the server.");
  const header = req.headers.get("authorization") ?? "";
  const m = /^Bearer ([^\s]+)$/.exec(header);
  const given = Buffer.from(m?.[1] ?? "");
  const want = Buffer.from(expected);
  // Constant-time compare; lengths differ → compare against itself so timing does not tell either.
  const ok = given.length === want.length ? crypto.timingSafeEqual(given, want) : (crypto.timingSafeEqual(want, want), false);
  if (!ok) throw new AppError("unauthorized", "A valid worker token is required (Authorization: Bearer …).");
}
