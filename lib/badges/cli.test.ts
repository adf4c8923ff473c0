import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { safeFetch } from "../net";
import { runBadgeVerify, type CliDeps } from "./cli";
import { issueReadinessBadge } from "./issue";
import { WELL_KNOWN_KEYS_PATH, publicKeySet } from "./keys";
import { NOW, PUBLISHED, fixedKeyring } from "@/test/badges";

const keyring = fixedKeyring();
const badge = issueReadinessBadge({ ...PUBLISHED, keyring, style: "flat", now: NOW });
const AT = "2026-12-03T00:00:00Z";

function deps(): CliDeps & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    readFile: (p) => readFile(p, "utf8"),
    safeFetch,
    now: () => new Date(AT),
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
  };
}

let dir: string;
let server: Server;
let origin: string;
let host: string;
let statusRoute: "missing" | "current" | "revoked" | "superseded" = "missing";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "tollgate-badge-cli-"));
  await writeFile(path.join(dir, "badge.svg"), badge.svg);
  await writeFile(path.join(dir, "keys.json"), JSON.stringify(publicKeySet(keyring)));
  await writeFile(path.join(dir, "tampered.svg"), badge.svg.replace(/>96 · Excellent</g, ">99 · Excellent<"));
  // A stand-in catalog on loopback: the badge, the key set, and (optionally) the status route.
  server = createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/badge.svg") return void res.writeHead(200, { "content-type": "image/svg+xml" }).end(badge.svg);
    if (url.pathname === WELL_KNOWN_KEYS_PATH) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(publicKeySet(keyring)));
    if (url.pathname === "/api/badges/status" && statusRoute !== "missing") {
      const body = statusRoute === "superseded" ? { status: statusRoute, currentResultId: "res_02" } : { status: statusRoute, result: url.searchParams.get("result") };
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin = `http://${host}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("badge:verify", () => {
  it("exits 0 with a valid verdict for a file and a key file", async () => {
    const d = deps();
    expect(await runBadgeVerify([path.join(dir, "badge.svg"), "--keys", path.join(dir, "keys.json")], d)).toBe(0);
    const verdict = JSON.parse(d.out.join("\n"));
    expect(verdict).toMatchObject({ valid: true, keyid: keyring.active.keyid, statement: { result: { score: 96, band: "Excellent" } } });
    expect(verdict.notes).toContain("result status not checked (no --base)");
  });

  it("exits 1 with the reason for a tampered badge", async () => {
    const d = deps();
    expect(await runBadgeVerify([path.join(dir, "tampered.svg"), "--keys", path.join(dir, "keys.json")], d)).toBe(1);
    expect(JSON.parse(d.out.join("\n"))).toMatchObject({ valid: false, reason: "visible_mismatch" });
  });

  it("exits 2 on bad usage", async () => {
    for (const argv of [[], ["a.svg"], ["a.svg", "--keys"], ["a.svg", "b.svg", "--keys", "k"], ["a.svg", "--frobnicate", "--keys", "k"], ["a.svg", "--base", "https://x.dev/path"]]) {
      const d = deps();
      expect(await runBadgeVerify(argv, d)).toBe(2);
      expect(d.err.join("\n")).toMatch(/usage:/);
    }
  });

  it("exits 2 when the input cannot be read", async () => {
    const d = deps();
    expect(await runBadgeVerify([path.join(dir, "nope.svg"), "--keys", path.join(dir, "keys.json")], d)).toBe(2);
    expect(d.err.join()).toMatch(/cannot read/);
  });

  it("fetches badge and keys over loopback through safeFetch, saying the status was not checked on 404", async () => {
    statusRoute = "missing";
    const d = deps();
    expect(await runBadgeVerify([`${origin}/badge.svg`, "--base", origin, "--allow-host", host], d)).toBe(0);
    const verdict = JSON.parse(d.out.join("\n"));
    expect(verdict.checks.at(-1)).toMatchObject({ name: "result_status", status: "skipped", detail: expect.stringContaining("404") });
  });

  it("uses the catalog's status route when it exists", async () => {
    statusRoute = "revoked";
    const d = deps();
    expect(await runBadgeVerify([`${origin}/badge.svg`, "--base", origin, "--allow-host", host], d)).toBe(1);
    expect(JSON.parse(d.out.join("\n"))).toMatchObject({ valid: false, reason: "result_revoked" });
    statusRoute = "current";
    const d2 = deps();
    expect(await runBadgeVerify([`${origin}/badge.svg`, "--base", origin, "--allow-host", host], d2)).toBe(0);
  });

  it("a superseded result is its own verdict and exit code 3, not valid (issue 20 item 2)", async () => {
    statusRoute = "superseded";
    const d = deps();
    expect(await runBadgeVerify([`${origin}/badge.svg`, "--base", origin, "--allow-host", host], d)).toBe(3);
    expect(JSON.parse(d.out.join("\n"))).toMatchObject({ valid: false, verdict: "superseded", reason: "result_superseded", currentResultId: "res_02", statement: { result: { id: "res_01" } } });
    statusRoute = "missing";
  });

  it("refuses plain http to a host not allowed (safeFetch's policy), as bad usage", async () => {
    const d = deps();
    expect(await runBadgeVerify([`${origin}/badge.svg`, "--keys", path.join(dir, "keys.json")], d)).toBe(2);
    expect(d.err.join()).toMatch(/refused/);
  });

  it("honours --now", async () => {
    const d = deps();
    expect(await runBadgeVerify([path.join(dir, "badge.svg"), "--keys", path.join(dir, "keys.json"), "--now", "2027-01-01T00:00:00Z"], d)).toBe(1);
    expect(JSON.parse(d.out.join("\n"))).toMatchObject({ reason: "statement_expired" });
  });
});
