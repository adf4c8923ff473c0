/**
 * Where the e2e specs save their page screenshots: test-results/screenshots by default, so a test
 * run leaves the working tree clean; with TOLLGATE_SCREENSHOTS=docs, docs/screenshots (the pictures
 * the README shows), to refresh them on purpose: `TOLLGATE_SCREENSHOTS=docs npm run test:e2e`.
 */
import path from "node:path";

export function shot(name: string): string {
  const dir = process.env.TOLLGATE_SCREENSHOTS === "docs" ? "docs/screenshots" : "test-results/screenshots";
  return path.join(dir, `${name}.png`);
}
