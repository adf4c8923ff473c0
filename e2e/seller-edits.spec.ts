import { expect, test } from "@playwright/test";
import { signInAs } from "./helpers";
import { shot } from "./shots";

// Issue 19, item 1: a seller's edits are never lost. Every field shows its schema limit as the
// seller types; a save over a limit is refused in the page, before anything is sent, and the
// edits stay on screen with the error beside the field.
test("an oversized description keeps every edit on screen and names the limit", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAs(page, "seller@demo", "/dashboard");
  await page.getByRole("list", { name: "My listings" }).getByRole("link").first().click();
  await page.getByRole("link", { name: "Edit listing" }).click();
  await expect(page.getByRole("heading", { name: /^Edit / })).toBeVisible();

  // The limit is shown as the seller types.
  const description = page.getByLabel(/^Detailed description/);
  await description.fill("A forecast service for agents.");
  const counter = page.locator("#f-description-count");
  await expect(counter).toHaveText("30 / 20,000");

  // Other edits the seller made, which must survive the refusal.
  const shortDescription = page.getByLabel(/^Short description/);
  const shortText = `Edited short description ${Date.now().toString(36)}`;
  await shortDescription.fill(shortText);

  // Over a megabyte of description: over the field's limit and over the save's body limit.
  const huge = "Forecasts by coordinates. ".repeat(45_000);
  await description.fill(huge);
  await expect(counter).toContainText("/ 20,000");
  await expect(counter).toContainText("over the limit");
  await expect(page.getByTestId("document-size")).toContainText("MB");

  const url = page.url();
  await page.getByRole("button", { name: /Save without analysing|Save as draft/ }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Not saved" });
  await expect(alert).toContainText("Not saved");
  await expect(alert).toContainText("nothing was sent");
  // The error sits beside its field and in the summary, naming the limit.
  await expect(page.locator("#f-description-err")).toContainText("the limit is 20,000");
  await expect(description).toHaveAttribute("aria-invalid", "true");

  // Nothing was lost, and the page did not crash or navigate.
  expect(page.url()).toBe(url);
  await expect(shortDescription).toHaveValue(shortText);
  expect((await description.inputValue()).length).toBe(huge.length);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot("editor-over-limit") });

  // Shortening the field clears the error and the save goes through.
  await description.fill("A forecast service for agents: hourly and daily forecasts by coordinates, in JSON, paid per call.");
  await expect(page.locator("#f-description-err")).toHaveCount(0);
  await page.getByRole("button", { name: /Save without analysing|Save as draft/ }).click();
  await page.waitForURL(/\/dashboard\/listings\/[^/]+$/, { timeout: 30_000 });
  await page.getByRole("link", { name: "Edit listing" }).click();
  await expect(page.getByLabel(/^Short description/)).toHaveValue(shortText);
});
