/**
 * POST /api/facilitator/settle (x402 v2) → SettleResponse. Only Tollgate's own parties may call it,
 * within their rate limits and gas budget (lib/facilitator/door.ts).
 */
import { facilitatorRequest } from "@/lib/facilitator";
import { toResponse } from "@/lib/errors";

export async function POST(req: Request): Promise<Response> {
  try {
    return await facilitatorRequest(req, "settle");
  } catch (e) {
    return toResponse(e);
  }
}
