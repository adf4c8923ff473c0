import { shot } from "./shots";
import { expect, test } from "@playwright/test";
import { expectNoInternalNumbers, tileTitles, waitForRankedCatalog } from "./helpers";

test("a buyer browses, searches, filters, and opens a listing with its readiness tile and badge", async ({ page }) => {
  await waitForRankedCatalog(page);
  await expect(page.getByRole("heading", { name: "Pay-per-call APIs" })).toBeVisible();
  const all = await tileTitles(page);
  expect(all.length).toBeGreaterThanOrEqual(6);
  // Browse is in rank order: the seed's most mature, honest service comes before the unpayable one.
  expect(all.indexOf("Geocodr address geocoding")).toBeLessThan(all.indexOf("Serpwire search results API"));
  await expect(page.getByText(/readiness\/1\.\d+\.\d+ · analysed/).first()).toBeVisible();
  await page.screenshot({ path: shot("catalog"), fullPage: true });

  // Search: relevance only, labelled as keyword matches.
  await page.getByRole("searchbox", { name: "Search" }).fill("geocoding");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/search=geocoding/);
  await expect(page.getByText(/ordered by relevance/)).toBeVisible();
  await expect(page.getByText("keyword match").first()).toBeVisible();
  expect(await tileTitles(page)).toContain("Geocodr address geocoding");

  // Filters are a GET form: protocol MPP leaves only MPP listings.
  await page.goto("/catalog");
  await page.getByRole("radio", { name: "MPP" }).check();
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/protocol=mpp/);
  const mpp = page.getByRole("list", { name: "Listings" }).getByRole("listitem");
  expect(await mpp.count()).toBeGreaterThan(0);
  expect(await mpp.count()).toBeLessThan(all.length);
  for (const tile of await mpp.all()) await expect(tile).toContainText("MPP");

  // A price range and a category narrow further; a malformed price says what to fix.
  await page.goto("/catalog?maxPrice=abc");
  await expect(page.getByText("The “To” price filter was not applied")).toBeVisible();
  await page.goto("/catalog");
  const category = page.getByLabel("Category");
  const firstCategory = (await category.locator("option").nth(1).getAttribute("value"))!;
  await category.selectOption(firstCategory);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`category=${encodeURIComponent(firstCategory)}`));
  expect((await tileTitles(page)).length).toBeGreaterThan(0);

  // The listing page: endpoints, prices, readiness, badge.
  await page.goto("/catalog");
  await page.getByRole("link", { name: "Geocodr address geocoding" }).click();
  await expect(page.getByRole("heading", { name: "Geocodr address geocoding" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Endpoints" })).toBeVisible();
  await expect(page.getByLabel(/Readiness 96 of 100, Excellent/)).toBeVisible();
  await expect(page.getByText(/Rubric readiness\/1\.\d+\.\d+, analysed/)).toBeVisible();
  const slug = new URL(page.url()).pathname.split("/").pop()!;
  const badgeRes = await page.request.get(`/badges/${slug}.svg`);
  // A badge that cannot be served is still an SVG badge; its header names why (docs/BADGES.md "Errors are badges").
  if (badgeRes.status() === 503 && (badgeRes.headers()["x-tollgate-error"] ?? "").includes("signing_key_missing")) {
    // The server has no signing key: the page must say so rather than show a broken image.
    await expect(page.getByTestId("badge-unavailable")).toBeVisible();
    expect(await page.getByRole("img", { name: /Readiness badge/ }).count()).toBe(0);
    test.info().annotations.push({ type: "environment", description: "badge signing key not configured on this server; badge image not served" });
  } else {
    const badge = page.getByRole("img", { name: /Readiness badge/ });
    await expect(badge).toBeVisible();
    await expect.poll(() => badge.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const svg = await page.request.get((await badge.getAttribute("src"))!);
    expect(svg.status()).toBe(200);
    expect(svg.headers()["content-type"]).toContain("image/svg+xml");
    expect(await svg.text()).toContain("96");
  }
  await page.screenshot({ path: shot("listing"), fullPage: true });
  await expectNoInternalNumbers(await page.content());
});

test("the catalog works without JavaScript: the filter form and the listing links are plain HTML", async ({ browser }) => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto("/catalog");
  await page.getByRole("radio", { name: "x402" }).check();
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/protocol=x402/);
  expect((await tileTitles(page)).length).toBeGreaterThan(0);
  await ctx.close();
});
