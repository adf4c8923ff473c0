import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "@/test/db";
import { openDatabase } from "@/lib/db";
import { migrate, readMigrations } from "@/lib/migrate";
import { authenticateApiKey, createApiKey, hashApiKey, parseCreateApiKey, revokeApiKey } from "./index";
import { forgetKey, KEY_CACHE_TTL_MS, lookUpKey } from "./cache";

// The admin routes read the signed-in user from next-auth; here the test says who is signed in.
const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));
import { POST as createRoute, GET as listRoute } from "@/app/api/admin/api-keys/route";
import { DELETE as revokeRoute } from "@/app/api/admin/api-keys/[id]/route";
import { POST as selectRoute } from "@/app/router/select/route";
import { POST as mcpRoute } from "@/app/mcp/route";
import * as callRoute from "@/app/router/call/[listing]/[...path]/route";

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
    const k = await createApiKey({ actorId: admin, name: "harness", scopes: ["router:call", "router:select"] });
    expect(k.secret).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
    expect(k.prefix).toBe(k.secret.slice(0, 9));
    const row = await t.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(row.hash).toBe(hashApiKey(k.secret));
    expect(JSON.stringify(row)).not.toContain(k.secret);
    expect(row.scopes).toEqual(["router:select", "router:call"]);
    expect(k.scopes).toEqual(["router:select", "router:call"]);
    expect(await authenticateApiKey(`Bearer ${k.secret}`, "router:select")).toEqual({ id: k.id, name: "harness", scopes: ["router:select", "router:call"] });
  });

  it("missing, malformed, unknown and revoked keys are all 401", async () => {
    const k = await createApiKey({ actorId: admin, name: "to revoke", scopes: ["router:select"] });
    for (const h of [null, "", "Basic abc", "Bearer", `Bearer ${k.secret}x`, `Bearer tg_${"a".repeat(43)}`]) {
      await expect(authenticateApiKey(h, "router:select")).rejects.toMatchObject({ status: 401 });
    }
    await revokeApiKey({ actorId: admin, id: k.id });
    // Revoked is 401 whatever the scope asked: a revoked key's scopes are nobody's business.
    await expect(authenticateApiKey(`Bearer ${k.secret}`, "router:select")).rejects.toMatchObject({ status: 401 });
    await expect(authenticateApiKey(`Bearer ${k.secret}`, "router:call")).rejects.toMatchObject({ status: 401 });
  });

  it("only an admin may create, list or revoke, with the role read fresh", async () => {
    await expect(createApiKey({ actorId: moderator, name: "x", scopes: ["router:select"] })).rejects.toMatchObject({ status: 403 });
    const k = await createApiKey({ actorId: admin, name: "y", scopes: ["router:select"] });
    await expect(revokeApiKey({ actorId: moderator, id: k.id })).rejects.toMatchObject({ status: 403 });
    const demoted = (await t.prisma.user.create({ data: { name: "Was admin", role: "admin" } })).id;
    await t.prisma.user.update({ where: { id: demoted }, data: { role: "moderator" } });
    await expect(createApiKey({ actorId: demoted, name: "x", scopes: ["router:select"] })).rejects.toMatchObject({ status: 403 });
  });
});

describe("admin routes", () => {
  it("POST /api/admin/api-keys: 201 with the secret for an admin, 403 for a moderator, 401 signed out, 400 naming /name", async () => {
    session.uid = admin;
    const res = await post({ name: "router client", scopes: ["router:select"] });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.secret).toMatch(/^tg_/);
    expect(body.scopes).toEqual(["router:select"]);
    expect((await post({ name: "", scopes: ["router:select"] })).status).toBe(400);
    expect((await (await post({ name: "x", scopes: ["router:select"], scope: "all" })).json()).error.details[0].pointer).toBe("/scope");
    session.uid = moderator;
    expect((await post({ name: "x", scopes: ["router:select"] })).status).toBe(403);
    session.uid = null;
    expect((await post({ name: "x", scopes: ["router:select"] })).status).toBe(401);
  });

  it("GET lists keys without secrets or hashes; DELETE revokes and the key stops working", async () => {
    session.uid = admin;
    const created = await (await post({ name: "short-lived", scopes: ["router:call"] })).json();
    const list = await (await listRoute()).json();
    expect(list.items.find((i: { id: string }) => i.id === created.id)).toMatchObject({ name: "short-lived", scopes: ["router:call"], revokedAt: null });
    expect(JSON.stringify(list)).not.toMatch(/"secret"|"hash"/);
    const del = await revokeRoute(new Request("http://x", { method: "DELETE" }), { params: Promise.resolve({ id: created.id }) });
    expect(del.status).toBe(200);
    expect((await del.json()).revokedAt).not.toBeNull();
    await expect(authenticateApiKey(`Bearer ${created.secret}`, "router:call")).rejects.toMatchObject({ status: 401 });
    const missing = await revokeRoute(new Request("http://x", { method: "DELETE" }), { params: Promise.resolve({ id: "nope" }) });
    expect(missing.status).toBe(404);
  });
});

