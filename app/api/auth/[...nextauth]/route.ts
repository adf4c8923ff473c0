import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

const handler = (req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) =>
  // next-auth v4 reads params synchronously; Next 16 hands them over as a promise.
  ctx.params.then((params) => NextAuth(req as never, { params } as never, authOptions()));

export { handler as GET, handler as POST };
