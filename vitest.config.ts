import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(__dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "devchain/**/*.test.ts", "sellers/**/*.test.ts", "demo/**/*.test.ts", "test/**/*.test.ts", "app/**/*.test.ts", "scripts/**/*.test.ts", "prisma/**/*.test.ts", "components/**/*.test.ts", "bench/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
