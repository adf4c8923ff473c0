import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { authenticateApiKey, createApiKey, hashApiKey, revokeApiKey } from "./index";

// The admin routes read the signed-in user from next-auth; here the test says who is signed in.
const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));
import { POST as createRoute, GET as listRoute } from "@/app/api/admin/api-keys/route";
import { DELETE as revokeRoute } from "@/app/api/admin/api-keys/[id]/route";

let t: TestDatabase;
let admin: string, moderator: string;

beforeAll(async () => {
  t = await createTestDatabase();
  admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  moderator = (await t.prisma.user.create({ data: { name: "Mod", role: "moderator" } })).id;
});
afterAll(async () => {
  await t?.close();
});

const post = (body: unknown) => createRoute(new Request("http://x/api/admin/api-keys", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));

describe("API keys", () => {
  it("an admin creates a key: the secret comes back once, only its SHA-256 is stored", async () => {
    const k = await createApiKey({ actorId: admin, name: "harness" });
    expect(k.secret).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
    expect(k.prefix).toBe(k.secret.slice(0, 9));
    const row = await t.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(row.hash).toBe(hashApiKey(k.secret));
    expect(JSON.stringify(row)).not.toContain(k.secret);
    expect(await authenticateApiKey(`Bearer ${k.secret}`)).toEqual({ id: k.id, name: "harness" });
  });

  it("missing, malformed, unknown and revoked keys are all 401", async () => {
    const k = await createApiKey({ actorId: admin, name: "to revoke" });
    for (const h of [null, "", "Basic abc", "Bearer", `Bearer ${k.secret}x`, `Bearer tg_${"a".repeat(43)}`]) {
      await expect(authenticateApiKey(h)).rejects.toMatchObject({ status: 401 });
    }
    await revokeApiKey({ actorId: admin, id: k.id });
    await expect(authenticateApiKey(`Bearer ${k.secret}`)).rejects.toMatchObject({ status: 401 });
  });

  it("only an admin may create, list or revoke, with the role read fresh", async () => {
    await expect(createApiKey({ actorId: moderator, name: "x" })).rejects.toMatchObject({ status: 403 });
    const k = await createApiKey({ actorId: admin, name: "y" });
    await expect(revokeApiKey({ actorId: moderator, id: k.id })).rejects.toMatchObject({ status: 403 });
    const demoted = (await t.prisma.user.create({ data: { name: "Was admin", role: "admin" } })).id;
    await t.prisma.user.update({ where: { id: demoted }, data: { role: "moderator" } });
    await expect(createApiKey({ actorId: demoted, name: "x" })).rejects.toMatchObject({ status: 403 });
  });
});

describe("admin routes", () => {
  it("POST /api/admin/api-keys: 201 with the secret for an admin, 403 for a moderator, 401 signed out, 400 naming /name", async () => {
    session.uid = admin;
    const res = await post({ name: "router client" });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.secret).toMatch(/^tg_/);
    expect((await post({ name: "" })).status).toBe(400);
    expect((await (await post({ name: "x", scope: "all" })).json()).error.details[0].pointer).toBe("/scope");
    session.uid = moderator;
    expect((await post({ name: "x" })).status).toBe(403);
    session.uid = null;
    expect((await post({ name: "x" })).status).toBe(401);
  });

  it("GET lists keys without secrets or hashes; DELETE revokes and the key stops working", async () => {
    session.uid = admin;
    const created = await (await post({ name: "short-lived" })).json();
    const list = await (await listRoute()).json();
    expect(list.items.find((i: { id: string }) => i.id === created.id)).toMatchObject({ name: "short-lived", revokedAt: null });
    expect(JSON.stringify(list)).not.toMatch(/"secret"|"hash"/);
    const del = await revokeRoute(new Request("http://x", { method: "DELETE" }), { params: Promise.resolve({ id: created.id }) });
    expect(del.status).toBe(200);
    expect((await del.json()).revokedAt).not.toBeNull();
    await expect(authenticateApiKey(`Bearer ${created.secret}`)).rejects.toMatchObject({ status: 401 });
    const missing = await revokeRoute(new Request("http://x", { method: "DELETE" }), { params: Promise.resolve({ id: "nope" }) });
    expect(missing.status).toBe(404);
  });
});
