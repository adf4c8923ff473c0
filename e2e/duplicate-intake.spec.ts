import { expect, test } from "@playwright/test";
import { SELLERS_ORIGIN, signInAs, signOut } from "./helpers";
import { shot } from "./shots";

// Issue 19, item 2: the same service listed twice. The same owner is offered the listing it
// already has; another owner may list it, and the moderators see the overlap.
test("a duplicate intake warns its owner, and a second owner's copy shows the moderators the overlap", async ({ page }) => {
  test.setTimeout(180_000);
  const url = `${SELLERS_ORIGIN}/validity-check`;
  const title = `Validity check dup ${Date.now().toString(36)}`;

  // The first listing of the service, saved as a draft.
  await signInAs(page, "seller@demo", "/dashboard/new");
  await page.getByLabel("Your service's URL").fill(url);
  await page.getByRole("button", { name: "Draft the listing" }).click();
  await expect(page.getByRole("heading", { name: "Review the draft" })).toBeVisible({ timeout: 30_000 });
  await page.getByLabel(/^Title/).fill(title);
  await page.getByRole("button", { name: "Save as draft" }).click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+$/, { timeout: 30_000 });
  const firstId = new URL(page.url()).pathname.split("/").pop()!;

  // The same owner submits the same base URL again (a trailing slash is the same URL).
  await page.goto("/dashboard/new");
  await page.getByLabel("Your service's URL").fill(`${url}/`);
  await page.getByRole("button", { name: "Draft the listing" }).click();
  const warning = page.getByTestId("duplicate-intake");
  await expect(warning).toContainText("You already list this service", { timeout: 30_000 });
  await expect(warning).toContainText("the same base URL");
  await page.screenshot({ path: shot("duplicate-intake") });
  await warning.getByRole("link", { name: `Open ${title}` }).click();
  await page.waitForURL(`**/dashboard/listings/${firstId}`);

  // Another organisation lists the same service: allowed, and not warned about the first's draft.
  await signOut(page);
  await signInAs(page, "seller2@demo", "/dashboard/new");
  await page.getByLabel("Your service's URL").fill(url);
  await page.getByRole("button", { name: "Draft the listing" }).click();
  await expect(page.getByRole("heading", { name: "Review the draft" })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("duplicate-intake")).toHaveCount(0);
  const secondTitle = `${title} mirror`;
  await page.getByLabel(/^Title/).fill(secondTitle);
  await page.getByRole("button", { name: "Save as draft" }).click();
  await page.waitForURL(/\/dashboard\/listings\/[^/?]+$/, { timeout: 30_000 });

  // The moderators see the overlap in their table and on the listing's page.
  await signOut(page);
  await signInAs(page, "moderator@demo", "/admin");
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: title, exact: true }) });
  // The mirror's row links the first listing in its own overlap note, so pick the note naming the mirror.
  await expect(row.getByTestId("overlap").filter({ hasText: secondTitle })).toHaveCount(1);
  // Either link named after the first listing (its own row's, or the mirror's overlap note) opens it.
  await page.getByRole("table").getByRole("link", { name: title, exact: true }).first().click();
  // The listing may overlap more than one (the demo lists the same fixture seller): the mirror's note.
  const note = page.getByTestId("overlap").filter({ hasText: secondTitle });
  await expect(note).toHaveCount(1);
  await expect(note).toContainText("the same base URL");
});
