/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite's WASM and the Prisma adapters load from node_modules at run time, not from the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/adapter-pg", "pg", "prom-client"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  outputFileTracingRoot: process.cwd(),
  experimental: {
    // forbidden() answers 403 with app/forbidden.tsx (a moderator-only page reached by a seller).
    authInterrupts: true,
    // Server actions' bodies, fitted to the largest form (docs/LIMITS.md "Request bodies"): the
    // listing editor's save and inline validation carry one listing document, bounded at 1 MiB like
    // POST /api/listings (lib/http.ts BODY_LIMITS.listingDocument); every other form (a URL, the
    // moderators' levers, an acknowledgement) is a few hundred bytes. Next.js reads an action's body
    // before the action runs, counting as it streams and refusing with 413 past this size.
    serverActions: { bodySizeLimit: "1mb" },
  },
  // Headers every answer carries, static files included (the values of lib/security-headers.ts
  // STATIC_SECURITY_HEADERS and API_CSP; app/security-headers.test.ts holds them equal). A page's
  // Content-Security-Policy is proxy.ts's (a fresh nonce per page); the relay's is its route's.
  async headers() {
    const apiCsp = [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" }];
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
        ],
      },
      // Route handlers (lib/security-headers.ts API_PATHS): nothing loads, nothing runs, never framed.
      ...["/api/:path*", "/router/select", "/mcp", "/ard", "/ard/:path*", "/badges/:path*", "/discovery/:path*", "/.well-known/:path*", "/ai-catalog.json"].map((source) => ({ source, headers: apiCsp })),
    ];
  },
  // Types are checked once, over the whole project (tests included), by `npm run typecheck`, which
  // CI runs as its own gate before the suites; the build need not check them a second time.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
