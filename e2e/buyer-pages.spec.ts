/**
 * Issue 19, the buyer's side: badge errors are SVG badges; every public page fits a 390 px phone
 * without sideways scrolling; the listing page's price, health, activity and how-to-call; the
 * catalog's sort control and result count; the badge builder on the seller's report. Ranks are live,
 * so nothing here asserts a rank order.
 */
import { expect, test, type Page } from "@playwright/test";
import { signInAs, tileTitles } from "./helpers";
import { shot } from "./shots";

const PHONE = { width: 390, height: 844 };

async function listingHrefs(page: Page): Promise<string[]> {
  await page.goto("/catalog");
  const hrefs = await page.getByRole("list", { name: "Listings" }).locator("h3 a").evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
  expect(hrefs.length).toBeGreaterThan(0);
  return hrefs;
}

async function expectNoSidewaysScroll(page: Page, path: string) {
  const res = await page.goto(path);
  expect(res?.status(), path).toBeLessThan(500);
  // Charts size themselves after load; measure once the page has settled.
  await page.waitForLoadState("networkidle");
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, `${path} is ${scroll} px wide in a ${client} px window`).toBeLessThanOrEqual(client);
}

test("a badge URL that fails answers an SVG badge with the error's status, not JSON", async ({ page }) => {
  const [href] = await listingHrefs(page);
  const slug = href.split("/").pop()!;
  const cases: [string, number, string][] = [
    ["/badges/no-such-listing-e2e.svg", 404, "listing not found"],
    [`/badges/${slug}.svg?style=round`, 400, "invalid style"],
    [`/badges/${slug}.svg?stlye=flat`, 400, "unknown parameter"],
    [`/badges/${slug}.svg?label=readiness%2099`, 400, "invalid label"],
    [`/badges/${slug}.svg?logo=github`, 400, "invalid logo"],
  ];
  for (const [url, status, words] of cases) {
    const res = await page.request.get(url);
    expect(res.status(), url).toBe(status);
    expect(res.headers()["content-type"], url).toContain("image/svg+xml");
    const body = await res.text();
    expect(body.startsWith("<svg"), url).toBe(true);
    expect(body, url).toContain(`readiness: ${words}`);
    expect(() => JSON.parse(body), url).toThrow();
  }
  // And a browser draws it as an image.
  await page.setContent(`<img alt="err" src="${new URL("/badges/no-such-listing-e2e.svg", page.url()).href}">`);
  await expect.poll(() => page.getByRole("img", { name: "err" }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  // A valid logo is drawn and signed.
  const ok = await page.request.get(`/badges/${slug}.svg?logo=tollgate&label=api`);
  if (ok.status() === 200) expect(await ok.text()).toContain("<path ");
});

test("every public page fits a 390 px phone without horizontal scrolling", async ({ browser }) => {
  test.setTimeout(180_000);
  const ctx = await browser.newContext({ viewport: PHONE });
  const page = await ctx.newPage();
  const hrefs = await listingHrefs(page);
  const paths = ["/", "/catalog", "/catalog?search=geocoding", "/catalog?sort=price-asc", "/catalog?maxPrice=abc", "/signin", "/listings/no-such-listing-e2e", ...hrefs];
  for (const path of paths) await expectNoSidewaysScroll(page, path);
  await page.goto(hrefs[0]!);
  await page.screenshot({ path: shot("listing-390"), fullPage: true });
  await page.goto("/catalog");
  await page.screenshot({ path: shot("catalog-390"), fullPage: true });
  await ctx.close();
});

test("the listing page shows one price display, health, activity and how to call each endpoint", async ({ page }) => {
  const hrefs = await listingHrefs(page);
  await page.goto(hrefs[0]!);
  const prices = page.getByTestId("price");
  expect(await prices.count()).toBeGreaterThan(0);
  await expect(prices.first()).toContainText(/fixed|dynamic|mode not declared|free/);
  await expect(page.getByText(/atomic units/)).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Health" })).toBeVisible();
  await expect(page.getByText(/Last probed|Not probed yet/)).toBeVisible();
  await expect(page.getByTestId("activity")).toBeVisible();
  const calls = page.getByTestId("how-to-call");
  if ((await calls.count()) > 0) {
    await expect(calls.first()).toContainText("curl -i -X");
    await expect(calls.first()).toContainText("/router/call/");
    await expect(calls.first().getByRole("button", { name: /^Copy curl/ })).toBeVisible();
  }
  // The favicon is served.
  const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(icon).toBeTruthy();
  expect((await page.request.get(icon!)).status()).toBe(200);
});

test("the catalog has a sort control and says how many listings there are; tiles show whole titles", async ({ page }) => {
  await page.goto("/catalog");
  const count = page.getByTestId("result-count");
  await expect(count).toContainText(/\d+ listings?/);
  const total = Number((await count.textContent())!.match(/(\d+) listing/)![1]);
  const titles = await tileTitles(page);
  expect(titles.length).toBe(Math.min(total, 24));
  // No title is cut with an ellipsis or clamped to fewer lines than it needs.
  for (const h of await page.getByRole("list", { name: "Listings" }).locator("h3").all()) {
    expect(await h.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && getComputedStyle(el).webkitLineClamp === "none")).toBe(true);
  }
  await page.getByLabel("Sort").selectOption("price-asc");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/sort=price-asc/);
  await expect(count).toContainText("sorted by price: lowest first");
  expect((await tileTitles(page)).sort()).toEqual([...titles].sort());
  await page.goto("/catalog?sort=cheapest");
  await expect(page.getByText("The sort filter was not applied")).toBeVisible();
});

test("the seller's report has the buyers' price display and a badge builder: live preview and copy buttons for Markdown, HTML and URL", async ({ page }) => {
  await signInAs(page, "seller@demo", "/dashboard");
  const reports = [...new Set(await page.locator('a[href^="/dashboard/listings/"]').evaluateAll((as) => as.map((a) => a.getAttribute("href")!).filter((h) => /^\/dashboard\/listings\/[^/]+$/.test(h))))];
  let found = false;
  for (const href of reports) {
    await page.goto(href);
    if ((await page.getByTestId("badge-builder").count()) === 0) continue;
    found = true;
    // The same price display as the public page, on the seller's report.
    await expect(page.getByTestId("buyer-prices")).toBeVisible();
    await expect(page.getByTestId("buyer-prices").getByTestId("price").first()).toContainText(/fixed|dynamic|mode not declared|free/);
    await expect(page.getByText(/atomic units/)).toHaveCount(0);
    const builder = page.getByTestId("badge-builder");
    await builder.getByLabel("Style").selectOption("for-the-badge");
    await builder.getByLabel("Logo").selectOption("bolt");
    await builder.getByLabel("Label").fill("api");
    const url = builder.locator("pre").nth(2);
    await expect(url).toContainText("style=for-the-badge");
    await expect(url).toContainText("label=api");
    await expect(url).toContainText("logo=bolt");
    for (const name of ["Copy Markdown", "Copy HTML", "Copy URL"]) await expect(builder.getByRole("button", { name })).toBeVisible();
    const preview = builder.getByTestId("badge-preview");
    if ((await preview.count()) > 0) {
      await expect(preview).toHaveAttribute("src", /logo=bolt/);
      await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    }
    break;
  }
  expect(found, "a published, analysed listing of seller@demo with its badge builder").toBe(true);
});
