import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, stat, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ed25519PrivateKeyFromSeed, rawPublicKey } from "./dsse";
import { KEY_FILE_NAME, keyidFor, loadKeyring, parsePublicKeySet, publicKeySet, rotateKey, saveKeyring } from "./keys";
import { RFC8032_TEST1_SEED_HEX } from "@/test/badges";

const tmp = () => mkdtemp(path.join(tmpdir(), "tollgate-badge-keys-"));
const NOW = new Date("2026-12-02T10:00:00Z");

async function fileKeyring(dataDir: string, now = NOW) {
  const r = await loadKeyring({ env: {}, dataDir, now });
  if (!r.ok) throw new Error(r.error.message);
  return r;
}

describe("embedded default: key file", () => {
  it("generates a key on first start and reuses it on the next (same keyid)", async () => {
    const dir = await tmp();
    const first = await fileKeyring(dir);
    expect(first.keyring.source).toBe("file");
    expect(first.warnings.join()).toMatch(/generated badge signing key/);
    const second = await fileKeyring(dir);
    expect(second.keyring.active.keyid).toBe(first.keyring.active.keyid);
    expect(second.warnings).toEqual([]);
    // The private key came back too, not just the id.
    expect(rawPublicKey(second.keyring.active.privateKey)).toEqual(rawPublicKey(first.keyring.active.privateKey));
  });

  it("writes the file with mode 0600 and repairs a looser mode on load", async () => {
    const dir = await tmp();
    await fileKeyring(dir);
    const file = path.join(dir, KEY_FILE_NAME);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await chmod(file, 0o644);
    const again = await fileKeyring(dir);
    expect(again.warnings.join()).toMatch(/reset to 0600/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("two processes starting at once end up with one key", async () => {
    const dir = await tmp();
    const [a, b] = await Promise.all([fileKeyring(dir), fileKeyring(dir)]);
    expect(a.keyring.active.keyid).toBe(b.keyring.active.keyid);
  });

  it("refuses (and does not overwrite) a damaged key file", async () => {
    const dir = await tmp();
    const file = path.join(dir, KEY_FILE_NAME);
    await writeFile(file, '{"version":1,"keys":[]}', { mode: 0o600 });
    const r = await loadKeyring({ env: {}, dataDir: dir, now: NOW });
    expect(r).toMatchObject({ ok: false, error: { code: "key_file_invalid" } });
    expect(await readFile(file, "utf8")).toBe('{"version":1,"keys":[]}');
  });

  it("refuses a key file whose seed does not match its public key", async () => {
    const dir = await tmp();
    const { keyring } = await fileKeyring(dir);
    const file = path.join(dir, KEY_FILE_NAME);
    const json = JSON.parse(await readFile(file, "utf8"));
    json.keys[0].seed = Buffer.alloc(32, 7).toString("base64");
    await writeFile(file, JSON.stringify(json));
    expect(await loadKeyring({ env: {}, dataDir: dir })).toMatchObject({ ok: false, error: { code: "key_file_invalid", message: expect.stringContaining("seed") } });
    expect(keyring.active.keyid).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("production: keys from the environment", () => {
  const seed = Buffer.from(RFC8032_TEST1_SEED_HEX, "hex");
  const expectedKeyid = keyidFor(rawPublicKey(ed25519PrivateKeyFromSeed(seed)));

  it("requires BADGE_SIGNING_KEY in production instead of inventing one", async () => {
    expect(await loadKeyring({ env: { NODE_ENV: "production" }, dataDir: await tmp() })).toMatchObject({ ok: false, error: { code: "signing_key_missing" } });
  });

  it("accepts a base64 seed", async () => {
    const r = await loadKeyring({ env: { NODE_ENV: "production", BADGE_SIGNING_KEY: seed.toString("base64") }, dataDir: "/nonexistent" });
    expect(r).toMatchObject({ ok: true, keyring: { source: "env", file: null, active: { keyid: expectedKeyid, notBefore: "1970-01-01T00:00:00Z" } } });
  });

  it("accepts a PKCS#8 PEM, with literal \\n as env files often carry it", async () => {
    const pem = ed25519PrivateKeyFromSeed(seed).export({ format: "pem", type: "pkcs8" }).toString();
    const r = await loadKeyring({ env: { BADGE_SIGNING_KEY: pem.replace(/\n/g, "\\n"), BADGE_SIGNING_KEY_NOT_BEFORE: "2026-11-01T00:00:00Z" }, dataDir: "/nonexistent" });
    expect(r).toMatchObject({ ok: true, keyring: { active: { keyid: expectedKeyid, notBefore: "2026-11-01T00:00:00Z" } } });
  });

  it("refuses a non-Ed25519 key and a short seed", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    expect(await loadKeyring({ env: { BADGE_SIGNING_KEY: rsa }, dataDir: "/x" })).toMatchObject({ ok: false, error: { code: "signing_key_invalid", message: expect.stringContaining("rsa") } });
    expect(await loadKeyring({ env: { BADGE_SIGNING_KEY: "AAAA" }, dataDir: "/x" })).toMatchObject({ ok: false, error: { code: "signing_key_invalid" } });
  });

  it("publishes previous public keys with their validity, and names the bad field", async () => {
    const old = rawPublicKey(generateKeyPairSync("ed25519").publicKey);
    const env = {
      BADGE_SIGNING_KEY: seed.toString("base64"),
      BADGE_PREVIOUS_KEYS: JSON.stringify([{ publicKey: old.toString("base64"), notBefore: "2026-01-01T00:00:00Z", notAfter: "2026-11-01T00:00:00Z" }]),
    };
    const r = await loadKeyring({ env, dataDir: "/x" });
    if (!r.ok) throw new Error(r.error.message);
    expect(publicKeySet(r.keyring).keys.map((k) => [k.keyid, k.status, k.notAfter])).toEqual([
      [expectedKeyid, "active", null],
      [keyidFor(old), "retired", "2026-11-01T00:00:00Z"],
    ]);
    const bad = { ...env, BADGE_PREVIOUS_KEYS: JSON.stringify([{ publicKey: old.toString("base64"), notBefore: "2026-01-01T00:00:00Z" }]) };
    expect(await loadKeyring({ env: bad, dataDir: "/x" })).toMatchObject({ ok: false, error: { code: "previous_keys_invalid", message: "BADGE_PREVIOUS_KEYS/0/notAfter must be an ISO 8601 time" } });
  });
});

describe("rotation", () => {
  it("makes a new active key and retires the old one with a notAfter window", async () => {
    const dir = await tmp();
    const { keyring } = await fileKeyring(dir);
    const later = new Date("2026-12-20T12:00:00Z");
    const rotated = rotateKey(keyring, { now: later, graceSeconds: 600 });
    expect(rotated.active.keyid).not.toBe(keyring.active.keyid);
    expect(rotated.active.notBefore).toBe("2026-12-20T12:00:00Z");
    expect(publicKeySet(rotated).keys).toEqual([
      { keyid: rotated.active.keyid, alg: "Ed25519", publicKey: rotated.active.publicKey, notBefore: "2026-12-20T12:00:00Z", notAfter: null, status: "active" },
      { keyid: keyring.active.keyid, alg: "Ed25519", publicKey: keyring.active.publicKey, notBefore: keyring.active.notBefore, notAfter: "2026-12-20T12:10:00Z", status: "retired" },
    ]);
    // Persisted: the next start signs with the new key and still publishes the old one.
    await saveKeyring(rotated);
    const reloaded = await fileKeyring(dir);
    expect(reloaded.keyring.active.keyid).toBe(rotated.active.keyid);
    expect(reloaded.keyring.keys.map((k) => k.keyid)).toEqual([rotated.active.keyid, keyring.active.keyid]);
    // The retired key's secret is gone from disk.
    const onDisk = JSON.parse(await readFile(path.join(dir, KEY_FILE_NAME), "utf8"));
    expect(onDisk.keys.filter((k: { seed?: string }) => k.seed)).toHaveLength(1);
  });

  it("drops retired keys once no statement they signed can still be unexpired", async () => {
    const { keyring } = await fileKeyring(await tmp());
    const r1 = rotateKey(keyring, { now: new Date("2027-01-01T00:00:00Z"), graceSeconds: 0 });
    expect(publicKeySet(r1, { now: new Date("2027-01-30T00:00:00Z") }).keys).toHaveLength(2); // within 30 days
    expect(publicKeySet(r1, { now: new Date("2027-02-01T00:00:00Z") }).keys).toHaveLength(1);
    const r2 = rotateKey(r1, { now: new Date("2027-03-01T00:00:00Z") });
    expect(r2.keys.map((k) => k.keyid)).toEqual([r2.active.keyid, r1.active.keyid]);
  });

  it("an environment keyring cannot be saved", async () => {
    const r = await loadKeyring({ env: { BADGE_SIGNING_KEY: Buffer.alloc(32, 1).toString("base64") }, dataDir: "/x" });
    if (!r.ok) throw new Error(r.error.message);
    await expect(saveKeyring(rotateKey(r.keyring, { now: NOW }))).rejects.toThrow(/BADGE_PREVIOUS_KEYS/);
  });
});

describe("parsePublicKeySet", () => {
  it("accepts what publicKeySet produces and refuses tampered ids or unknown fields", async () => {
    const { keyring } = await fileKeyring(await tmp());
    const set = publicKeySet(keyring);
    expect(parsePublicKeySet(JSON.stringify(set))).toEqual({ ok: true, keySet: set });
    expect(parsePublicKeySet({ keys: [{ ...set.keys[0], keyid: "0000000000000000" }] })).toMatchObject({ ok: false, message: "/keys/0/keyid does not match its public key" });
    expect(parsePublicKeySet({ keys: [{ ...set.keys[0], use: "sig" }] })).toMatchObject({ ok: false, message: "unexpected field /keys/0/use" });
    expect(parsePublicKeySet({ keys: [{ ...set.keys[0], alg: "RS256" }] })).toMatchObject({ ok: false });
  });
});
