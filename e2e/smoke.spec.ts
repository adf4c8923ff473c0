import { expect, test } from "@playwright/test";
import { signInAs, signOut } from "./helpers";

test("a buyer browses the catalog and opens a listing", async ({ page }) => {
  await page.goto("/catalog");
  await expect(page.getByRole("heading", { name: "Pay-per-call APIs" })).toBeVisible();
  const tiles = page.getByRole("list", { name: "Listings" }).getByRole("listitem");
  await expect(tiles.first()).toBeVisible();
  expect(await tiles.count()).toBeGreaterThanOrEqual(6);
  await page.getByRole("link", { name: "Geocodr address geocoding" }).click();
  // The tile's own heading has the same name: wait for the listing page itself, not the catalog.
  await page.waitForURL(/\/listings\/[^/]+$/);
  await expect(page.getByRole("heading", { level: 1, name: "Geocodr address geocoding" })).toBeVisible();
  await expect(page.getByLabel(/Readiness 96 of 100, Excellent/)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Endpoints" })).toBeVisible();
});

test("a moderator opens the moderators' desk; a seller is refused it", async ({ page }) => {
  await signInAs(page, "moderator@demo", "/admin");
  await expect(page.getByRole("heading", { name: "Moderation" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Analysis queue" })).toBeVisible();

  await signOut(page);
  await signInAs(page, "seller@demo", "/dashboard");
  await expect(page.getByRole("heading", { name: "My listings" })).toBeVisible();
  const res = await page.goto("/admin");
  expect(res?.status()).toBe(403);
  await expect(page.getByText("Moderation is for moderators and admins.")).toBeVisible();
});
