/**
 * next-auth's routes. Its form posts are read here first, bounded (16 KiB, lib/http.ts), and handed
 * on whole; a wallet sign-in (POST /api/auth/callback/siwe, where the signature is verified) is
 * rate-limited per client address and across the deployment first (docs/LIMITS.md).
 */
import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import { authOptions } from "@/lib/auth/options";
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, readBodyBytes } from "@/lib/http";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

type Context = { params: Promise<{ nextauth: string[] }> };

async function handler(req: Request, ctx: Context): Promise<Response> {
  try {
    const params = await ctx.params;
    let request = req;
    if (req.method === "POST") {
      if (params.nextauth?.[0] === "callback" && params.nextauth?.[1] === "siwe") {
        await takeRateLimit("verify", clientAddress(req.headers, limitsConfig().trustedProxies));
        await takeRateLimit("verifyAll", "*");
      }
      const body = await readBodyBytes(req, BODY_LIMITS.auth, "a sign-in form");
      request = new NextRequest(req.url, { method: "POST", headers: req.headers, body });
    }
    // next-auth v4 reads params synchronously; Next 16 hands them over as a promise.
    return await NextAuth(request as never, { params } as never, authOptions());
  } catch (e) {
    return toResponse(e);
  }
}

export { handler as GET, handler as POST };
