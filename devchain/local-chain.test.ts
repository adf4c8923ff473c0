/** The local chain on a real anvil: the node's lifecycle, the test USDC's deployment and its EIP-3009 behaviour. */
import http from "node:http";
import net from "node:net";
import { domainSeparator, getContractAddress, hexToSignature, keccak256, parseEventLogs, toHex, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, rpcAnswers, startAnvil, type AnvilNode } from "./anvil";
import { LOCAL_DEPLOYER, LOCAL_DEV_KEYS, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, MULTICALL3_ADDRESS, setupLocalChain, TRY_AGGREGATE_ABI, type LocalChain } from "./local-chain";
import { EIP3009_TYPES } from "@/lib/x402/eip3009";
import { TEST_USDC_ABI } from "./test-usdc";
import { canonicalUsdc, findAsset } from "@/lib/x402/assets";

let node: AnvilNode;
let local: LocalChain;
let payer: PrivateKeyAccount;
let payee: PrivateKeyAccount;
let outsider: PrivateKeyAccount;

beforeAll(async () => {
  node = await startAnvil();
  local = await setupLocalChain(node.rpcUrl);
  [, payer, payee, outsider] = local.accounts;
  await local.mint(payer.address, 100_000_000n);
});
afterAll(async () => {
  await node?.stop();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const nonceOf = (label: string): Hex => keccak256(toHex(`local-chain.test ${label} ${Math.random()}`));
const now = () => BigInt(Math.floor(Date.now() / 1000));

async function sign(from: PrivateKeyAccount, primaryType: "TransferWithAuthorization" | "ReceiveWithAuthorization", m: { to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }): Promise<Hex> {
  return from.signTypedData({
    domain: { ...LOCAL_USDC_DOMAIN, chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
    types: { [primaryType]: EIP3009_TYPES[primaryType] } as unknown as Pick<typeof EIP3009_TYPES, "TransferWithAuthorization">,
    primaryType: primaryType as "TransferWithAuthorization",
    message: { from: from.address, ...m },
  });
}

describe("anvil from the npm package", () => {
  it("answers JSON-RPC on a loopback port as chain 31337", async () => {
    expect(node.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await local.publicClient.getChainId()).toBe(31337);
  });

  it("uses anvil's well-known development accounts (derived from the public 'test … junk' mnemonic)", async () => {
    const mnemonic = "test test test test test test test test test test test junk";
    const derived = LOCAL_DEV_KEYS.map((_, i) => mnemonicToAccount(mnemonic, { addressIndex: i }).address);
    expect(local.accounts.map((a) => a.address)).toEqual(derived);
    const nodeAccounts = (await local.publicClient.request({ method: "eth_accounts" as never })) as string[];
    expect(nodeAccounts.map((a) => a.toLowerCase())).toEqual(derived.map((a) => a.toLowerCase()));
  });

  it("retries on a new port when the chosen one is taken, and stop() ends the process", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const taken = (blocker.address() as net.AddressInfo).port;
    const picks: number[] = [];
    const second = await startAnvil({
      pickPort: async () => {
        const p = picks.length === 0 ? taken : await freePort();
        picks.push(p);
        return p;
      },
    });
    try {
      expect(picks[0]).toBe(taken);
      expect(picks.length).toBe(2);
      expect(second.port).toBe(picks[1]);
      expect(await rpcAnswers(second.rpcUrl)).toBe(true);
    } finally {
      await second.stop();
      await new Promise<void>((r) => blocker.close(() => r()));
    }
    expect(isAlive(second.pid)).toBe(false);
    expect(await rpcAnswers(second.rpcUrl)).toBe(false);
    await second.stop(); // twice is harmless
  }, 60_000);

  it("a fixed port that is taken is an error naming the port, not a silent success", async () => {
    await expect(startAnvil({ port: node.port })).rejects.toThrow(new RegExp(`port ${node.port}`));
  });

  it("a fixed port held by another JSON-RPC server that answers is refused, however slowly anvil fails", async () => {
    // Whatever answers eth_chainId on the port is not this child: only anvil's own "Listening on" counts.
    const serve = (delayMs: number, status: number, body: string) =>
      http.createServer((req, res) => {
        req.resume();
        req.on("end", () => setTimeout(() => res.writeHead(status, { "content-type": "application/json" }).end(body), delayMs));
      });
    const impostor = serve(0, 200, JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x7a69" }));
    // anvil fails slowly, as under load: its fork source takes 1.5 s to refuse, long after the impostor answered.
    const slowFork = serve(1500, 500, "no");
    const listen = async (s: http.Server) => {
      await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
      return (s.address() as net.AddressInfo).port;
    };
    const port = await listen(impostor);
    const forkPort = await listen(slowFork);
    try {
      expect(await rpcAnswers(`http://127.0.0.1:${port}`)).toBe(true);
      await expect(startAnvil({ port, args: ["--fork-url", `http://127.0.0.1:${forkPort}`, "--retries", "0"] })).rejects.toThrow(new RegExp(`port ${port}`));
    } finally {
      await Promise.all([impostor, slowFork].map((s) => new Promise<void>((r) => s.close(() => r()))));
    }
  });
});

describe("the test USDC on the local chain", () => {
  it("lands at the constant address: account 0's first deployment (nonce 0)", () => {
    expect(getContractAddress({ from: LOCAL_DEPLOYER, nonce: 0n })).toBe(LOCAL_USDC_ADDRESS);
    expect(local.usdc).toBe(LOCAL_USDC_ADDRESS);
  });

  it("looks like USDC where x402 depends on it: name, symbol, 6 decimals, EIP-712 domain ('USD Coin', '2')", async () => {
    const read = <F extends "name" | "symbol" | "decimals" | "version" | "DOMAIN_SEPARATOR" | "owner">(functionName: F) =>
      local.publicClient.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName });
    expect(await read("name")).toBe("USD Coin");
    expect(await read("symbol")).toBe("USDC");
    expect(await read("decimals")).toBe(6);
    expect(await read("version")).toBe("2");
    expect(await read("owner")).toBe(LOCAL_DEPLOYER);
    expect(await read("DOMAIN_SEPARATOR")).toBe(domainSeparator({ domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS } }));
  });

  it("is the local chain's entry in the asset table (marked local), with the domain the token reports", async () => {
    const entry = canonicalUsdc("eip155:31337");
    expect(entry).toMatchObject({ address: LOCAL_USDC_ADDRESS, decimals: 6, local: true, domains: [{ name: "USD Coin", version: "2" }] });
    expect(findAsset("eip155:31337", LOCAL_USDC_ADDRESS.toLowerCase())).toBe(entry);
    const [name, version, decimals] = await Promise.all([
      local.publicClient.readContract({ address: entry!.address as Address, abi: TEST_USDC_ABI, functionName: "name" }),
      local.publicClient.readContract({ address: entry!.address as Address, abi: TEST_USDC_ABI, functionName: "version" }),
      local.publicClient.readContract({ address: entry!.address as Address, abi: TEST_USDC_ABI, functionName: "decimals" }),
    ]);
    expect({ name, version, decimals }).toEqual({ name: entry!.domains[0].name, version: entry!.domains[0].version, decimals: entry!.decimals });
    expect(canonicalUsdc("eip155:8453")?.local).toBeUndefined();
  });

  it("mints to the funded address; only the owner may mint", async () => {
    expect(await local.balanceOf(payer.address)).toBeGreaterThan(0n);
    const before = await local.balanceOf(outsider.address);
    await local.mint(outsider.address, 5_000_000n);
    expect(await local.balanceOf(outsider.address)).toBe(before + 5_000_000n);
    await expect(
      local.publicClient.simulateContract({ account: outsider, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "mint", args: [outsider.address, 1n] }),
    ).rejects.toThrow(/OwnableUnauthorizedAccount/);
  });

  it("setting up the same chain again finds the token and deploys nothing", async () => {
    const nonce = await local.publicClient.getTransactionCount({ address: LOCAL_DEPLOYER });
    const again = await setupLocalChain(node.rpcUrl);
    expect(again.usdc).toBe(LOCAL_USDC_ADDRESS);
    expect(await local.publicClient.getTransactionCount({ address: LOCAL_DEPLOYER })).toBe(nonce);
  });

  it("has Multicall3's tryAggregate at the canonical address", async () => {
    const { result } = await local.publicClient.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: TRY_AGGREGATE_ABI,
      functionName: "tryAggregate",
      args: [false, [{ target: LOCAL_USDC_ADDRESS, callData: "0x06fdde03" /* name() */ }, { target: LOCAL_USDC_ADDRESS, callData: "0xdeadbeef" }]],
    });
    expect(result.map((r) => r.success)).toEqual([true, false]);
  });
});

