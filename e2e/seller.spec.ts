import { shot } from "./shots";
import { expect, test } from "@playwright/test";
import { SELLERS_ORIGIN, signInAs } from "./helpers";

test("a seller adds a service from its URL, publishes, reads the report, applies a fix and sees the score rise", async ({ page }) => {
  test.setTimeout(240_000);
  await signInAs(page, "seller@demo", "/dashboard");
  await page.getByRole("link", { name: "Add a service" }).click();
  await expect(page.getByRole("heading", { name: "Add a service" })).toBeVisible();

  // A refused URL says why and what to do.
  await page.getByLabel("Your service's URL").fill(`${SELLERS_ORIGIN}/agent-verdict?token=abc`);
  await page.getByRole("button", { name: "Draft the listing" }).click();
  const refusal = page.getByText("The URL was not drafted").locator("..");
  await expect(refusal).toContainText("query_not_allowed");
  await expect(refusal).toContainText("What to do");

  // The fixture seller's URL is drafted from its discovery documents and 402.
  await page.getByLabel("Your service's URL").fill(`${SELLERS_ORIGIN}/agent-verdict`);
  await page.getByRole("button", { name: "Draft the listing" }).click();
  await expect(page.getByRole("heading", { name: "Review the draft" })).toBeVisible({ timeout: 30_000 });
  const title = page.getByLabel(/^Title/);
  await expect(title).not.toHaveValue("");
  await expect(page.getByLabel(/^Path/).first()).toHaveValue(/\//);
  const unique = `Agent verdict e2e ${Date.now().toString(36)}`;
  await title.fill(unique);

  // Inline validation by JSON pointer: a malformed homepage URL is named at its field.
  const homepage = page.getByLabel(/^Homepage URL/);
  const savedHomepage = await homepage.inputValue();
  await homepage.fill("not a url");
  await expect(page.getByText(/must be a valid uri|wrong shape/).first()).toBeVisible();
  await homepage.fill(savedHomepage || "https://example.com/agent-verdict");

  // Leave the walkthrough out for now: it is the fix applied later (rule D2).
  const walkthrough = page.getByLabel(/^Setup, auth and payment walkthrough/);
  const walkthroughText = (await walkthrough.inputValue()) || "POST the request unpaid to receive the 402 quote; sign the exact-scheme authorization for one offer; retry with PAYMENT-SIGNATURE.";
  await walkthrough.fill("");

  const estimate = page.getByRole("complementary", { name: "Provisional estimate" });
  await expect(estimate).toContainText("Provisional estimate — no live probe yet; never published");
  await expect(estimate.getByLabel(/^Readiness \d+ of 100/)).toBeVisible();
  const estimateBefore = Number((await estimate.getByLabel(/^Readiness \d+ of 100/).getAttribute("aria-label"))!.match(/\d+/)![0]);
  await walkthrough.fill(walkthroughText);
  await expect.poll(async () => Number((await estimate.getByLabel(/^Readiness \d+ of 100/).getAttribute("aria-label"))!.match(/\d+/)![0])).toBeGreaterThan(estimateBefore);
  await expect(page.getByText(/needs? attention before this can be saved/)).toHaveCount(0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot("add-service"), fullPage: true });
  await walkthrough.fill("");

  await page.getByRole("button", { name: "Publish and analyse" }).click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+(\?.*)?$/, { timeout: 30_000 });
  await expect(page.getByRole("heading", { name: unique })).toBeVisible();

  // Live progress through the queue, then the refreshed report.
  await expect(page.getByTestId("analysis-state")).toHaveText(/Analysis succeeded/, { timeout: 90_000 });
  const total = page.getByTestId("readiness-total");
  await expect(total).toBeVisible({ timeout: 15_000 });
  const before = Number(await total.textContent());
  expect(before).toBeGreaterThan(0);
  const improvements = page.getByRole("list", { name: "Improvements" });
  await expect(improvements).toContainText("D2");
  await expect(page.getByRole("heading", { name: "What the probe saw" })).toBeVisible();
  await expect(page.getByText(/challenge x402-v2/).first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your badge" })).toBeVisible();
  await expect(page.getByText(`/badges/`).first()).toBeVisible();
  await page.screenshot({ path: shot("seller-report"), fullPage: true });

  // Apply the fix and re-analyse.
  await page.getByRole("link", { name: "Edit listing" }).click();
  await expect(page.getByRole("heading", { name: `Edit ${unique}` })).toBeVisible();
  await page.getByLabel(/^Setup, auth and payment walkthrough/).fill(walkthroughText);
  await page.getByRole("button", { name: "Save and re-analyse" }).click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+\?analysis=/, { timeout: 30_000 });
  await expect(page.getByTestId("analysis-state")).toHaveText(/Analysis succeeded/, { timeout: 90_000 });
  await expect.poll(async () => Number(await page.getByTestId("readiness-total").textContent()), { timeout: 15_000 }).toBeGreaterThan(before);
  await expect(page.getByRole("list", { name: "Improvements" })).not.toContainText("D2");
  await expect(page.getByRole("list", { name: "Past results" }).getByRole("listitem")).toHaveCount(2);

  // The Re-analyse button runs again from the report itself.
  await page.getByRole("button", { name: "Re-analyse" }).click();
  await expect(page.getByTestId("analysis-state")).toHaveText(/Analysis succeeded/, { timeout: 90_000 });
  await expect(page.getByRole("list", { name: "Past results" }).getByRole("listitem")).toHaveCount(3, { timeout: 15_000 });
});
