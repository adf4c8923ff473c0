import { afterEach, describe, expect, it } from "vitest";
import { tempKeyring } from "@/test/badges-db";
import { parsePublicKeySet, rotateKey } from "@/lib/badges/keys";
import { setBadgeKeyring } from "@/lib/badges/server";
import { GET } from "./route";

afterEach(() => setBadgeKeyring(undefined));

const get = (headers: Record<string, string> = {}) => GET(new Request("http://127.0.0.1:3999/.well-known/tollgate-badge-keys.json", { headers }));

describe("GET /.well-known/tollgate-badge-keys.json", () => {
  it("serves the public key set (no private material), parseable by verifiers, with ETag and 304", async () => {
    const keyring = await tempKeyring();
    setBadgeKeyring(keyring);
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const text = await res.text();
    expect(text).not.toMatch(/seed|private/i);
    const parsed = parsePublicKeySet(text);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.keySet.keys).toEqual([{ keyid: keyring.active.keyid, alg: "Ed25519", publicKey: keyring.active.publicKey, notBefore: keyring.active.notBefore, notAfter: null, status: "active" }]);
    expect((await get({ "if-none-match": res.headers.get("etag")! })).status).toBe(304);
  });

  it("after a rotation lists the new active key first and keeps the retired one", async () => {
    const old = await tempKeyring();
    const rotated = rotateKey(old, { now: new Date() });
    setBadgeKeyring(rotated);
    const body = await (await get()).json();
    expect(body.keys.map((k: { keyid: string; status: string }) => [k.keyid, k.status])).toEqual([
      [rotated.active.keyid, "active"],
      [old.active.keyid, "retired"],
    ]);
    expect(body.keys[1].notAfter).not.toBeNull();
  });

  it("is a 503 naming the problem when signing is not configured", async () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { BADGE_SIGNING_KEY: "not-a-key" });
      const res = await get();
      expect(res.status).toBe(503);
      expect((await res.json()).error).toMatchObject({ code: "unavailable", reason: "signing_key_invalid" });
    } finally {
      process.env = saved;
    }
  });
});
