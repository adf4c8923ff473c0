import { shot } from "./shots";
import { expect, test } from "@playwright/test";
import { signInAs, tileTitles, waitForRankedCatalog } from "./helpers";

const TARGET = "Tickr spot prices";

test("a moderator sets Featured 3 with a reason, sees the listing re-ranked at once (×1.30, never lower in the catalog), and finds the change in the audit log", async ({ page }) => {
  await waitForRankedCatalog(page);
  const before = await tileTitles(page);
  const from = before.indexOf(TARGET);
  expect(from, `${TARGET} is in the catalog below the top`).toBeGreaterThan(0);

  await signInAs(page, "moderator@demo", "/admin");
  await expect(page.getByRole("heading", { name: "Analysis queue" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Listings in browse order" })).toBeVisible();
  await page.screenshot({ path: shot("admin"), fullPage: true });

  // The queue filters by state.
  await page.getByRole("link", { name: /^succeeded/i }).click();
  await expect(page).toHaveURL(/state=succeeded/);
  await page.getByRole("link", { name: /^all/i }).click();

  await page.getByRole("link", { name: TARGET }).first().click();
  await expect(page.getByRole("heading", { name: TARGET })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Quality and rank" })).toBeVisible();
  // Its settlement ledger as the router recorded it and the chain confirmed it: the demo market's
  // wash trader, one wallet paying itself twelve times (demo/market.ts).
  await expect(page.getByRole("heading", { name: "Settlement ledger" })).toBeVisible();
  await expect(page.getByText(/12 attempts: 12 settled on chain, 0 failed/)).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "settled" }).first()).toContainText("GET /price");

  // Its rank sort key before (×100), to hold the lever's ×1.30 against. Neighbours' ranks are live (real
  // payments, canary runs), so the position is required not to fall, and the factor to be exact.
  const rank100 = async () => Number(await page.locator("dt", { hasText: "Rank ×100" }).locator("xpath=following-sibling::dd").textContent());
  const rankBefore = await rank100();
  expect(rankBefore).toBeGreaterThan(0);

  // The reason is required: without it the server refuses and nothing changes.
  await page.getByLabel("Level (0–5)").selectOption("3");
  await page.getByLabel(/^Reason/).first().evaluate((el) => el.removeAttribute("required"));
  await page.getByRole("button", { name: "Set featured level" }).click();
  await expect(page.getByText(/Not saved: reason must be a non-empty string/)).toBeVisible();
  // What the moderator chose is kept after a refusal.
  await expect(page.getByLabel("Level (0–5)")).toHaveValue("3");

  const reason = `e2e: editorial pick for the price-feed roundup ${Date.now().toString(36)}`;
  await page.getByLabel(/^Reason/).first().fill(reason);
  await page.getByRole("button", { name: "Set featured level" }).click();
  const outcome = page.getByRole("status").filter({ hasText: "Saved:" });
  // In words, not field names (issue 19 item 8).
  await expect(outcome).toContainText("Featured level 0 → 3");
  const posBefore = Number((await page.getByTestId("position-before").textContent())!.replace("#", ""));
  const posAfter = Number((await page.getByTestId("position-after").textContent())!.replace("#", ""));
  expect(posAfter).toBeLessThanOrEqual(posBefore);
  await page.reload();
  await expect(page.getByText(/featured 3 ·/)).toBeVisible();
  // Featured = 1 + 0.1 × level: from ×1.00 to ×1.30 (each side rounded to a whole ×100).
  expect(Math.abs((await rank100()) - rankBefore * 1.3)).toBeLessThanOrEqual(1.5);
  await expect(page.getByRole("heading", { name: "Moderation changes" })).toBeVisible();
  await page.screenshot({ path: shot("admin-listing"), fullPage: true });

  // The public order follows at once.
  await page.goto("/catalog");
  const after = await tileTitles(page);
  expect(after.indexOf(TARGET)).toBeLessThanOrEqual(from);
  expect(await page.content()).not.toContain("featuredLevel");

  // And the audit log says who, when, before, after and why.
  await page.goto("/admin/audit");
  const row = page.getByRole("row").filter({ hasText: reason });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Mo Moderator");
  await expect(row).toContainText("featured.set");
  await expect(row).toContainText("Featured level changed");
  await expect(row.getByRole("list", { name: "Before and after" })).toContainText("Featured level: 0 → 3");
  await expect(row).toContainText(TARGET);
});

test("the moderators' canary desk shows every run across listings: the mature seller verified by paid calls with their transactions, filterable by outcome, with today's budget", async ({ page }) => {
  // The server's canary ticks run each published listing within about a minute of start (docs/CANARY.md).
  test.setTimeout(240_000);
  const MATURE = "Geocodr address geocoding";
  await signInAs(page, "moderator@demo", "/admin");
  await page.getByRole("link", { name: "Canary runs" }).click();
  await expect(page).toHaveURL(/\/admin\/canary$/);
  await expect(page.getByRole("heading", { name: "Canary runs", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: /Budget left today/ })).toBeVisible();
  await expect(page.getByTestId("canary-budget-day")).toContainText(/^\$\d+(\.\d+)? of \$\d+(\.\d+)?$/);

  // The mature seller's first run has finished: wait for it (reloading), then read its evidence.
  const matureRun = () => page.locator('[data-testid="canary-run"][data-run-state="done"]').filter({ has: page.getByTestId("canary-run-listing").filter({ hasText: MATURE }) });
  await expect(async () => {
    await page.goto("/admin/canary?show=verified");
    await expect(matureRun().first()).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 180_000, intervals: [5_000] });
  // Only verified runs are shown under this filter, and the mature seller's paid every endpoint on chain.
  for (const outcome of await page.getByTestId("canary-run").evaluateAll((els) => els.map((e) => e.getAttribute("data-run-outcome")))) expect(outcome).toBe("verified");
  const run = matureRun().first();
  await expect(run.getByTestId("canary-sample")).toHaveCount(3);
  for (const tx of await run.getByTestId("canary-sample-tx").allTextContents()) expect(tx).toMatch(/^0x[0-9a-f]{8}….+ settled/);
  await expect(run).toContainText(/its budget left today \$\d/);
  await page.screenshot({ path: shot("admin-canary"), fullPage: true });

  // The filter links move between states and outcomes; "all" shows every run again.
  await page.getByRole("link", { name: /^done: unverified/i }).click();
  await expect(page).toHaveURL(/show=unverified/);
  await page.getByRole("link", { name: /^all/i }).click();
  await expect(page).toHaveURL(/\/admin\/canary$/);
  await expect(page.getByTestId("canary-run").first()).toBeVisible();
});
