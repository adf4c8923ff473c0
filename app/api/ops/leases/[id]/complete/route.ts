/**
 * POST /api/ops/leases/:id/complete — the worker posts its evidence with the lease token; the API
 * scores it and stores the result in one transaction. Expired or foreign token → 409 lease_lost.
 */
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, readBody, routeParams } from "@/lib/http";
import { CompleteBody, opsComplete } from "@/lib/ops/handlers";
import { requireWorkerToken } from "@/lib/ops/auth";
import type { CompleteRequest } from "@/lib/ops-wire";

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    requireWorkerToken(req);
    const { id } = await routeParams(ctx.params);
    // Evidence of a listing with many endpoints can be large; 8 MB bounds it.
    const body = (await readBody(req, CompleteBody, BODY_LIMITS.opsEvidence, "a completion with its evidence")) as CompleteRequest;
    return Response.json(await opsComplete(id, body));
  } catch (e) {
    return toResponse(e);
  }
}
