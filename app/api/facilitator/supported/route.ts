/** GET /api/facilitator/supported — the x402 v2 facilitator's payment kinds and signers (lib/chain/facilitator.ts). */
import { facilitatorFromEnv, supported } from "@/lib/chain/facilitator";
import { toResponse } from "@/lib/errors";

export async function GET(): Promise<Response> {
  try {
    return Response.json(supported(facilitatorFromEnv()));
  } catch (e) {
    return toResponse(e);
  }
}
