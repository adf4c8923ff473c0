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
  // The levers a moderator's action sets (featured level, tier, weight). The verification status
  // beside them is the canary's, which may finish a run meanwhile (docs/CANARY.md), so it is left out.
  const levers = async () => (await mod.getByText(/^featured \d · /).textContent())!.replace(/ · (verified|unverified|degraded) · /, " · ");
  const leversBefore = await levers();

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

  // The action's id, as React's progressive-enhancement fields name it in the server-rendered form.
  const actionId = (JSON.parse(Object.entries(fields).find(([k]) => /^\$ACTION_\d+:0$/.test(k))![1]) as { id: string }).id;
  expect(actionId).toMatch(/^[0-9a-f]{20,}$/);

  // The same action called as the browser calls it (Next-Action header, React's reply encoding of
  // the arguments: listingId, previous state, FormData), by a seller.
  const call = (page: typeof mod, level: string) =>
    page.request.post(`${baseURL}${href}`, {
      headers: { "next-action": actionId, accept: "text/x-component", origin: baseURL! },
      multipart: { "0": JSON.stringify([listingId, { status: "idle" }, "$K1"]), "1_level": level, "1_reason": reason },
      maxRedirects: 0,
    });
  const seller = await pageAs(browser, "seller@demo");
  const res = await call(seller, "0");
  expect(res.status()).toBe(403);
  const body = await res.text();
  expect(body).not.toContain("Saved:");
  expect(body).not.toContain("qualityScore");

  // A plain (no-JavaScript) form post of the same action by the seller changes nothing either.
  const mpa = await seller.request.post(`${baseURL}${href}`, { multipart: { ...fields, level: "0", reason }, headers: { origin: baseURL! }, maxRedirects: 0 });
  expect(mpa.status()).toBeGreaterThanOrEqual(400);
  expect(await mpa.text()).not.toContain("Saved:");

  // The seller is refused every moderator page, too.
  for (const path of ["/admin", "/admin/audit", href]) {
    const r = await seller.goto(path);
    expect(r?.status(), path).toBe(403);
    await expect(seller.getByText("Moderation is for moderators and admins.")).toBeVisible();
  }

  // A seller of another organisation cannot open this listing's readiness report (404, not a hint it exists).
  const other = await pageAs(browser, "seller2@demo");
  expect((await other.goto(`/dashboard/listings/${listingId}`))?.status()).toBe(404);

  // Another seller's listing is not theirs to re-analyse either (owner-only route).
  expect((await other.request.post(`/api/listings/${listingId}/reanalyse`)).status()).toBe(404);

  // Nothing changed: same levers, no audit row.
  await mod.reload();
  expect(await levers()).toBe(leversBefore);
  const auditAfter = await (await mod.request.get(`/admin/audit?listing=${listingId}`)).text();
  expect(auditAfter).not.toContain(reason);
  expect((auditAfter.match(/featured\.set|curation\.set|canary\.(?:run|suspend|resume)/g) ?? []).length).toBe((auditBefore.match(/featured\.set|curation\.set|canary\.(?:run|suspend|resume)/g) ?? []).length);

  // Control: the very same raw call by a moderator reaches the action (200 and an action result), so the
  // seller's 403 above came from the action's own role check; and the lever does work for a moderator.
  const ok = await call(mod, "4");
  expect(ok.status()).toBe(200);
  expect(await ok.text()).toMatch(/"status":"(ok|error)"/);
  await mod.goto(href);
  await mod.getByLabel("Level (0–5)").selectOption("4");
  await mod.getByLabel(/^Reason/).first().fill(reason);
  await mod.getByRole("button", { name: "Set featured level" }).click();
  await expect(mod.getByRole("status").filter({ hasText: "Saved:" })).toContainText("→ 4");
  await mod.reload();
  await expect(mod.getByText(/^featured 4 · /)).toBeVisible();
  expect(await (await mod.request.get(`/admin/audit?listing=${listingId}`)).text()).toContain(reason);
});
