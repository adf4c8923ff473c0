/**
 * POST /api/facilitator/verify (x402 v2) → VerifyResponse. Only Tollgate's own parties may call it,
 * within their rate limits (lib/facilitator/door.ts).
 */
import { facilitatorRequest } from "@/lib/facilitator";
import { toResponse } from "@/lib/errors";

export async function POST(req: Request): Promise<Response> {
  try {
    return await facilitatorRequest(req, "verify");
  } catch (e) {
    return toResponse(e);
  }
}
