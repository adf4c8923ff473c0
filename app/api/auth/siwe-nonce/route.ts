import { issueNonce } from "@/lib/auth/siwe";
import { toResponse } from "@/lib/errors";

export const dynamic = "force-dynamic";

/** A one-time nonce for a Sign-In with Ethereum message. */
export async function GET() {
  try {
    return Response.json({ nonce: await issueNonce() }, { headers: { "Cache-Control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
