/**
 * POST /api/facilitator/verify — x402 v2: { x402Version, paymentPayload, paymentRequirements } →
 * VerifyResponse (200 with isValid and the reason). Only Tollgate's own parties may call it (401/403 otherwise),
 * within their rate limits (429); a malformed body is a 400 naming the field; no facilitator
 * configured or the chain unreadable is a 503 (lib/facilitator/door.ts).
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
