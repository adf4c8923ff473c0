/**
 * The verifier's command line: files and URLs in, a line per check and the exit code per refusal out;
 * the real commands (`npx tsx verifier/src/cli.ts`, the package's bin) run as a user runs them. And its
 * RFC 8785 canonicalisation against the app's, over generated values.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { parseArgs, run } from "../../verifier/src/cli.ts";
import { canonicalize } from "../../verifier/src/jcs.ts";
import { EXIT } from "../../verifier/src/verify.ts";
import { attest, generateSubject, keySetOf, seeded, testKey } from "./rig";

const ROOT = path.resolve(__dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "tollgate-verify-"));
const key = testKey();
const rand = seeded(3);
const a = attest(generateSubject("ep_cli", { days: 6, probeEveryHours: 6, paidEveryHours: 24, fullReceipts: true, fault: "none", revisions: 1 }, rand), key);
const other = attest(generateSubject("ep_cli", { days: 5, probeEveryHours: 6, paidEveryHours: 24, fullReceipts: true, fault: "none", revisions: 0 }, rand), key);
const file = (name: string, v: unknown) => {
  const p = path.join(dir, name);
  writeFileSync(p, typeof v === "string" ? v : JSON.stringify(v, null, 2));
  return p;
};
const att = file("attestation.json", a.envelope);
const bundle = file("bundle.json", a.bundle.canonical);
const receipts = file("receipts.json", a.bundle.receipts.canonical);
const keys = file("keys.json", keySetOf(key));
const AT = "2026-12-05T05:00:00Z";

async function cli(...argv: string[]): Promise<{ exit: number; out: string }> {
  let out = "";
  const exit = await run(argv, (s) => void (out += s));
  return { exit, out };
}

describe("tollgate-verify", () => {
  it("verifies from files, printing each check, and exits 0", async () => {
    const r = await cli("--attestation", att, "--bundle", bundle, "--keys", keys, "--at", AT);
    expect(r.exit, r.out).toBe(0);
    expect(r.out).toMatch(/^ok {3}signature: Ed25519 over PAE by key [0-9a-f]{16}$/m);
    expect(r.out).toMatch(/^ok {3}verdict: verdict \w+ attested, \w+ recomputed$/m);
    expect(r.out).toMatch(new RegExp(`^VERIFIED grade ${a.result.grade} ${a.result.score} \\(${a.result.band!.low}–${a.result.band!.high}\\)`, "m"));
  });

  it("exits with the refusal's own code, and --json says it", async () => {
    expect((await cli("--attestation", att, "--bundle", bundle, "--keys", keys, "--at", "2026-12-07T00:00:00Z")).exit).toBe(EXIT.expired);
    const other = file("other-keys.json", keySetOf(testKey()));
    expect((await cli("--attestation", att, "--bundle", bundle, "--keys", other, "--at", AT)).exit).toBe(EXIT.unknown_key);
    const b = JSON.parse(a.bundle.canonical);
    b.rows.pop();
    const r = await cli("--attestation", att, "--bundle", file("short.json", b), "--keys", keys, "--at", AT, "--json");
    expect(r.exit).toBe(EXIT.bundle_hash);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, code: "bundle_hash", exit: 20 });
    expect((await cli("--attestation", att, "--bundle", bundle, "--keys", keys, "--at", AT, "--expect-endpoint", "ep_other")).exit).toBe(EXIT.endpoint_mismatch);
    // The receipts beside the bundle: the genuine file verifies, one changed receipt is refused (exit 24).
    const ok = await cli("--attestation", att, "--bundle", bundle, "--keys", keys, "--receipts", receipts, "--at", AT);
    expect(ok.exit, ok.out).toBe(0);
    expect(ok.out).toMatch(/^ok {3}receipts: \d+ receipts under root [0-9a-f]{12}…$/m);
    const doctored = JSON.parse(a.bundle.receipts.canonical);
    doctored.receipts[3].receipt = { ...doctored.receipts[3].receipt, status: 200 };
    const bad = await cli("--attestation", att, "--bundle", bundle, "--keys", keys, "--receipts", file("receipts-doctored.json", doctored), "--at", AT);
    expect(bad.exit, bad.out).toBe(EXIT.receipts);
    expect(bad.out).toMatch(/^REFUSED receipts \(exit 24\): the receipts' Merkle root is/m);
    expect((await cli("--attestation", att, "--bundle", bundle, "--keys", keys, "--with-receipts")).exit).toBe(EXIT.usage);
    expect((await cli("--attestation", att, "--bundle", path.join(dir, "missing.json"), "--keys", keys)).exit).toBe(EXIT.input);
    expect((await cli("--attestation", att, "--bundle", bundle)).exit).toBe(EXIT.usage);
    expect((await cli("--bundle", bundle, "--keys", keys, "--attestation", att, "--rpc", "http://x")).exit).toBe(EXIT.usage);
    expect((await cli("--attestation", att, "--bundle", bundle, "--keys", keys, "--at", "2026-12-05T03:56:00Z")).exit).toBe(0); // 4 min early: within the skew
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
  });

  it("reads the server's routes with --from and --endpoint", async () => {
    const served: string[] = [];
    const server = createServer((req, res) => {
      served.push(req.url!);
      // The routes' shapes: the attestation route names its bundle by hash (the latest may have moved on).
      const named = `/api/endpoints/ep_cli/evidence?sha256=${a.bundle.sha256}`;
      const body =
        req.url === `/api/endpoints/ep_cli/attestation` ? JSON.stringify({ envelope: a.envelope, statement: a.statement, evidence: { sha256: a.bundle.sha256, url: named } })
        : req.url === named ? a.bundle.canonical
        : req.url === `/api/endpoints/ep_cli/evidence/receipts?sha256=${a.bundle.sha256}` ? a.bundle.receipts.canonical
        : req.url === `/api/endpoints/ep_cli/evidence` ? other.bundle.canonical
        : req.url === "/.well-known/tollgate-badge-keys.json" ? JSON.stringify(keySetOf(key))
        : null;
      res.statusCode = body ? 200 : 404;
      res.end(body ?? "not found");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await cli("--from", origin, "--endpoint", "ep_cli", "--at", AT);
      expect(r.exit, r.out).toBe(0);
      expect(served.sort()).toEqual(["/.well-known/tollgate-badge-keys.json", "/api/endpoints/ep_cli/attestation", `/api/endpoints/ep_cli/evidence?sha256=${a.bundle.sha256}`]);
      // --with-receipts fetches the named bundle's receipts and checks them.
      served.length = 0;
      const withReceipts = await cli("--from", origin, "--endpoint", "ep_cli", "--at", AT, "--with-receipts");
      expect(withReceipts.exit, withReceipts.out).toBe(0);
      expect(served).toContain(`/api/endpoints/ep_cli/evidence/receipts?sha256=${a.bundle.sha256}`);
      expect(withReceipts.out).toMatch(/^ok {3}receipts: /m);
      // A bare envelope names no bundle: the latest is fetched, and here it is another one.
      served.length = 0;
      expect((await cli("--from", origin, "--endpoint", "nope", "--at", AT)).exit).toBe(EXIT.input);
      const bare = path.join(dir, "bare.json");
      writeFileSync(bare, JSON.stringify(a.envelope));
      expect((await cli("--from", origin, "--endpoint", "ep_cli", "--attestation", bare, "--at", AT)).exit).toBe(EXIT.bundle_hash);
    } finally {
      server.close();
    }
    expect(parseArgs(["--from", "http://h/", "--endpoint", "a b"])).toMatchObject({ opts: { attestation: "http://h/api/endpoints/a%20b/attestation" } });
  });

  it("runs as a user runs it: npx tsx verifier/src/cli.ts, and the package's bin", async () => {
    const exec = promisify(execFile);
    const args = ["--attestation", att, "--bundle", bundle, "--keys", keys, "--at", AT];
    const viaTsx = await exec("npx", ["tsx", "verifier/src/cli.ts", ...args], { cwd: ROOT });
    expect(viaTsx.stdout).toMatch(/^VERIFIED /m);
    const viaBin = await exec(process.execPath, ["verifier/bin/tollgate-verify.mjs", ...args], { cwd: ROOT });
    expect(viaBin.stdout).toMatch(/^VERIFIED /m);
    const refused = await exec(process.execPath, ["verifier/bin/tollgate-verify.mjs", ...args.slice(0, -1), "2030-01-01T00:00:00Z"], { cwd: ROOT }).catch((e) => e);
    expect(refused.code).toBe(EXIT.expired);
    expect(refused.stdout).toMatch(/^REFUSED expired \(exit 14\)/m);
  }, 120_000);
});

describe("the verifier's RFC 8785", () => {
  it("writes what the app's canonical JSON writes, over generated values", () => {
    const r = seeded(11);
    const strings = ["", "a", "é", "\u2028", "\ud83d\ude00", "\u0000\u001f\"\\", "€", "\u00e9\u0065\u0301"];
    const gen = (depth: number): unknown => {
      const k = r();
      if (depth > 3 || k < 0.3) {
        const n = r();
        if (n < 0.2) return strings[Math.floor(r() * strings.length)];
        if (n < 0.4) return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
        if (n < 0.5) return Math.floor(r() * 1e6);
        if (n < 0.6) return r() < 0.5;
        if (n < 0.7) return null;
        return [1e21, 1e-7, -0, 0.1 + 0.2, 5e-324, Number.MAX_SAFE_INTEGER][Math.floor(r() * 6)];
      }
      if (k < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(r() * 5) }, () => [strings[Math.floor(r() * strings.length)] + String.fromCharCode(97 + Math.floor(r() * 26)), gen(depth + 1)]));
    };
    for (let i = 0; i < 2000; i++) {
      const v = gen(0);
      expect(canonicalize(v)).toBe(canonicalJson(v));
    }
    expect(canonicalize({ b: [1e21, -0, 1e-7], a: "\u20ac" })).toBe('{"a":"€","b":[1e+21,0,1e-7]}');
    expect(() => canonicalize({ a: [1, { b: "\ud800" }] })).toThrow("lone surrogate at /a/1/b");
    expect(() => canonicalize({ a: NaN })).toThrow("non-finite number at /a");
  });
});
