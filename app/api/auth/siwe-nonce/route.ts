import { issueNonce, siweMessageFields } from "@/lib/auth/siwe";
import { toResponse } from "@/lib/errors";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export const dynamic = "force-dynamic";

/** A one-time Sign-In with Ethereum nonce; each is a row, so it is rate-limited and swept (docs/LIMITS.md). */
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
