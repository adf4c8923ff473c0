/**
 * The "How to call" examples work when copied: for an x402 listing and an MPP listing of the demo,
 * every code block on the listing page is copied as the page shows it, filled in with only what the
 * page asks for (BUYER_PRIVATE_KEY: a wallet funded at the demo faucet; TOLLGATE_API_KEY: a key with
 * router:call), and run: the curl gets the seller's 402, the client example a paid 200. The README's
 * example runs the same way (its demo origin swapped for this run's).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signInAs, signOut } from "./helpers";
import { shot } from "./shots";

const run = promisify(execFile);
// Inside the repository, so the examples' imports resolve from its node_modules (as beside `npm install`).
const dir = path.resolve("e2e/.output/examples");
const tsx = path.resolve("node_modules/.bin/tsx");

/** An admin makes a key with router:call only, as README "API keys" says. */
async function routerCallKey(page: Page): Promise<string> {
  await signInAs(page, "admin@demo", "/admin/api-keys");
  await page.getByLabel("New key's name").fill(`copied examples ${Date.now().toString(36)}`);
  await page.getByRole("checkbox", { name: /router:call/ }).check();
  await page.getByRole("checkbox", { name: /router:select/ }).uncheck();
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("api-key-secret").textContent())!.trim();
  await signOut(page);
  return secret;
}

/** A brand-new wallet, funded as an independent buyer funds one: the demo faucet. */
async function fundedBuyer(request: APIRequestContext): Promise<`0x${string}`> {
  const key = generatePrivateKey();
  const res = await request.post("/api/faucet", { data: { address: privateKeyToAccount(key).address } });
  expect(res.status(), await res.text()).toBe(200);
  return key;
}

async function runCode(name: string, code: string, env: Record<string, string>): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.mts`);
  fs.writeFileSync(file, code);
  const { stdout } = await run(tsx, [file], { env: { ...process.env, ...env }, timeout: 90_000 }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`${name} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}\n--- the example ---\n${code}`);
  });
  // What the example printed, without terminal colour codes.
  return stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").trim();
}

async function openListing(page: Page, search: string, title: string) {
  await page.goto(`/catalog?search=${encodeURIComponent(search)}`);
  await page.getByRole("list", { name: "Listings" }).getByRole("link", { name: title }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
}

test("every How to call example on an x402 and an MPP listing pays through the router as copied", async ({ page, request }) => {
  test.setTimeout(300_000);
  const apiKey = await routerCallKey(page);
  const buyerKey = await fundedBuyer(request);
  const env = { BUYER_PRIVATE_KEY: buyerKey, TOLLGATE_API_KEY: apiKey };

  const listings = [
    ["Geocodr", "Geocodr address geocoding", "@x402/fetch"],
    ["MPP", "Geo lookup over MPP: city and timezone for a coordinate", "mppx"],
  ] as const;
  for (const [search, title, kind] of listings) {
    await openListing(page, search, title);
    // What the page tells the buyer to fill in, and nothing else.
    const howTo = page.getByTestId("how-to-run");
    await expect(howTo).toContainText("BUYER_PRIVATE_KEY");
    await expect(howTo).toContainText("TOLLGATE_API_KEY");
    await expect(howTo.getByRole("link", { name: "demo faucet" })).toHaveAttribute("href", "/faucet");
    const blocks = page.getByTestId("how-to-call");
    const n = await blocks.count();
    expect(n, `${title} has paid endpoints`).toBeGreaterThan(0);
    for (let i = 0; i < n; i++) {
      const block = blocks.nth(i);
      const endpoint = (await block.locator("p").first().textContent())!.trim();
      await expect(block).toContainText(`Paid, through the router with ${kind}`);
      const [curl, client, ...rest] = await block.locator("pre code").allTextContents();
      expect(rest).toEqual([]);
      // The unpaid request: the seller's own 402.
      const unpaid = await run("bash", ["-c", curl], { timeout: 30_000 });
      expect(unpaid.stdout, `${title} ${endpoint}: curl`).toMatch(/^HTTP\/1\.1 402/);
      // The paid one, as copied.
      const out = await runCode(`${kind === "mppx" ? "mpp" : "x402"}-${i}`, client, env);
      expect(out, `${title} ${endpoint}: paid example`).toMatch(/^200 /);
    }
  }
});

test("README's paid example pays through the router as copied", async ({ page, request, baseURL }) => {
  test.setTimeout(180_000);
  const readme = fs.readFileSync("README.md", "utf8");
  const section = readme.slice(readme.indexOf("## Paying through the router"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1];
  expect(code).toContain("setSpendControls({ allowedAssets:");
  const apiKey = await routerCallKey(page);
  const out = await runCode("readme-x402", code.replaceAll("http://127.0.0.1:3000", baseURL!), { BUYER_PRIVATE_KEY: await fundedBuyer(request), TOLLGATE_API_KEY: apiKey });
  expect(out).toMatch(/^200 /);
});

test("the listing page at phone width (390 px): the examples scroll in their blocks, the batch price reads per call", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openListing(page, "Geocodr", "Geocodr address geocoding");
  await expect(page.getByTestId("how-to-run")).toBeVisible();
  // The batch endpoint's dynamic price: a range per call with the seller's own terms, never "per address" as the range's unit.
  const batch = page.getByRole("listitem").filter({ has: page.getByText("/v1/batch", { exact: true }) }).getByTestId("price");
  await expect(batch).toContainText("$0.002–$2.00 per call");
  await expect(batch.getByTestId("price-terms")).toHaveText("Seller's terms: $0.002 per address, $0.002 to $2.00 per call");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.getByTestId("how-to-call").first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: shot("listing-how-to-call-phone"), fullPage: false });
});
