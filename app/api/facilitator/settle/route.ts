/**
 * POST /api/facilitator/settle — x402 v2: { x402Version, paymentPayload, paymentRequirements } →
 * SettleResponse (200 with success and the transaction, or the reason). Only Tollgate's own
 * parties may call it (401/403 otherwise), within their rate limits and gas budget (429); a
 * malformed body is a 400 naming the field; no facilitator configured or the chain unreadable is a
 * 503 (lib/facilitator/door.ts).
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
