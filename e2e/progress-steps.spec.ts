import { expect, test } from "@playwright/test";
import { SELLERS_ORIGIN, signInAs } from "./helpers";
import { shot } from "./shots";

// Live progress that shows the steps (queued, probing with endpoint n of m, scoring, stored) and never
// says "no published result yet" beside a succeeded analysis. The publish analysis reuses the draft's
// unpaid answers (one call per endpoint per submission, docs/QUEUE.md "One call per endpoint"), so it
// passes through probing at once; a re-analysis probes afresh, and the "slow" fixture seller answers its
// 402 after the probe's 10 s deadline, so probing lasts long enough to be seen.
test("progress shows each step of an analysis, then the stored result", async ({ page }) => {
  test.setTimeout(240_000);
  await signInAs(page, "seller@demo", "/dashboard/new");
  await page.getByLabel("Your service's URL").fill(`${SELLERS_ORIGIN}/slow`);
  await page.getByRole("button", { name: "Draft the listing" }).click();
  await expect(page.getByRole("heading", { name: "Review the draft" })).toBeVisible({ timeout: 60_000 });
  await page.getByLabel(/^Title/).fill(`Slow summariser ${Date.now().toString(36)}`);
  await page.getByRole("button", { name: "Publish and analyse" }).click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+\?analysis=/, { timeout: 30_000 });

  const steps = page.getByRole("list", { name: "Analysis progress" });
  await expect(steps.locator("li")).toHaveText([/queued/, /probing/, /scoring/, /stored/]);
  // The publish analysis, on the draft's answers: stored without a second call to the seller.
  await expect(page.getByTestId("analysis-state")).toHaveText(/Analysis succeeded · result stored/, { timeout: 90_000 });
  await expect(page.getByTestId("readiness-total")).toBeVisible({ timeout: 15_000 });

  // A re-analysis probes the seller again: probing, with the endpoint it is on.
  await page.getByRole("button", { name: "Re-analyse" }).click();
  await expect(steps.locator('li[data-step="probing"][data-status="current"]')).toHaveText(/probing \(endpoint 1 of 1\)/, { timeout: 30_000 });
  await expect(steps.locator('li[data-step="queued"]')).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("analysis-state")).toContainText("probing (endpoint 1 of 1)");
  // While it runs, the report says so, not "no published result yet".
  await expect(page.getByText("No published result yet")).toHaveCount(0);
  await page.screenshot({ path: shot("progress-probing") });

  // Then stored: every step done, and the score on the page beside it.
  await expect(page.getByTestId("analysis-state")).toHaveText(/Analysis succeeded · result stored/, { timeout: 60_000 });
  for (const s of ["queued", "probing", "scoring", "stored"]) await expect(steps.locator(`li[data-step="${s}"]`)).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("readiness-total")).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText("No published result yet")).toHaveCount(0);
});