describe("EIP-3009 on the test USDC", () => {
  const value = 250_000n;

  it("transferWithAuthorization (bytes signature) moves the amount, marks the nonce used and emits AuthorizationUsed", async () => {
    const nonce = nonceOf("bytes");
    const m = { to: payee.address, value, validAfter: 0n, validBefore: now() + 600n, nonce };
    const signature = await sign(payer, "TransferWithAuthorization", m);
    const before = await local.balanceOf(payee.address);
    expect(await local.publicClient.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "authorizationState", args: [payer.address, nonce] })).toBe(false);
    // Anyone may submit it (here: the outsider pays the gas).
    const hash = await local.walletClient.writeContract({ account: outsider, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transferWithAuthorization", args: [payer.address, m.to, m.value, m.validAfter, m.validBefore, nonce, signature] });
    const receipt = await local.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await local.balanceOf(payee.address)).toBe(before + value);
    expect(await local.publicClient.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "authorizationState", args: [payer.address, nonce] })).toBe(true);
    const events = parseEventLogs({ abi: TEST_USDC_ABI, logs: receipt.logs });
    expect(events.map((e) => e.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
    expect(events[0].args).toEqual({ authorizer: payer.address, nonce });
    // The same authorization again is refused.
    await expect(
      local.publicClient.simulateContract({ account: outsider, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transferWithAuthorization", args: [payer.address, m.to, m.value, m.validAfter, m.validBefore, nonce, signature] }),
    ).rejects.toThrow(/authorization is used or canceled/);
  });

  it("transferWithAuthorization (v, r, s) works the same", async () => {
    const nonce = nonceOf("vrs");
    const m = { to: payee.address, value, validAfter: 0n, validBefore: now() + 600n, nonce };
    const { v, r, s } = hexToSignature(await sign(payer, "TransferWithAuthorization", m));
    const before = await local.balanceOf(payee.address);
    const hash = await local.walletClient.writeContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transferWithAuthorization", args: [payer.address, m.to, m.value, m.validAfter, m.validBefore, nonce, Number(v), r, s] });
    expect((await local.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await local.balanceOf(payee.address)).toBe(before + value);
  });

  it("refuses an expired, a not-yet-valid, a tampered and a wrongly signed authorization", async () => {
    const submit = (m: { to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }, signature: Hex) =>
      local.publicClient.simulateContract({ account: outsider, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transferWithAuthorization", args: [payer.address, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature] });
    const expired = { to: payee.address, value, validAfter: 0n, validBefore: now() - 10n, nonce: nonceOf("expired") };
    await expect(submit(expired, await sign(payer, "TransferWithAuthorization", expired))).rejects.toThrow(/authorization is expired/);
    const early = { to: payee.address, value, validAfter: now() + 3600n, validBefore: now() + 7200n, nonce: nonceOf("early") };
    await expect(submit(early, await sign(payer, "TransferWithAuthorization", early))).rejects.toThrow(/authorization is not yet valid/);
    const ok = { to: payee.address, value, validAfter: 0n, validBefore: now() + 600n, nonce: nonceOf("tampered") };
    const signature = await sign(payer, "TransferWithAuthorization", ok);
    await expect(submit({ ...ok, value: value * 2n }, signature)).rejects.toThrow(/invalid signature/);
    await expect(submit(ok, await sign(outsider, "TransferWithAuthorization", ok))).rejects.toThrow(/invalid signature/);
  });

  it("receiveWithAuthorization only from the payee, in both overloads", async () => {
    for (const overload of ["bytes", "vrs"] as const) {
      const nonce = nonceOf(`receive ${overload}`);
      const m = { to: payee.address, value, validAfter: 0n, validBefore: now() + 600n, nonce };
      const signature = await sign(payer, "ReceiveWithAuthorization", m);
      const { v, r, s } = hexToSignature(signature);
      const args = overload === "bytes"
        ? ([payer.address, m.to, m.value, m.validAfter, m.validBefore, nonce, signature] as const)
        : ([payer.address, m.to, m.value, m.validAfter, m.validBefore, nonce, Number(v), r, s] as const);
      await expect(local.publicClient.simulateContract({ account: outsider, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "receiveWithAuthorization", args })).rejects.toThrow(/caller must be the payee/);
      const before = await local.balanceOf(payee.address);
      const hash = await local.walletClient.writeContract({ account: payee, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "receiveWithAuthorization", args });
      expect((await local.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
      expect(await local.balanceOf(payee.address)).toBe(before + value);
    }
  });

  it("cancelAuthorization burns an unused nonce (AuthorizationCanceled), after which the transfer is refused", async () => {
    const nonce = nonceOf("cancel");
    const m = { to: payee.address, value, validAfter: 0n, validBefore: now() + 600n, nonce };
    const transferSig = await sign(payer, "TransferWithAuthorization", m);
    const cancelSig = await payer.signTypedData({
      domain: { ...LOCAL_USDC_DOMAIN, chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
      types: { CancelAuthorization: EIP3009_TYPES.CancelAuthorization },
      primaryType: "CancelAuthorization",
      message: { authorizer: payer.address, nonce },
    });
    const hash = await local.walletClient.writeContract({ account: outsider, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "cancelAuthorization", args: [payer.address, nonce, cancelSig] });
    const receipt = await local.publicClient.waitForTransactionReceipt({ hash });
    expect(parseEventLogs({ abi: TEST_USDC_ABI, logs: receipt.logs }).map((e) => e.eventName)).toEqual(["AuthorizationCanceled"]);
    await expect(
      local.publicClient.simulateContract({ account: outsider, address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transferWithAuthorization", args: [payer.address, m.to, m.value, m.validAfter, m.validBefore, nonce, transferSig] }),
    ).rejects.toThrow(/authorization is used or canceled/);
  });
});
