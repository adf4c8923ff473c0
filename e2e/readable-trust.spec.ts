/**
 * What a buyer and a seller meet, in words: the readable trust block (checked how often, what a grade
 * needs, a provisional grade with its band), the seed products' tiles with real titles and sellers
 * and the trust and canary line, the seller's canary notice, and the badge builder's refused label.
 * Each page is also shot at phone width (390 px).
 */
import { expect, test, type Page } from "@playwright/test";
import { signInAs } from "./helpers";
import { shot } from "./shots";

const PHONE = { width: 390, height: 844 };
const RULE_IDS = /\b[RCHS]\d\b|insufficient_evidence|probe\(s\)/;

async function phoneShot(page: Page, name: string) {
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: shot(`${name}-390`), fullPage: true });
}

test("the seed products' tiles show real titles, sellers, categories and the trust and canary line", async ({ page }) => {
  await page.goto("/catalog");
  const tiles = page.getByRole("list", { name: "Listings" }).getByRole("listitem");
  for (const [title, seller, category] of [
    ["Agent Verdict: did the work meet your criteria?", "Arbiter", "agent-verification"],
    ["Validity Check: is this x402 payment safe to sign?", "Validity Check", "payments"],
  ]) {
    const tile = tiles.filter({ has: page.getByRole("heading", { name: title }) });
    await expect(tile).toHaveCount(1);
    await expect(tile).toContainText(`${category} · ${seller}`);
    await expect(tile.getByTestId("tile-trust")).toContainText("Trust");
    await expect(tile.getByTestId("tile-verification")).toHaveAttribute("data-verification", /verified|degraded|unverified/);
  }
  await expect(page.locator("main")).not.toContainText(/seed 00\d/i);
  await phoneShot(page, "catalog-tiles");
  await tiles.filter({ has: page.getByRole("heading", { name: /^Agent Verdict/ }) }).screenshot({ path: shot("catalog-tile-agent-verdict-390") });
});

test("the listing page's trust block says in words what was checked and what a grade needs, without rule ids", async ({ page }) => {
  await page.goto("/catalog");
  await page.getByRole("link", { name: "Validity Check: is this x402 payment safe to sign?" }).click();
  const block = page.getByTestId("endpoint-grades");
  await expect(block.getByRole("heading", { name: "Trust grade" })).toBeVisible();
  const rows = block.getByTestId("endpoint-grade");
  expect(await rows.count()).toBeGreaterThan(0);
  for (const row of await rows.all()) {
    await expect(row.getByTestId("trust-band")).toHaveText(/^(Not checked yet|No grade yet|Provisional grade [A-F]( \(\d+(–\d+)?\))?|Grade [A-F].*)$/);
  }
  await expect(block).toContainText(/checked (once|twice|\d+ times) since|A grade needs a few days of checks|Looks reliable|Use with caution/i);
  await expect(block).not.toContainText(RULE_IDS);
  await phoneShot(page, "listing-trust");
  await block.screenshot({ path: shot("listing-trust-block-390") });

  // The endpoint's details page keeps the rules, and its chart agrees with its headline.
  await page.setViewportSize({ width: 1280, height: 900 });
  await rows.first().getByRole("link", { name: "details" }).click();
  await page.waitForURL(/\/trust\//);
  await expect(page.getByTestId("endpoint-trust")).toBeVisible();
  const headline = (await page.getByTestId("trust-band").textContent()) ?? "";
  if (/^Not checked yet/.test(headline)) await expect(page.getByTestId("trust-chart-empty")).toBeVisible();
  await phoneShot(page, "endpoint-trust");
  await page.getByTestId("endpoint-trust").locator("section").first().screenshot({ path: shot("endpoint-trust-top-390") });
});

test("the seller's report shows the canary's verification first, and the badge builder refuses a band-name label with a message", async ({ page }) => {
  await signInAs(page, "seller@demo");
  await page.getByRole("link", { name: /Geocodr address geocoding/ }).first().click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+$/);
  const notice = page.getByTestId("canary-notice");
  await expect(notice).toBeVisible();
  await expect(notice.getByTestId("canary-status")).toHaveText(/^(Verified|Failing|Not verified)/);
  // The demo's seeded evidence was taken at another address: the report says so.
  await expect(page.getByTestId("evidence-elsewhere")).toContainText("not at the listing's base URL");
  await phoneShot(page, "seller-canary");
  await page.getByTestId("evidence-elsewhere").screenshot({ path: shot("evidence-elsewhere-390") });
  await notice.screenshot({ path: shot("seller-canary-notice-390") });

  await page.setViewportSize({ width: 1280, height: 900 });
  const builder = page.getByTestId("badge-builder");
  await builder.getByLabel("Label").fill("Ready now");
  await expect(builder.getByTestId("badge-label-error")).toContainText('band name "Ready"');
  await expect(builder.getByRole("button", { name: "Copy Markdown" })).toBeDisabled();
  await builder.screenshot({ path: shot("badge-builder-error") });
  await builder.getByLabel("Label").fill("api status");
  await expect(builder.getByTestId("badge-label-error")).toHaveCount(0);
  await expect(builder.getByRole("button", { name: "Copy Markdown" })).toBeEnabled();
});

test("a listing whose paid test call failed shows it to its seller as the first thing to fix", async ({ page }) => {
  test.setTimeout(180_000);
  await signInAs(page, "seller@demo");
  await page.getByRole("link", { name: /Serpwire search results API/ }).first().click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+$/);
  const report = page.url();
  // The canary runs within a minute of the server's start; the unpayable seller's run fails.
  await expect
    .poll(
      async () => {
        await page.goto(report);
        return page.getByTestId("canary-notice").getAttribute("data-verification");
      },
      { timeout: 150_000, intervals: [5_000, 10_000] },
    )
    .toBe("degraded");
  const notice = page.getByTestId("canary-notice");
  await expect(notice.getByRole("heading")).toHaveText("Fix first: a paid test call failed");
  await expect(notice).toContainText(/POST|GET/);
  // It comes before the readiness score.
  const [noticeY, scoreY] = await Promise.all([notice.boundingBox(), page.getByRole("heading", { name: "Readiness" }).boundingBox()]);
  expect(noticeY!.y).toBeLessThan(scoreY!.y);
  await page.setViewportSize(PHONE);
  await notice.screenshot({ path: shot("seller-canary-failing-390") });
});
