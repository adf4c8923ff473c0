/**
 * The guard against the hostile market (test/guard-market.ts): one typed refusal per attack with no
 * USDC moving to the attacker, the same attacks taking real money from plain @x402/fetch, and an
 * honest call paid after one attestation lookup, the next from the cache.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GuardRefusal, TollgateGuard } from "@/clients/guard/src/index";
import { ATTACKS, EXPECTED, HONEST, startGuardMarket, type GuardMarket } from "@/test/guard-market";

let m: GuardMarket;
beforeAll(async () => {
  m = await startGuardMarket("guard market test");
}, 120_000);
afterAll(async () => {
  await m?.close();
});

const seller = (slug: string) => m.sellers.find((s) => s.slug === slug)!;
const attackBalances = async () => Promise.all(m.attackPayees().map((a) => m.local.balanceOf(a)));

describe("the canary pass", () => {
  it("grades what the market's history shows: charged-then-broken sellers avoid, the others ok", () => {
    expect(m.canary.get("fails-after-payment")).toMatchObject({ status: 500, verdict: "avoid" });
    expect(m.canary.get("html-fallback")).toMatchObject({ verdict: "avoid", because: expect.stringContaining("text/html") });
    expect(m.canary.get("schema-phantom")).toMatchObject({ verdict: "avoid", because: expect.stringContaining("schema") });
    expect(m.canary.get("decoy")).toMatchObject({ verdict: "avoid" });
    for (const h of HONEST) expect(m.canary.get(h)).toMatchObject({ status: 200, verdict: "ok" });
    expect(m.canary.has("badge-copied")).toBe(false);
  });
});

describe("with the guard", () => {
  it("refuses every attack with its reason, and no USDC reaches an attacker", async () => {
    const buyer = await m.buyer("guarded", 5_000_000_000n);
    const guard = new TollgateGuard({ tollgate: m.tollgate });
    const paying = guard.fetch(wrap(guard, buyer));
    const before = await attackBalances();
    const got: Record<string, string> = {};
    for (const a of ATTACKS) {
      const err = await paying(seller(a).url).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, a).toBeInstanceOf(GuardRefusal);
      const r = err as GuardRefusal;
      got[a] = r.code;
      expect(r.sentence.length, a).toBeGreaterThan(20);
    }
    expect(got).toEqual(EXPECTED);
    expect(await attackBalances()).toEqual(before);
    expect(guard.stats.keyFetches).toBe(1);
  });

  it("pays an honest seller after one attestation lookup; the second call is served from the cache", async () => {
    const buyer = await m.buyer("honest path", 1_000_000n);
    const guard = new TollgateGuard({ tollgate: m.tollgate, keys: m.keys });
    const paying = guard.fetch(wrap(guard, buyer));
    const s = seller("honest-3");
    const lookupsBefore = m.lookups.get(s.url) ?? 0;
    const first = await paying(s.url);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ value: 42, seller: "honest-3" });
    const second = await paying(s.url);
    expect(second.status).toBe(200);
    expect(m.lookups.get(s.url)! - lookupsBefore).toBe(1);
    expect(guard.stats.keyFetches).toBe(0);
    expect(await m.local.balanceOf(s.payTo)).toBeGreaterThanOrEqual(20_000n);
  });

  it("without guard.fetch the hook still refuses, and the wrapped error still carries the reason", async () => {
    const buyer = await m.buyer("bare hook", 1_000_000n);
    const guard = new TollgateGuard({ tollgate: m.tollgate, keys: m.keys });
    guard.x402(buyer.client);
    const err = await buyer.fetch(seller("payto-swapped").url).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(GuardRefusal);
    expect(GuardRefusal.from(err)?.code).toBe("payto_changed");
  });
});

describe("plain @x402/fetch", () => {
  it("pays the attackers the guard refuses", async () => {
    const buyer = await m.buyer("plain", 2_000_000_000n);
    for (const a of ["payto-swapped", "above-listed-price", "fails-after-payment", "wrong-network"] as const) {
      const s = seller(a);
      const before = await m.local.balanceOf(buyer.account.address);
      const res = await buyer.fetch(s.url);
      await res.text();
      expect(await m.local.balanceOf(buyer.account.address), a).toBeLessThan(before);
    }
  });
});

function wrap(guard: TollgateGuard, buyer: Awaited<ReturnType<GuardMarket["buyer"]>>) {
  guard.x402(buyer.client);
  return buyer.fetch;
}

describe("README's \"Guard your payments\" block", () => {
  it("runs as written: pays an honest seller, refuses one whose payee changed", async () => {
    const { execFile } = await import("node:child_process");
    const fs = await import("node:fs");
    const path = await import("node:path");
    const readme = fs.readFileSync(path.join(__dirname, "../../README.md"), "utf8");
    const section = readme.split(/^## /m).find((s) => s.startsWith("Guard your payments"))!;
    const code = /```ts\n([\s\S]*?)```/.exec(section)![1];
    expect(code).toContain('from "@tollgate/guard"');
    // The package is this repository's clients/guard; the rest of the block runs untouched.
    const file = path.join(__dirname, `.readme-guard-${process.pid}.mts`);
    fs.writeFileSync(file, code.replace('"@tollgate/guard"', JSON.stringify(path.join(__dirname, "../../clients/guard/src/index.ts"))));
    const key = "0x" + "5".repeat(64);
    await m.local.mint((await import("viem/accounts")).privateKeyToAccount(key as `0x${string}`).address, 1_000_000n);
    const run = (url: string) =>
      new Promise<string>((resolve, reject) =>
        execFile(path.join(__dirname, "../../node_modules/.bin/tsx"), [file], { env: { ...process.env, BUYER_PRIVATE_KEY: key, TOLLGATE_ORIGIN: m.tollgate, SELLER_URL: url }, timeout: 60_000 }, (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out))),
      );
    try {
      expect(await run(seller("honest-5").url)).toMatch(/^200 \{"value":42,"seller":"honest-5"\}/);
      expect(await run(seller("payto-swapped").url)).toMatch(/^refused payto_changed the payment goes to 0x/);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }, 120_000);
});
