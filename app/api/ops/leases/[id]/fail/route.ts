/** POST /api/ops/leases/:id/fail — the worker gives a job back with a reason: retry with backoff, or failed. */
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, readBody, routeParams } from "@/lib/http";
import { FailBody, opsFail } from "@/lib/ops/handlers";
import { requireWorkerToken } from "@/lib/ops/auth";

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    requireWorkerToken(req);
    const { id } = await routeParams(ctx.params);
    return Response.json(await opsFail(id, await readBody(req, FailBody, BODY_LIMITS.opsSmall, "an ops request")));
  } catch (e) {
    return toResponse(e);
  }
}
