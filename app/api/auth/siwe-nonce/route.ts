import { issueNonce, siweMessageFields } from "@/lib/auth/siwe";
import { toResponse } from "@/lib/errors";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export const dynamic = "force-dynamic";

/**
 * A one-time nonce for a Sign-In with Ethereum message, with the domain, URI and chain it must name.
 * Each one is a row, so it is rate-limited per client address and across the deployment (429 with
 * Retry-After), expires after 10 minutes and is swept (docs/LIMITS.md).
 */
export async function GET(req: Request) {
  try {
    // Per address first, so one address spending its own budget does not also spend everyone's.
    await takeRateLimit("nonce", clientAddress(req.headers, limitsConfig().trustedProxies));
    await takeRateLimit("nonceAll", "*");
    return Response.json({ nonce: await issueNonce(), ...siweMessageFields() }, { headers: { "Cache-Control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
