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
