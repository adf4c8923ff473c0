/**
 * End to end, over real HTTP on loopback: a published listing's badge is fetched from the route,
 * embedded inline in a plain HTML page on disk, extracted from the page again, and verified by the
 * real `npm run badge:verify` logic (runBadgeVerify with lib/net's safeFetch) against the key set
 * from /.well-known and the result status from /api/badges/status.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as keysRoute } from "@/app/.well-known/tollgate-badge-keys.json/route";
import { GET as statusRoute } from "@/app/api/badges/status/route";
import { POST as verifyRoute } from "@/app/api/badges/verify/route";
import { GET as badgeRoute } from "@/app/badges/[listing]/route";
import { safeFetch } from "@/lib/net";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { runBadgeVerify, type Verdict } from "./cli";
import { addResult, ctx, revoke, seedListing, setCurrent, tempKeyring } from "@/test/badges-db";
import { rotateKey, type Keyring } from "./keys";
import { setBadgeKeyring } from "./server";

let tdb: TestDatabase;
let keyring: Keyring;
let server: http.Server;
let base: string;
let hostPort: string;
const dir = mkdtempSync(path.join(os.tmpdir(), "tollgate-badge-e2e-"));
const requests: string[] = [];

/** The routes as Next would mount them, behind a bare node:http server. */
async function dispatch(req: Request): Promise<Response> {
  const { pathname } = new URL(req.url);
  const badge = /^\/badges\/([^/]+)$/.exec(pathname);
  if (badge && req.method === "GET") return badgeRoute(req, ctx({ listing: decodeURIComponent(badge[1]) }));
  if (pathname === "/.well-known/tollgate-badge-keys.json" && req.method === "GET") return keysRoute(req);
  if (pathname === "/api/badges/status" && req.method === "GET") return statusRoute(req);
  if (pathname === "/api/badges/verify" && req.method === "POST") return verifyRoute(req);
  return new Response("not found", { status: 404 });
}

