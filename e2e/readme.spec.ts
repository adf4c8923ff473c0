/**
 * Issue 19, item 10: the README's commands work as written against the demo. `npm run badge:verify`
 * is run as the README gives it (a badge URL, --base and --allow-host for the local origin), as a
 * child process, against the demo this run serves.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";

const run = promisify(execFile);

test("the README's badge:verify command verifies a demo listing's badge", async ({ page, request, baseURL }) => {
  test.setTimeout(120_000);
  await page.goto("/catalog");
  const hrefs = await page.getByRole("list", { name: "Listings" }).locator("h3 a").evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
  // The first listing with a published readiness result has a badge (the others answer a 404 badge).
  let slug: string | null = null;
  for (const href of hrefs) {
    const s = href.split("/").pop()!;
    if ((await request.get(`/badges/${s}.svg`)).status() === 200) {
      slug = s;
      break;
    }
  }
  expect(slug, "a demo listing with a badge").not.toBeNull();
  const origin = baseURL!;
  const host = new URL(origin).host;
  // README "Other commands": npm run badge:verify -- <origin>/badges/<slug>.svg --base <origin> --allow-host <host:port>
  // (exit 0 only for a valid badge: execFile rejects on any other exit code)
  const { stdout } = await run("npm", ["run", "--silent", "badge:verify", "--", `${origin}/badges/${slug}.svg`, "--base", origin, "--allow-host", host], { timeout: 90_000 });
  const verdict = JSON.parse(stdout) as { valid: boolean; verdict: string };
  expect(verdict).toMatchObject({ valid: true, verdict: "valid" });
});
