/**
 * The conformance corpus (test/fixtures/real-world/): each case's bytes as a server sends them, and
 * the reading the probe's parsers and the discovery import give it. test/real-world.test.ts holds
 * every reading against the one written in index.json.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { mppRequirement, parseMpp } from "@/lib/mpp";
import { parseX402 } from "@/lib/x402";
import { readWellKnown } from "@/lib/discovery/import-sources";

export const CORPUS = path.join(__dirname, "fixtures/real-world");
/** The corpus is read at a fixed instant, so an expiry reads the same every day. */
export const CORPUS_NOW = new Date("2026-12-05T00:00:00Z");

export interface CorpusCase {
  id: string;
  file: string;
  kind: "x402" | "mpp" | "well-known" | "discovery-list";
  transport: "payment-required-header" | "body" | "www-authenticate" | "well-known-x402";
  source: { repository: string; commit: string; path: string; block?: number | string };
  expect: { parse: unknown; draft: unknown };
}

export function corpusIndex(): { about: string; cases: CorpusCase[] } {
  return JSON.parse(readFileSync(path.join(CORPUS, "index.json"), "utf8"));
}

export const payloadOf = (c: Pick<CorpusCase, "file">): unknown => JSON.parse(readFileSync(path.join(CORPUS, c.file), "utf8"));

/** The HTTP answer a server sends for a challenge case (status, headers, body). */
export function responseOf(c: CorpusCase): { status: number; headers: Record<string, string>; body: string } {
  const p = payloadOf(c) as Record<string, unknown>;
  if (c.transport === "payment-required-header") return { status: 402, headers: { "payment-required": encodePaymentRequiredHeader(p as unknown as PaymentRequired), "content-type": "application/json" }, body: "{}" };
  if (c.transport === "body") return { status: 402, headers: { "content-type": "application/json" }, body: JSON.stringify(p) };
  if (c.transport === "www-authenticate") return { status: 402, headers: { "www-authenticate": String(p["www-authenticate"]), "content-type": "application/problem+json" }, body: "{}" };
  return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(p) };
}

const failing = (fs: Array<{ check: string; severity: string; code: string }>) => [...new Set(fs.filter((f) => f.severity === "fail").map((f) => `${f.check}:${f.code}`))].sort();

/** What the probe's parsers read from one case. */
export function parseReading(c: CorpusCase): unknown {
  if (c.kind === "x402") {
    const r = parseX402(responseOf(c));
    return { kind: r.kind, valid: r.valid, networks: (r.requirements ?? []).map((q) => q.network), schemes: (r.requirements ?? []).map((q) => q.scheme), failing: failing(r.findings), bazaar: r.bazaarReading ?? null };
  }
  if (c.kind === "mpp") {
    const r = parseMpp({ headers: responseOf(c).headers }, { now: CORPUS_NOW });
    return { offered: r.offered, parsed: r.challenges.length, valid: r.valid, methods: r.challenges.map((x) => x.method), networks: r.challenges.map((x) => mppRequirement(x).network), failing: failing(r.findings) };
  }
  const w = readWellKnown(payloadOf(c));
  return { resources: w.resources.map((r) => `${r.method ?? "?"} ${r.ref}`), warnings: w.warnings.length };
}

/** Where the corpus server serves a case: a challenge at `/<id>/api`, a discovery document at `/<id>/.well-known/x402`. */
export const casePath = (c: CorpusCase) => (c.kind === "x402" || c.kind === "mpp" ? `/${c.id}/api` : `/${c.id}/.well-known/x402`);

/** What the discovery import drafts from the case's URL (the endpoint, or the site whose well-known it is). */
export async function draftReading(c: CorpusCase, baseUrl: string, draft: (url: string) => Promise<import("@/lib/discovery/import").DraftResult>): Promise<unknown> {
  const url = c.kind === "x402" || c.kind === "mpp" ? `${baseUrl}${casePath(c)}` : `${baseUrl}/${c.id}`;
  const r = await draft(url);
  if (!r.ok) return { ok: false, refusal: "refusal" in r ? r.refusal : r.error };
  return {
    protocols: r.draft.protocols,
    networks: r.draft.networks,
    endpoints: r.draft.endpoints.map((e) => `${e.method} ${e.path.replace(`/${c.id}`, "")} ${e.payable} ${e.pricing?.usd ?? "-"}`),
    warnings: r.warnings.filter((w) => /well_known_entry_invalid|not under|quotes no asset|MPP challenge prices|without a readable/.test(w)).map((w) => w.replace(baseUrl, "<base>").replace(/\s\(.*$/, "")),
  };
}
