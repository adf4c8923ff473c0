/**
 * The conformance corpus: every real challenge and discovery document in test/fixtures/real-world/
 * read by the probe's parsers and drafted by the discovery import, each against the reading its
 * index.json entry gives, and each with its source.
 */
import { readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { draftListingFromUrl } from "@/lib/discovery/import";
import { parseX402 } from "@/lib/x402";
import { loadRubric } from "@/lib/scoring/readiness";
import { validByPolicy } from "@/lib/scoring/readiness/scheme-policy";
import { casePath, CORPUS, corpusIndex, draftReading, parseReading, responseOf } from "./real-world";

const { cases } = corpusIndex();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const c = cases.find((x) => req.url === casePath(x));
    if (!c) return void res.writeHead(404).end();
    const r = responseOf(c);
    res.writeHead(r.status, r.headers).end(r.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());

describe("the corpus", () => {
  it("holds 20+ cases, every file indexed with its source", () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    const files = readdirSync(CORPUS).filter((f) => f !== "index.json");
    expect(files.sort()).toEqual(cases.map((c) => c.file).sort());
    for (const c of cases) {
      expect(c.source.repository, c.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(c.source.commit, c.id).toMatch(/^[0-9a-f]{40}$/);
      expect(c.source.path, c.id).toBeTruthy();
    }
  });
});

describe.each(cases.map((c) => [c.id, c] as const))("%s", (_id, c) => {
  it("the probe's parser reads it as expected", () => {
    expect(parseReading(c)).toEqual(c.expect.parse);
  });
  it("the discovery import drafts it as expected", async () => {
    expect(await draftReading(c, base, (url) => draftListingFromUrl(url, { allowHosts: [new URL(base).host], deadlineMs: 4000 }))).toEqual(c.expect.draft);
  });
});

describe("readiness/1.2.0's scheme policies over the corpus", () => {
  it("Cloudflare's pay-per-crawl challenges (both scheme names) are valid under cloudflare-pay-per-crawl, and no other invalid case is excused", () => {
    const policies = loadRubric("1.2.0").schemePolicies ?? [];
    const excused = cases.filter((c) => c.kind === "x402").flatMap((c) => {
      const r = parseX402(responseOf(c));
      const by = validByPolicy({ challenge: { kind: r.kind, valid: r.valid, requirements: r.requirements }, findings: r.findings }, policies);
      return by ? [`${c.id}: ${by}`] : [];
    });
    expect(excused).toEqual(["x402-batch-settlement-cloudflare-1: cloudflare-pay-per-crawl", "x402-scheme-deferred-cloudflare-1: cloudflare-pay-per-crawl"]);
  });
});
