import { expect, test } from "@playwright/test";
import { signInAs, signOut } from "./helpers";
import { shot } from "./shots";

// Issue 19, item 8: the API keys page creates a key that /router/select accepts, and revokes it so
// /router/select refuses it; each key carries the scopes chosen for it, and a key without
// router:select is refused with 403 insufficient_scope.
test("the API keys page creates and revokes a key that /router/select then accepts and refuses", async ({ page, playwright, baseURL }) => {
  await signInAs(page, "admin@demo", "/admin");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();

  const name = `e2e agent ${Date.now().toString(36)}`;
  await page.getByLabel("New key's name").fill(name);
  // A new key starts with router:select only; at least one scope is needed.
  await expect(page.getByRole("checkbox", { name: /router:select/ })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: /router:call/ })).not.toBeChecked();
  await page.getByRole("checkbox", { name: /router:select/ }).uncheck();
  await expect(page.getByRole("button", { name: "Create key" })).toBeDisabled();
  await page.getByRole("checkbox", { name: /router:select/ }).check();
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("api-key-secret").textContent())!.trim();
  expect(secret).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
  await expect(page.getByTestId("toast").first()).toContainText(`Key "${name}" created`);
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("active");
  await expect(row).toContainText("router:select");
  await expect(row).not.toContainText("router:call");
  await expect(row).toContainText("never");
  await page.screenshot({ path: shot("api-keys"), fullPage: true });

  // An agent, without the admin's session, calls /router/select with the key.
  const agent = await playwright.request.newContext({ baseURL });
  const select = (key: string) => agent.post("/router/select", { headers: { authorization: `Bearer ${key}` }, data: { task: "weather forecast" } });
  expect((await select(secret)).status()).toBe(200);

  // A second key, for calling through the router only: /router/select refuses it, naming the scope.
  const caller = `e2e caller ${Date.now().toString(36)}`;
  await page.getByLabel("New key's name").fill(caller);
  await page.getByRole("checkbox", { name: /router:select/ }).uncheck();
  await page.getByRole("checkbox", { name: /router:call/ }).check();
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("toast").first()).toContainText(`Key "${caller}" created`);
  const callerSecret = (await page.getByTestId("api-key-secret").textContent())!.trim();
  await expect(page.getByRole("row").filter({ hasText: caller })).toContainText("router:call");
  const scoped = await select(callerSecret);
  expect(scoped.status()).toBe(403);
  expect((await scoped.json()).error).toMatchObject({ code: "insufficient_scope", requiredScope: "router:select" });
  expect(scoped.headers()["www-authenticate"]).toContain('error="insufficient_scope"');

  await page.reload();
  await expect(page.getByRole("row").filter({ hasText: name })).not.toContainText("never");

  // Revoke, with a confirmation naming the key.
  await page.getByRole("row").filter({ hasText: name }).getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("row").filter({ hasText: name }).getByRole("button", { name: "Yes, revoke" }).click();
  await expect(page.getByTestId("toast").first()).toContainText(`Key "${name}" revoked`);
  await expect(page.getByRole("row").filter({ hasText: name })).toHaveCount(0); // the Active filter hides it
  await page.getByLabel("Show").selectOption("revoked");
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("revoked");
  const refused = await select(secret);
  expect(refused.status()).toBe(401);
  expect(refused.headers()["www-authenticate"]).toContain("Bearer");
  await agent.dispose();

  // A moderator has no API keys page and no "My listings".
  await signOut(page);
  await signInAs(page, "moderator@demo", "/admin");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My listings" })).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" })).toHaveCount(0);
  // The desk's skeleton streams for the moderators' pages only (app/admin/(desk)/loading.tsx), so this refusal is a real 403.
  const refusedPage = await page.goto("/admin/api-keys");
  expect(refusedPage!.status()).toBe(403);
  await expect(page.getByText("403 · Not allowed")).toBeVisible();
  await expect(page.getByText("API keys are for admins only.")).toBeVisible();
  await expect(page.getByRole("button", { name: /create/i })).toHaveCount(0);
});
