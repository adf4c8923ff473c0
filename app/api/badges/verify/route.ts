/**
 * POST /api/badges/verify with an SVG badge or a DSSE envelope → {ok, verdict, …}, checked against
 * this deployment's key set and result statuses. "superseded" is authentic but replaced (ok false).
 */
import { readVerifyBody, verifyLocally } from "@/lib/badges/server";
import { toResponse } from "@/lib/errors";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export async function POST(req: Request): Promise<Response> {
  try {
    // Per client address, then the deployment's ceiling, before a byte of the body (docs/LIMITS.md).
    await takeRateLimit("badgeVerify", clientAddress(req.headers, limitsConfig().trustedProxies));
    await takeRateLimit("badgeVerifyAll", "*");
    const r = await verifyLocally(await readVerifyBody(req), new Date());
    const body = r.ok
      ? { ok: true, verdict: r.verdict, keyid: r.keyid, statement: r.statement, checks: r.checks }
      : r.verdict === "superseded"
        ? { ok: false, verdict: r.verdict, reason: r.reason, keyid: r.keyid, statement: r.statement, currentResultId: r.currentResultId, checks: r.checks }
        : { ok: false, verdict: r.verdict, reason: r.reason, checks: r.checks };
    return Response.json(body, { headers: { "cache-control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
