/** GET /api/ops/metrics — the queue's Prometheus metrics (worker token required). */
import { toResponse } from "@/lib/errors";
import { opsMetricsText } from "@/lib/ops/handlers";
import { requireWorkerToken } from "@/lib/ops/auth";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  try {
    requireWorkerToken(req);
    const { body, contentType } = await opsMetricsText();
    return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
