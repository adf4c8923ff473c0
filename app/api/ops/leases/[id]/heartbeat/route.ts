/** POST /api/ops/leases/:id/heartbeat — extend a live lease, fenced by its token (409 lease_lost otherwise). */
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, readBody, routeParams } from "@/lib/http";
import { HeartbeatBody, opsHeartbeat } from "@/lib/ops/handlers";
import { requireWorkerToken } from "@/lib/ops/auth";

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    requireWorkerToken(req);
    const { id } = await routeParams(ctx.params);
    return Response.json(await opsHeartbeat(id, await readBody(req, HeartbeatBody, BODY_LIMITS.opsSmall, "an ops request")));
  } catch (e) {
    return toResponse(e);
  }
}
