import { expect, type Page } from "@playwright/test";

/** Sign in through the development sign-in, as a person would. */
export async function signInAs(page: Page, login: string, callbackUrl = "/dashboard") {
  await page.goto(`/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
  await page.getByRole("button", { name: new RegExp(login.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) }).click();
  await page.waitForURL((url) => url.pathname === callbackUrl.split("?")[0]);
}

export async function signOut(page: Page) {
  await page.context().clearCookies();
}

export async function expectNoInternalNumbers(body: string) {
  for (const word of ["qualityScore", "featuredLevel", "rankScore"]) expect(body).not.toContain(word);
}

/** The fixture sellers the e2e server starts (playwright.config.ts: SELLERS_PORT, default 4120). */
export const SELLERS_ORIGIN = `http://127.0.0.1:${process.env.E2E_SELLERS_PORT ?? 4120}`;

/** Titles of the catalog tiles, in the order the page shows them. */
export async function tileTitles(page: Page): Promise<string[]> {
  return page.getByRole("list", { name: "Listings" }).getByRole("listitem").locator("h3").allTextContents();
}

/**
 * Wait until the rank sweep has ranked the demo catalog (it runs every 30 s in the server): the
 * seed's most mature, honest service (rank 92) then browses ahead of the unpayable one (rank 6).
 */
export async function waitForRankedCatalog(page: Page) {
  await expect
    .poll(
      async () => {
        await page.goto("/catalog");
        const t = await tileTitles(page);
        const a = t.indexOf("Geocodr address geocoding");
        const b = t.indexOf("Serpwire search results API");
        return a !== -1 && b !== -1 && a < b && t.indexOf("Tickr spot prices") > a;
      },
      { timeout: 90_000, intervals: [1_000, 2_000, 5_000] },
    )
    .toBe(true);
}
