import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await t.prisma.user.create({ data: { name: "Moderator Demo", role: "moderator", demo: true, demoLogin: "moderator@demo" } });
  await t.prisma.user.create({ data: { name: "Seller Demo", role: "seller", demo: true, demoLogin: "seller@demo" } });
  await t.prisma.user.create({ data: { name: "Real Seller", role: "seller", walletAddress: "0x00000000000000000000000000000000000000aa" } });
  await t.prisma.user.create({ data: { name: "Demo Without Login", role: "seller", demo: true } });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await t?.close();
});

describe("the sign-in page's demo accounts", () => {
  it("lists the demo users that have a login, by role, when the development sign-in is on", async () => {
    vi.stubEnv("TOLLGATE_DEMO_SIGNIN", "1");
    vi.resetModules();
    const { demoAccounts } = await import("./signin");
    expect(await demoAccounts()).toEqual([
      { login: "seller@demo", name: "Seller Demo", role: "seller" },
      { login: "moderator@demo", name: "Moderator Demo", role: "moderator" },
    ]);
  });

  it("lists none when the development sign-in is off", async () => {
    vi.stubEnv("TOLLGATE_DEMO_SIGNIN", "0");
    vi.resetModules();
    const { demoAccounts } = await import("./signin");
    expect(await demoAccounts()).toEqual([]);
  });
});