describe("scopes", () => {
  it("a create request names its scopes: known ones, each once, at least one; a 400 names the pointer", () => {
    expect(parseCreateApiKey({ name: " a ", scopes: ["router:call", "router:select"] })).toEqual({ name: "a", scopes: ["router:select", "router:call"] });
    const pointer = (body: unknown) => {
      try {
        parseCreateApiKey(body);
      } catch (e) {
        return (e as { status: number; details: Array<{ pointer: string }> }).status + " " + (e as { details: Array<{ pointer: string }> }).details[0].pointer;
      }
      return "accepted";
    };
    expect(pointer({ name: "a" })).toBe("400 /scopes");
    expect(pointer({ name: "a", scopes: [] })).toBe("400 /scopes");
    expect(pointer({ name: "a", scopes: "router:select" })).toBe("400 /scopes");
    expect(pointer({ name: "a", scopes: ["router:select", "admin"] })).toBe("400 /scopes/1");
    expect(pointer({ name: "a", scopes: ["router:call", "router:call"] })).toBe("400 /scopes/1");
    expect(pointer(["a"])).toBe("400 ");
  });

  it("a live key without the scope a route needs is 403 insufficient_scope naming it, and that refusal is not a use", async () => {
    const k = await createApiKey({ actorId: admin, name: "caller only", scopes: ["router:call"] });
    const err = await authenticateApiKey(`Bearer ${k.secret}`, "router:select").catch((e) => e);
    expect(err).toMatchObject({ status: 403, code: "insufficient_scope", extra: { requiredScope: "router:select", scopes: ["router:call"] } });
    expect(err.message).toContain("router:select");
    expect(err.message).toContain("caller only");
    expect((await t.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } })).lastUsedAt).toBeNull();
    await authenticateApiKey(`Bearer ${k.secret}`, "router:call");
    expect((await t.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } })).lastUsedAt).not.toBeNull();
  });

  it("every route that accepts a key checks its own scope: /router/select, MCP select_services, /router/call", async () => {
    const caller = await createApiKey({ actorId: admin, name: "call scope", scopes: ["router:call"] });
    const selector = await createApiKey({ actorId: admin, name: "select scope", scopes: ["router:select"] });
    const select = (secret: string) =>
      selectRoute(new Request("http://localhost/router/select", { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify({ task: "weather" }) }));
    const refused = await select(caller.secret);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatchObject({ code: "insufficient_scope", requiredScope: "router:select" });
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="tollgate", error="insufficient_scope", scope="router:select"');
    expect((await select(selector.secret)).status).toBe(200);

    const mcp = async (secret: string) => {
      const res = await mcpRoute(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "select_services", arguments: { task: "weather" } } }),
        }),
      );
      return (await res.json()).result as { isError?: boolean; content: Array<{ text: string }> };
    };
    const toolRefused = await mcp(caller.secret);
    expect(toolRefused.isError).toBe(true);
    expect(JSON.parse(toolRefused.content[0].text).error).toMatchObject({ code: "insufficient_scope", requiredScope: "router:select" });
    expect((await mcp(selector.secret)).isError).toBeFalsy();

    // /router/call refuses a select-only key before it looks up the listing (an unknown one would be 404).
    const call = (headers: Record<string, string>) =>
      callRoute.POST(new Request("http://localhost/router/call/no-such-listing/run", { method: "POST", headers, body: "{}" }), { params: Promise.resolve({ listing: "no-such-listing", path: ["run"] }) });
    for (const headers of [{ authorization: `Bearer ${selector.secret}` }, { "x-tollgate-key": selector.secret }] as Array<Record<string, string>>) {
      const res = await call(headers);
      expect(res.status).toBe(403);
      expect((await res.json()).error).toMatchObject({ code: "insufficient_scope", requiredScope: "router:call" });
    }
    expect((await call({ authorization: `Bearer ${caller.secret}` })).status).toBe(404);
  });

  it("the database holds a key to at least one known scope", async () => {
    const row = { name: "raw", prefix: "tg_raw", createdById: admin };
    await expect(t.prisma.apiKey.create({ data: { ...row, hash: crypto.randomBytes(32).toString("hex"), scopes: [] } })).rejects.toThrow(/api_keys_scopes_known/);
    await expect(t.prisma.apiKey.create({ data: { ...row, hash: crypto.randomBytes(32).toString("hex"), scopes: ["router:select", "everything"] } })).rejects.toThrow(/api_keys_scopes_known/);
  });

  it("keys made before scopes keep what they could do: both scopes (migration 20261203182000_api_key_scopes)", async () => {
    const all = readMigrations();
    const at = all.findIndex((m) => m.name === "20261203182000_api_key_scopes");
    expect(at).toBeGreaterThan(0);
    const url = testDatabaseUrl();
    const schema = url ? `t_${process.pid}_${crypto.randomBytes(4).toString("hex")}` : null;
    if (url && schema) {
      const a = await openDatabase({ url, poolSize: 1 });
      await a.exec(`CREATE SCHEMA ${schema}`);
      await a.close();
    }
    const old = url && schema ? await openDatabase({ url, schema, poolSize: 2 }) : await openDatabase({ pgliteDir: "memory" });
    try {
      await migrate(old, all.slice(0, at));
      await old.exec(`INSERT INTO "users" ("id", "name", "role") VALUES ('u1', 'Admin', 'admin')`);
      await old.exec(`INSERT INTO "api_keys" ("id", "name", "prefix", "hash", "createdById") VALUES ('k1', 'old', 'tg_old', 'h1', 'u1')`);
      await migrate(old, all);
      expect(await old.query(`SELECT "scopes" FROM "api_keys" WHERE "id" = 'k1'`)).toEqual([{ scopes: ["router:select", "router:call"] }]);
      // New keys have no default: they name their scopes.
      await expect(old.exec(`INSERT INTO "api_keys" ("id", "name", "prefix", "hash", "createdById") VALUES ('k2', 'new', 'tg_new', 'h2', 'u1')`)).rejects.toThrow(/scopes/);
    } finally {
      await old.close();
      if (url && schema) {
        const a = await openDatabase({ url, poolSize: 1 });
        await a.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await a.close();
      }
    }
  });
});

