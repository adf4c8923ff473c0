/**
 * next-auth v4 options. Sessions are JWTs carrying only the user id; the role is read fresh from the
 * database on every protected page, route and action (lib/auth/roles.ts).
 */
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { userForWallet, verifySiwe } from "@/lib/auth/siwe";

/** The development sign-in exists only when TOLLGATE_DEMO_SIGNIN is set (npm run demo sets it). */
export function demoSignInEnabled(): boolean {
  return env().TOLLGATE_DEMO_SIGNIN === true;
}

export function authOptions(): NextAuthOptions {
  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "siwe",
      name: "Ethereum wallet",
      credentials: { message: { type: "text" }, signature: { type: "text" } },
      // The expected domain, URI and chain come from configuration only (lib/env publicOrigin); the
      // request's Host and X-Forwarded-* headers are never read.
      async authorize(credentials) {
        if (!credentials?.message || !credentials.signature) return null;
        const outcome = await verifySiwe(credentials.message, credentials.signature);
        if (!outcome.ok) return null;
        const user = await userForWallet(outcome.address);
        return { id: user.id, name: user.name };
      },
    }),
  ];
  if (demoSignInEnabled()) {
    providers.push(
      CredentialsProvider({
        id: "demo",
        name: "Demo account",
        credentials: { login: { type: "text" } },
        async authorize(credentials) {
          // Demo accounts only: the flag is checked again at sign-in time, not just at start-up.
          if (!demoSignInEnabled() || !credentials?.login) return null;
          const prisma = await db();
          const user = await prisma.user.findFirst({ where: { demoLogin: credentials.login, demo: true } });
          return user ? { id: user.id, name: user.name } : null;
        },
      }),
    );
  }
  return {
    providers,
    secret: env().NEXTAUTH_SECRET ?? "tollgate-development-secret-not-for-production",
    session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
    pages: { signIn: "/signin" },
    callbacks: {
      jwt({ token, user }) {
        if (user) token.uid = user.id;
        return token;
      },
      session({ session, token }) {
        (session as { uid?: string }).uid = typeof token.uid === "string" ? token.uid : undefined;
        return session;
      },
    },
  };
}
