/**
 * POST /api/facilitator/verify — x402 v2: { x402Version, paymentPayload, paymentRequirements } →
 * VerifyResponse (200 with isValid true or false and the reason). A malformed body is a 400 naming
 * the field; no facilitator configured or the chain unreadable is a 503.
 */
import { FacilitatorRequestBody, facilitatorFromEnv, verify } from "@/lib/chain/facilitator";
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, readBody } from "@/lib/http";

export async function POST(req: Request): Promise<Response> {
  try {
    const setup = facilitatorFromEnv();
    return Response.json(await verify(setup, await readBody(req, FacilitatorRequestBody, BODY_LIMITS.facilitator, "a facilitator request")));
  } catch (e) {
    return toResponse(e);
  }
}
