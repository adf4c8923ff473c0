import { expect, test, type Browser } from "@playwright/test";
import { signInAs } from "./helpers";

const TARGET = "Scribe speech-to-text";

async function pageAs(browser: Browser, login: string, callbackUrl = "/dashboard") {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInAs(page, login, callbackUrl);
  return page;
}

test("a seller posting a moderator's server action directly gets 403 and nothing changes", async ({ browser, baseURL }) => {
  const mod = await pageAs(browser, "moderator@demo", "/admin");
  const href = (await mod.getByRole("link", { name: TARGET }).first().getAttribute("href"))!;
  const listingId = href.split("/").pop()!;
  await mod.goto(href);
  const leversBefore = (await mod.getByText(/^featured \d · /).textContent())!;

  // The Featured form as the server rendered it (React's progressive-enhancement fields name the action).
  const html = await (await mod.request.get(href)).text();
  const form = html.match(/<form[^>]*>([\s\S]*?)<\/form>/)![1]!;
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)"(?: value="([^"]*)")?\/>/g)) {
    fields[m[1]!] = (m[2] ?? "").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  }
  expect(Object.keys(fields).some((k) => k.startsWith("$ACTION"))).toBe(true);
  const auditBefore = await (await mod.request.get(`/admin/audit?listing=${listingId}`)).text();
  const reason = `authz e2e ${Date.now().toString(36)}`;

  // The same action, posted by a seller.
  const seller = await pageAs(browser, "seller@demo");
  const res = await seller.request.post(`${baseURL}${href}`, { multipart: { ...fields, level: "0", reason }, maxRedirects: 0 });
  expect(res.status()).toBe(403);
  const body = await res.text();
  expect(body).not.toContain("Saved:");
  expect(body).not.toContain("qualityScore");

  // The seller is refused every moderator page, too.
  for (const path of ["/admin", "/admin/audit", href]) expect((await seller.request.get(path)).status(), path).toBe(403);

  // Another seller's listing is not theirs to re-analyse either (owner-only route).
  expect((await seller.request.post(`/api/listings/${listingId}/reanalyse`)).status()).toBe(404);

  // Nothing changed: same levers, no audit row.
  await mod.reload();
  expect(await mod.getByText(/^featured \d · /).textContent()).toBe(leversBefore);
  const auditAfter = await (await mod.request.get(`/admin/audit?listing=${listingId}`)).text();
  expect(auditAfter).not.toContain(reason);
  expect((auditAfter.match(/featured\.set|verification\.set|curation\.set/g) ?? []).length).toBe((auditBefore.match(/featured\.set|verification\.set|curation\.set/g) ?? []).length);

  // The same post by a moderator does change it (the probe above could have failed for another reason).
  const ok = await mod.request.post(href, { multipart: { ...fields, level: "4", reason }, maxRedirects: 0 });
  expect(ok.status()).toBe(200);
  await mod.reload();
  await expect(mod.getByText(/^featured 4 · /)).toBeVisible();
  expect(await (await mod.request.get(`/admin/audit?listing=${listingId}`)).text()).toContain(reason);
});
