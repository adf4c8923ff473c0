/**
 * POST /api/badges/verify with an SVG badge (image/svg+xml or text/plain) or a DSSE envelope
 * (application/json) → {ok, reason?, keyid?, statement?, checks}, checked against this deployment's
 * key set and result statuses. A verdict (valid or not) is 200; a body that cannot be checked is 400.
 */
import { readVerifyBody, verifyLocally } from "@/lib/badges/server";
import { toResponse } from "@/lib/errors";

export async function POST(req: Request): Promise<Response> {
  try {
    const r = await verifyLocally(await readVerifyBody(req), new Date());
    const body = r.ok ? { ok: true, keyid: r.keyid, statement: r.statement, checks: r.checks } : { ok: false, reason: r.reason, checks: r.checks };
    return Response.json(body, { headers: { "cache-control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
