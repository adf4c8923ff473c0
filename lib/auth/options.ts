/** next-auth options: JWT sessions carry only the user id; the role is read fresh per request (lib/auth/roles.ts). */
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { userForWallet, verifySiwe } from "@/lib/auth/siwe";

export function demoSignInEnabled(): boolean {
  return env().TOLLGATE_DEMO_SIGNIN === true;
}

/**
 * next-auth v4 reads its own base URL from NEXTAUTH_URL only; lib/env.ts lets TOLLGATE_PUBLIC_URL alone configure a
 * deployment. Without this, next-auth believed it ran on http://localhost:3000: redirects went there and its session
 * and CSRF cookies lost Secure and their __Secure-/__Host- prefixes on an https deployment (lib/auth/cookies.test.ts).
 */
function alignNextAuthUrl(): void {
  if (!process.env.NEXTAUTH_URL && env().TOLLGATE_PUBLIC_URL) process.env.NEXTAUTH_URL = env().publicOrigin;
}

export function authOptions(): NextAuthOptions {
  alignNextAuthUrl();
  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "siwe",
      name: "Ethereum wallet",
      credentials: { message: { type: "text" }, signature: { type: "text" } },
      // Domain, URI and chain come from configuration only, never from Host or X-Forwarded-* headers.
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
          // The flag is checked again at sign-in, not only at start-up.
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
    // Secure, __Secure- and __Host- cookies whenever the configured origin is https, whatever next-auth infers.
    useSecureCookies: env().publicOrigin.startsWith("https:"),
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
