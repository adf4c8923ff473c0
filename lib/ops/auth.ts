/** Ops API auth: `Authorization: Bearer <TOLLGATE_WORKER_TOKEN>`; with no token configured the API is closed. */
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
  // Constant-time even when lengths differ.
  const ok = given.length === want.length ? crypto.timingSafeEqual(given, want) : (crypto.timingSafeEqual(want, want), false);
  if (!ok) throw new AppError("unauthorized", "A valid worker token is required (Authorization: Bearer …).");
}
