import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminOverview } from "@/lib/catalog/admin";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

describe("moderators' desk read model", () => {
  it("refuses a seller, an unknown user and no user; serves a moderator and an admin", async () => {
    const seller = await t.prisma.user.create({ data: { name: "S", role: "seller" } });
    const moderator = await t.prisma.user.create({ data: { name: "M", role: "moderator" } });
    const admin = await t.prisma.user.create({ data: { name: "A", role: "admin" } });
    await expect(adminOverview(seller.id)).rejects.toMatchObject({ code: "forbidden", status: 403 });
    await expect(adminOverview("no-such-user")).rejects.toMatchObject({ code: "unauthorized" });
    await expect(adminOverview(null)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(adminOverview(moderator.id)).resolves.toHaveProperty("queue");
    await expect(adminOverview(admin.id)).resolves.toHaveProperty("listings");
  });

  it("reads the role fresh: a demoted moderator is refused at once", async () => {
    const m = await t.prisma.user.create({ data: { name: "M2", role: "moderator" } });
    await adminOverview(m.id);
    await t.prisma.user.update({ where: { id: m.id }, data: { role: "seller" } });
    await expect(adminOverview(m.id)).rejects.toMatchObject({ code: "forbidden" });
  });
});
