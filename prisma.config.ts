import path from "node:path";
import { defineConfig } from "prisma/config";

// Prisma 6.19 with the WASM ("js") schema engine: no native engine download is ever needed.
// The adapter here is used only by the Prisma CLI (migrate dev / diff); the app opens its own
// client in lib/db.ts and applies migrations with scripts/migrate.ts on both backends.
export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  async adapter() {
    const { PGlite } = await import("@electric-sql/pglite");
    const { PrismaPGlite } = await import("pglite-prisma-adapter");
    const dir = process.env.PRISMA_CLI_PGLITE_DIR ?? path.join(".data", "prisma-cli");
    return new PrismaPGlite(new PGlite(dir));
  },
});