beforeAll(async () => {
  tdb = await createTestDatabase();
  keyring = await tempKeyring();
  setBadgeKeyring(keyring);
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      requests.push(`${req.method} ${req.url}`);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const response = await dispatch(new Request(`${base}${req.url}`, { method: req.method, headers, body }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `http://${hostPort}`;
  // The badge links to the configured origin, never the request's: configure this server's.
  process.env.TOLLGATE_PUBLIC_URL = base;
});

afterAll(async () => {
  setBadgeKeyring(undefined);
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await tdb?.close();
});

/** Run the real CLI main; returns its exit code and verdict. */
async function cli(file: string): Promise<{ code: number; verdict: Verdict | null; stderr: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runBadgeVerify([file, "--base", base, "--allow-host", hostPort], {
    readFile: (p) => readFile(p, "utf8"),
    safeFetch,
    now: () => new Date(),
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
  });
  return { code, verdict: out.length ? (JSON.parse(out.join("\n")) as Verdict) : null, stderr: err };
}

/** The same, through the npm script's entry point in a child process (exit code and stdout). */
function cliProcess(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.join(process.cwd(), "node_modules", ".bin", "tsx"), ["scripts/badge-verify.ts", file, "--base", base, "--allow-host", hostPort], { cwd: process.cwd(), timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

/** A web page that embeds the badge inline (an <img> would not keep the metadata in the page). */
function writePage(name: string, svg: string): string {
  const file = path.join(dir, `${name}.html`);
  writeFileSync(file, `<!doctype html>\n<html><head><meta charset="utf-8"><title>Our API</title></head><body>\n<h1>Our API</h1>\n<p>Readiness:</p>\n${svg}\n<p>Thanks for reading.</p>\n</body></html>\n`);
  return file;
}

/** What a verifier does with a page: take the inline <svg> out of it again, byte for byte. */
function extractBadge(htmlFile: string, name: string): string {
  const html = readFileSync(htmlFile, "utf8");
  const svgs = html.match(/<svg\b[\s\S]*?<\/svg>/g) ?? [];
  expect(svgs).toHaveLength(1);
  const file = path.join(dir, `${name}.svg`);
  writeFileSync(file, svgs[0]!);
  return file;
}

describe("badge → HTML page → badge:verify, over HTTP", () => {
  it("verifies, tracks supersession, and stops verifying once revoked", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 92 }] });
    const res = await fetch(`${base}/badges/${l.slug}.svg?style=flat-square`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    const svg = await res.text();

    const page = writePage("listing", svg);
    expect(readFileSync(page, "utf8")).toContain('<metadata id="tollgate-badge-envelope">');
    const extracted = extractBadge(page, "listing");
    expect(readFileSync(extracted, "utf8")).toBe(svg);

    requests.length = 0;
    let r = await cli(extracted);
    expect(r.stderr).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.verdict).toMatchObject({ valid: true, keyid: keyring.active.keyid, statement: { listing: { id: l.id, slug: l.slug, url: `${base}/listings/${l.slug}` }, result: { id: l.resultIds[0], score: 92, band: "Excellent" } } });
    expect(r.verdict!.checks.map((c) => c.status)).toEqual(Array(11).fill("pass"));
    expect(r.verdict!.checks.at(-1)!.detail).toMatch(/current/);
    // The CLI really asked our routes.
    expect(requests).toEqual([`GET /.well-known/tollgate-badge-keys.json`, `GET /api/badges/status?result=${l.resultIds[0]}&listing=${l.id}`]);

    // And the npm script itself, as a user would run it.
    const child = await cliProcess(extracted);
    expect(child.stderr).toBe("");
    expect(child.code).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ valid: true, statement: { result: { id: l.resultIds[0] } } });

    // A re-analysis: the old badge in the page is authentic but superseded, which is not valid
    // (issue 20 item 2; it used to exit 0 as valid): exit 3, naming the newer result.
    const newer = await addResult(tdb.prisma, l.id, { total: 94 });
    await setCurrent(tdb.prisma, l.id, newer);
    r = await cli(extracted);
    expect(r.code).toBe(3);
    expect(r.verdict).toMatchObject({ valid: false, verdict: "superseded", reason: "result_superseded", currentResultId: newer });
    expect(r.verdict!.checks.at(-1)!.detail).toMatch(/superseded/);

    // A moderator revokes it: the same page no longer verifies.
    await revoke(tdb.prisma, l.resultIds[0]);
    r = await cli(extracted);
    expect(r.code).toBe(1);
    expect(r.verdict).toMatchObject({ valid: false, reason: "result_revoked" });
  });

  it("a page badge from before a key rotation still verifies through the CLI and the verify route", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 66 }] });
    const svg = await (await fetch(`${base}/badges/${l.slug}.svg`)).text();
    const extracted = extractBadge(writePage("rotation", svg), "rotation");
    setBadgeKeyring(rotateKey(keyring, { now: new Date() }));
    try {
      const r = await cli(extracted);
      expect(r.code).toBe(0);
      expect(r.verdict).toMatchObject({ valid: true, keyid: keyring.active.keyid });
      const posted = await fetch(`${base}/api/badges/verify`, { method: "POST", headers: { "content-type": "image/svg+xml" }, body: readFileSync(extracted) });
      expect(await posted.json()).toMatchObject({ ok: true, keyid: keyring.active.keyid });
    } finally {
      setBadgeKeyring(keyring);
    }
  });

  it("a tampered page badge fails, an unscored one has nothing to verify", async () => {
    const l = await seedListing(tdb.prisma, { results: [{ total: 55 }] });
    const svg = await (await fetch(`${base}/badges/${l.slug}.svg`)).text();
    const forged = extractBadge(writePage("forged", svg.replaceAll("55 · Getting started", "95 · Excellent")), "forged");
    expect(await cli(forged)).toMatchObject({ code: 1, verdict: { valid: false, reason: "visible_mismatch" } });

    const none = await seedListing(tdb.prisma, {});
    const unscored = extractBadge(writePage("unscored", await (await fetch(`${base}/badges/${none.slug}.svg`)).text()), "unscored");
    expect(await cli(unscored)).toMatchObject({ code: 1, verdict: { valid: false, reason: "envelope_missing" } });
  });
});
