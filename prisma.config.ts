import path from "node:path";
import { defineConfig } from "prisma/config";

// Prisma 6.19 with the WASM ("js") schema engine: no native engine download is ever needed.
// The adapter here serves only the Prisma CLI (e.g. `prisma migrate diff` when writing a new
// migration); the product opens its own client in lib/db.ts and applies the committed migrations
// with lib/migrate.ts on both backends. The CLI keeps the in-memory PGlite open after it prints,
// so wrap such commands in `timeout` (see docs/DATA-MODEL.md).
export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  async adapter() {
    const { PGlite } = await import("@electric-sql/pglite");
    const { PrismaPGlite } = await import("pglite-prisma-adapter");
    return new PrismaPGlite(new PGlite());
  },
});