describe("API keys read at most once a second (./cache.ts)", () => {
  it("a key revoked by another process (the row changed, this process's cache not told) is refused within a second", async () => {
    const k = await createApiKey({ actorId: admin, name: "revoked elsewhere", scopes: ["router:call"] });
    await authenticateApiKey(`Bearer ${k.secret}`, "router:call");
    const revokedAt = performance.now();
    await t.prisma.apiKey.update({ where: { id: k.id }, data: { revokedAt: new Date() } });
    let refusedAfter: number | null = null;
    while (performance.now() - revokedAt < 3 * KEY_CACHE_TTL_MS) {
      const refused = await authenticateApiKey(`Bearer ${k.secret}`, "router:call").then(
        () => false,
        (e: { status?: number }) => e.status === 401,
      );
      if (refused) {
        refusedAfter = performance.now() - revokedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(refusedAfter).not.toBeNull();
    expect(refusedAfter!).toBeLessThanOrEqual(KEY_CACHE_TTL_MS);
    // And through the router's route: 401, not relayed.
    const res = await callRoute.GET(new Request("http://x/router/call/nope/x", { headers: { authorization: `Bearer ${k.secret}` } }), { params: Promise.resolve({ listing: "nope", path: ["x"] }) });
    expect(res.status).toBe(401);
  });

  it("reads a key once per KEY_CACHE_TTL_MS per database, again after it, and at once after forgetKey", async () => {
    let reads = 0;
    const read = async () => {
      reads++;
      return { id: "k1", name: "n", scopes: ["router:call"], revokedAt: null, lastUsedAt: null };
    };
    const [dbA, dbB] = [{}, {}];
    for (let i = 0; i < 10; i++) await lookUpKey(dbA, "h", read, 1000 + i * 50);
    expect(reads).toBe(1);
    await lookUpKey(dbB, "h", read, 1000); // another database never shares an entry
    expect(reads).toBe(2);
    await lookUpKey(dbA, "h", read, 1000 + KEY_CACHE_TTL_MS);
    expect(reads).toBe(3);
    forgetKey(dbA, "h");
    await lookUpKey(dbA, "h", read, 1000 + KEY_CACHE_TTL_MS + 1);
    expect(reads).toBe(4);
    // A failed read is not kept.
    await expect(lookUpKey(dbA, "x", () => Promise.reject(new Error("db down")), 5000)).rejects.toThrow("db down");
    await lookUpKey(dbA, "x", read, 5001);
    expect(reads).toBe(5);
  });
});

describe("a busy key is read again in the background", () => {
  it("past half the TTL the cached row is served and a fresh read replaces it; never older than the TTL", async () => {
    let reads = 0;
    let revoked = false;
    const read = async () => {
      reads++;
      return { id: "k2", name: "n", scopes: ["router:call"], revokedAt: revoked ? new Date() : null, lastUsedAt: null };
    };
    const db0 = {};
    await lookUpKey(db0, "h", read, 0);
    revoked = true;
    expect((await lookUpKey(db0, "h", read, KEY_CACHE_TTL_MS / 2))?.revokedAt).toBeNull(); // served, refresh started
    expect(reads).toBe(2);
    await new Promise((r) => setTimeout(r, 0));
    expect((await lookUpKey(db0, "h", read, KEY_CACHE_TTL_MS / 2 + 1))?.revokedAt).not.toBeNull();
    expect(reads).toBe(2);
  });
});
