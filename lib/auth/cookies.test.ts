/**
 * Auth cookies follow the configured origin (lib/auth/options.ts): an https deployment configured with
 * TOLLGATE_PUBLIC_URL alone, as lib/env.ts allows, gets Secure, __Host-/__Secure- cookies and next-auth's base URL
 * at that origin. Before, next-auth read NEXTAUTH_URL only, believed it ran on http://localhost:3000, and issued its
 * session and CSRF cookies without Secure.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { parseEnv } from "@/lib/env";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});
type Handler = (p: unknown) => Promise<{ cookies?: Array<{ name: string; options: { secure?: boolean } }> }>;
// next-auth's request handler itself (its package exports do not name it).
const { AuthHandler } = createRequire(import.meta.url)(path.join(process.cwd(), "node_modules/next-auth/core/index.js")) as { AuthHandler: Handler };

async function csrfCookie(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) vi.stubEnv(k, v);
  const { authOptions } = await import("@/lib/auth/options");
  const res = await AuthHandler({ req: { method: "GET", action: "csrf", headers: { host: "tollgate.example", "x-forwarded-proto": "https" }, cookies: {}, query: {} } as never, options: authOptions() });
  return (res.cookies ?? []).find((c) => c.name.includes("csrf-token"));
}

it("an https deployment configured with TOLLGATE_PUBLIC_URL alone gets Secure __Host- auth cookies and next-auth's base URL", async () => {
  const prod = { NODE_ENV: "production", TOLLGATE_PUBLIC_URL: "https://tollgate.example", NEXTAUTH_SECRET: "x".repeat(40) };
  expect(parseEnv(prod).publicOrigin).toBe("https://tollgate.example");
  const csrf = await csrfCookie({ ...prod, NEXTAUTH_URL: undefined });
  expect(csrf).toMatchObject({ name: "__Host-next-auth.csrf-token", options: { secure: true } });
  expect(process.env.NEXTAUTH_URL).toBe("https://tollgate.example");
});

it("a development origin over plain http keeps plain cookies and leaves NEXTAUTH_URL alone", async () => {
  const csrf = await csrfCookie({ NODE_ENV: "test", TOLLGATE_PUBLIC_URL: undefined, NEXTAUTH_URL: undefined });
  expect(csrf).toMatchObject({ name: "next-auth.csrf-token", options: { secure: false } });
  expect(process.env.NEXTAUTH_URL).toBeUndefined();
});
