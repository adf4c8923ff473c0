import { expect, test, type Locator } from "@playwright/test";
import { SELLERS_ORIGIN, signInAs } from "./helpers";

// Issue 19, item 3: a recommended fix's points are the score change when it is applied. In the
// editor the estimate re-scores as the seller types, so the advice can be checked at once: read a
// fix's points, apply the fix in the seller's own words, and the estimate moves by exactly that.
const totalOf = async (estimate: Locator) => Number((await estimate.getByLabel(/^Readiness \d+ of 100/).getAttribute("aria-label"))!.match(/\d+/)![0]);

test("a recommended fix's points equal the score change when it is applied", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAs(page, "seller@demo", "/dashboard/new");
  await page.getByLabel("Your service's URL").fill(`${SELLERS_ORIGIN}/agent-verdict`);
  await page.getByRole("button", { name: "Draft the listing" }).click();
  await expect(page.getByRole("heading", { name: "Review the draft" })).toBeVisible({ timeout: 30_000 });
  const estimate = page.getByRole("complementary", { name: "Provisional estimate" });
  const fixes = estimate.getByRole("list", { name: "Estimated fixes" });

  const cases: Array<{ rule: string; field: RegExp; text: string }> = [
    { rule: "D2", field: /^Setup, auth and payment walkthrough/, text: "POST the request unpaid to receive the 402 quote; sign the exact-scheme authorization for one offer; retry with PAYMENT-SIGNATURE." },
    { rule: "M2", field: /^Short description/, text: "Verdicts on whether an agent's answer holds up, per call" },
  ];
  for (const c of cases) {
    const field = page.getByLabel(c.field);
    await field.fill("");
    const item = fixes.locator(`li[data-rule="${c.rule}"]`);
    await expect(item).toBeVisible();
    const gain = Number(await item.getByTestId("estimate-gain").getAttribute("data-gain"));
    expect(gain, c.rule).toBeGreaterThan(0);
    await expect(item.getByTestId("estimate-gain")).toHaveText(`+${gain} pts`);
    const before = await totalOf(estimate);
    await field.fill(c.text);
    await expect(item).toHaveCount(0);
    await expect.poll(() => totalOf(estimate)).toBe(before + gain);
  }
});
