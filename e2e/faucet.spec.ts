/**
 * The demo faucet, as an independent buyer uses it: the page funds a fresh wallet with test USDC and
 * gas on the local chain (read back from the chain's RPC on its fixed port), a bad address gets a
 * message naming it, the route answers 400 naming /address, and the page works at phone width.
 */
import { expect, test } from "@playwright/test";
import { createPublicClient, http, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { shot } from "./shots";

const USDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const rpcUrl = `http://127.0.0.1:${process.env.E2E_CHAIN_PORT ?? 8645}`;

test("the faucet page funds a fresh wallet with test USDC and gas, read back from the chain", async ({ page }) => {
  await page.goto("/faucet");
  await expect(page.getByRole("heading", { level: 1, name: "Demo faucet" })).toBeVisible();
  // The chain a buyer's client talks to: on the fixed port the demo was started with.
  await expect(page.getByTestId("faucet-rpc")).toHaveText(rpcUrl);

  await page.getByLabel("Wallet address").fill("0x1234");
  await page.getByRole("button", { name: "Fund this wallet" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "address" })).toContainText("address must be 0x followed by 40 hexadecimal characters");

  const address = privateKeyToAccount(generatePrivateKey()).address;
  await page.getByLabel("Wallet address").fill(address);
  await page.getByRole("button", { name: "Fund this wallet" }).click();
  await expect(page.getByTestId("faucet-result")).toContainText(`Sent 10 test USDC and 0.1 ETH for gas to ${address}`);
  await expect(page.getByTestId("faucet-usdc")).toHaveText("10");

  const chain = createPublicClient({ transport: http(rpcUrl) });
  expect(await chain.getChainId()).toBe(31337);
  expect(await chain.readContract({ address: USDC, abi: parseAbi(["function balanceOf(address) view returns (uint256)"]), functionName: "balanceOf", args: [address] })).toBe(10_000_000n);
  expect(await chain.getBalance({ address })).toBe(100_000_000_000_000_000n);
  await page.screenshot({ path: shot("faucet"), fullPage: true });
});

test("the faucet route: 400 naming /address for a bad one, a checksum error said plainly", async ({ request }) => {
  for (const [body, message] of [
    [{}, /address is required/],
    [{ address: "not-an-address" }, /0x followed by 40 hexadecimal/],
    [{ address: "0x5fbDB2315678afecb367f032d93F642f64180aa3" }, /wrong checksum/],
  ] as const) {
    const res = await request.post("/api/faucet", { data: body });
    expect(res.status()).toBe(400);
    const json = await res.json();
    expect(json.error.message).toMatch(message);
    expect(json.error.details[0].pointer).toBe("/address");
  }
  const notJson = await request.post("/api/faucet", { headers: { "content-type": "application/json" }, data: "{" });
  expect(notJson.status()).toBe(400);
});

test("the faucet page at phone width (390 px): nothing overflows, the form still funds", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/faucet");
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await page.getByLabel("Wallet address").fill(address);
  await page.getByRole("button", { name: "Fund this wallet" }).click();
  await expect(page.getByTestId("faucet-result")).toContainText("Sent 10 test USDC");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: shot("faucet-phone"), fullPage: true });
});
