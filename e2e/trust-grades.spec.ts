import { expect, test, type APIRequestContext } from "@playwright/test";
import { waitForRankedCatalog } from "./helpers";
import { shot } from "./shots";

interface FeedItem {
  slug: string;
  title: string;
  protocols: string[];
  endpoints: Array<{ method: string; path: string }>;
}

/** Every published listing, through the keyless feed's pages. */
async function allListings(request: APIRequestContext): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  let url: string | null = "/ai-catalog.json";
  while (url) {
    const body = (await (await request.get(url)).json()) as { items: FeedItem[]; next: string | null };
    items.push(...body.items);
    url = body.next ? new URL(body.next).pathname + new URL(body.next).search : null;
  }
  return items;
}

// Issue #21's done-when: the demo shows grades, bands and verdicts for every endpoint from real probes
// and canary samples. An endpoint with too little evidence says so (insufficient_evidence); none is left out.
test("every endpoint of every demo listing, MPP-only and broken sellers included, has a trust grade row with a verdict and the value metrics", async ({ page, request }) => {
  test.setTimeout(240_000);
  await waitForRankedCatalog(page);
  const listings = await allListings(request);
  expect(listings.length).toBeGreaterThanOrEqual(6);
  expect(listings.some((l) => l.protocols.includes("mpp") && !l.protocols.includes("x402"))).toBe(true);

  for (const l of listings) {
    await page.goto(`/listings/${encodeURIComponent(l.slug)}`);
    const grades = page.getByTestId("endpoint-grades");
    await expect(grades.getByRole("heading", { name: "Trust grade" })).toBeVisible();
    const rows = grades.getByTestId("endpoint-grade");
    await expect(rows, `${l.title}: one trust row per endpoint`).toHaveCount(l.endpoints.length);
    for (const row of await rows.all()) {
      await expect(row.locator("[data-verdict]")).toHaveCount(1);
      await expect(row.getByTestId("trust-value")).toContainText("Value (not part of the grade)");
    }
    // Plain words on the buyer's page: no rule ids, no engine codes (the details page keeps them).
    await expect(grades).not.toContainText(/\b[RCHS]\d\b|insufficient_evidence|probe\(s\)/);
  }

  // The grades rest on real probes and canary samples: the health sweep (every 5 minutes, from the
  // server's start) and the canary (within a minute) reach the mature, honest seller.
  const geocodr = listings.find((l) => l.title === "Geocodr address geocoding")!;
  await expect
    .poll(
      async () => {
        await page.goto(`/listings/${encodeURIComponent(geocodr.slug)}`);
        await page.getByTestId("endpoint-grade").first().getByRole("link", { name: "details" }).click();
        return (await page.getByTestId("endpoint-trust").textContent()) ?? "";
      },
      { timeout: 180_000, intervals: [5_000, 10_000] },
    )
    .toMatch(/[1-9]\d* probes? over .* last paid sample \d{4}-\d{2}-\d{2}/);
  await expect(page.getByTestId("trust-value")).toBeVisible();
  await page.screenshot({ path: shot("trust-endpoint"), fullPage: true });
});
