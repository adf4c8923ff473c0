/**
 * The smaller defects a new user met: the catalog's price range and count wording, robots, sitemap
 * and favicon, the moderators' desk without an API keys button they cannot use, the new key's curl
 * on the absolute origin, the editor's estimate saying why it sits below the published score, and a
 * second listing of the same title flagged at intake, and a malformed path refused with 400. Changed
 * pages are shot at phone width.
 */
import { expect, test } from "@playwright/test";
import { SELLERS_ORIGIN, signInAs, signOut } from "./helpers";
import { shot } from "./shots";

const PHONE = { width: 390, height: 844 };

test("the catalog says when From is above To, and counts one listing as one", async ({ page }) => {
  await page.goto("/catalog?minPrice=0.5&maxPrice=0.05");
  await expect(page.locator("main").getByRole("alert")).toContainText('The “From” price filter was not applied: it is above the "To" price');
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: shot("catalog-price-range-390") });
  await page.goto("/catalog?category=payments");
  await expect(page.getByTestId("result-count")).toHaveText(/^1 listing matches these filters, in recommended order\.$/);
  await page.goto("/catalog?sort=price-asc");
  await expect(page.getByText("A search goes by relevance only.")).toHaveCount(0);
});

test("a search or a filter holding a NUL is named on the catalog page, not a 500", async ({ page }) => {
  const search = await page.goto("/catalog?search=geo%00code");
  expect(search?.status()).toBe(200);
  await expect(page.locator("main").getByRole("alert")).toHaveText("The search was not run: it contains a NUL character (U+0000) at index 3, which cannot be stored. Correct it and press Apply.");
  await expect(page.getByLabel("Search", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: shot("catalog-search-nul-390") });
  const category = await page.goto("/catalog?category=%00");
  expect(category?.status()).toBe(200);
  await expect(page.locator("main").getByRole("alert")).toContainText("The category filter was not applied: it contains a NUL character (U+0000) at index 0");
  expect((await page.request.get("/listings/a%00b")).status()).toBe(404);
});

test("a path that is not valid percent-encoded UTF-8 is a 400 naming the segment, on pages, APIs and the relay, with or without a body", async ({ request }) => {
  for (const path of ["/listings/%FF", "/listings/geocodr/trust/%E0%A4%A", "/api/endpoints/%C0%80/evidence", "/router/call/%FF/v1/x"]) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(400);
    expect((await res.json()).error, path).toMatchObject({ code: "bad_request", reason: "malformed_path" });
  }
  const posted = await request.post("/router/call/geocodr/v1/%FF", { data: { q: "x" } });
  expect(posted.status()).toBe(400);
  expect((await posted.json()).error.message).toBe('the request path is not a valid URL path: path segment 5 ("%FF") has %-escapes that are not UTF-8');
  // A well-formed escape reaches the route as before: the listing page's 404 for an unknown slug.
  expect((await request.get("/listings/caf%C3%A9")).status()).toBe(404);
});

test("a browser sent to a malformed address reads a page saying so", async ({ page }) => {
  const res = await page.goto("/listings/%FF");
  expect(res?.status()).toBe(400);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This address is not a valid URL");
  await expect(page.getByText('The request path is not a valid URL path: path segment 2 ("%FF") has %-escapes that are not UTF-8.')).toBeVisible();
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: shot("malformed-path-390") });
  await page.getByRole("link", { name: "Go to the catalog" }).click();
  await expect(page).toHaveURL(/\/catalog$/);
});

test("robots.txt, the sitemap and favicon.ico answer", async ({ request }) => {
  const robots = await request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toMatch(/Disallow: \/dashboard[\s\S]*Sitemap: http.*\/sitemap\.xml/);
  const sitemap = await request.get("/sitemap.xml");
  expect(sitemap.status()).toBe(200);
  expect(await sitemap.text()).toContain("/listings/");
  const icon = await request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
});

test("a moderator is not offered API keys; an admin's new key shows a curl on the absolute origin with a listed task", async ({ page, baseURL }) => {
  await signInAs(page, "moderator@demo", "/admin");
  await expect(page.getByRole("navigation", { name: "Moderation desks" }).getByRole("link", { name: "Canary runs" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Moderation desks" }).getByRole("link", { name: "API keys" })).toHaveCount(0);
  await signOut(page);
  await signInAs(page, "admin@demo", "/admin/api-keys");
  await page.getByLabel("New key's name").fill(`e2e curl ${Date.now().toString(36)}`);
  await page.getByRole("button", { name: "Create key" }).click();
  const curl = page.getByTestId("select-curl");
  await expect(curl).toContainText(`${baseURL}/router/select`);
  await expect(curl).not.toContainText('"task":"weather"');
  await page.setViewportSize(PHONE);
  await curl.screenshot({ path: shot("api-key-curl-390") });
});

test("the editor's estimate says why it starts below the published score", async ({ page }) => {
  await signInAs(page, "seller@demo");
  await page.getByRole("link", { name: /Geocodr address geocoding/ }).first().click();
  await page.getByRole("link", { name: "Edit listing" }).click();
  await expect(page.getByTestId("estimate-below-published")).toContainText(/^Below your published \d+ because this estimate has no live probe/);
  await page.setViewportSize(PHONE);
  await page.getByTestId("estimate-below-published").screenshot({ path: shot("editor-estimate-390") });
});

test("a draft with the title of the seller's own listing of another service is flagged at intake", async ({ page }) => {
  test.setTimeout(120_000);
  const draft = async (url: string) => {
    await page.goto("/dashboard/new");
    await page.getByLabel("Your service's URL").fill(url);
    await page.getByRole("button", { name: "Draft the listing" }).click();
    await expect(page.getByRole("heading", { name: "Review the draft" })).toBeVisible({ timeout: 30_000 });
  };
  await signInAs(page, "seller2@demo", "/dashboard/new");
  // The title the validity-check fixture's import gives.
  await draft(`${SELLERS_ORIGIN}/validity-check`);
  const title = await page.getByLabel(/^Title/).inputValue();
  // Another service of the seller's, saved under that title.
  await draft(`${SELLERS_ORIGIN}/v1-only`);
  await page.getByLabel(/^Title/).fill(title);
  await page.getByRole("button", { name: "Save as draft" }).click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+$/, { timeout: 30_000 });
  // Drafting the validity check again: flagged for its title (a different base URL, so not a duplicate).
  await draft(`${SELLERS_ORIGIN}/validity-check`);
  const clash = page.getByTestId("title-clash");
  await expect(clash).toContainText(`Another listing already has the title “${title}”`);
  await expect(clash.getByRole("link", { name: /^Your listing / }).first()).toBeVisible();
  await page.setViewportSize(PHONE);
  await clash.screenshot({ path: shot("title-clash-390") });
});
