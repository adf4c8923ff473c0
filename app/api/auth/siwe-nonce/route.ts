import { issueNonce, siweMessageFields } from "@/lib/auth/siwe";
import { toResponse } from "@/lib/errors";

export const dynamic = "force-dynamic";

/** A one-time nonce for a Sign-In with Ethereum message, with the domain, URI and chain it must name. */
export async function GET() {
  try {
    return Response.json({ nonce: await issueNonce(), ...siweMessageFields() }, { headers: { "Cache-Control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
