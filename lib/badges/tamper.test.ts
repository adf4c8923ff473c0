/**
 * Issue 20 item 2, "a badge that shows a fake score verifies": each tamper that the regex-reading
 * verifier accepted, now refused. Every tamper here verified (ok: true) before verification by
 * rendering, strict XML, strict JSON and the superseded verdict, except the statement signed with a
 * score-like label (refused before too, as an unexpected field, and kept to pin the label rule).
 */
import { describe, expect, it } from "vitest";
import { BAND_COLORS } from "./colors";
import { signEnvelope, signStatement, type DsseEnvelope } from "./dsse";
import { publicKeySet, signerFor } from "./keys";
import { readinessValue, renderBadge, renderReadinessBadge } from "./render";
import { bandFor, type BadgeStatement } from "./statement";
import { STATEMENT, fixedKeyring } from "@/test/badges";
import { verifyBadge, type VerifyOptions } from "./verify";
import { canonicalJson } from "./canonical-json";

const keyring = fixedKeyring();
const NOW = new Date("2026-12-03T00:00:00Z");
const opts = (over: Partial<VerifyOptions> = {}): VerifyOptions => ({ keys: publicKeySet(keyring), now: NOW, ...over });
const LOW: BadgeStatement = { ...STATEMENT, result: { ...STATEMENT.result, score: 41, band: bandFor(41) } };
const envelopeFor = (s: BadgeStatement) => signStatement(s, signerFor(keyring));
/** What the route serves for a statement (flat unless said). */
const issued = (s: BadgeStatement, style: "flat" | "flat-square" | "plastic" | "for-the-badge" = "flat") => renderReadinessBadge(s, { style, envelope: envelopeFor(s) });
const metadataOf = (s: BadgeStatement) => JSON.stringify(envelopeFor(s));

describe("the genuine badge still verifies", () => {
  it.each(["flat", "flat-square", "plastic", "for-the-badge"] as const)("%s", async (style) => {
    expect(await verifyBadge(issued(LOW, style), opts())).toMatchObject({ ok: true, verdict: "valid" });
  });
});

describe("label spoof by aria-label", () => {
  it("the accessible name and the label text claim a score the statement does not have", async () => {
    // The old verifier took the label from the aria-label and then allowed it as visible text.
    const spoof = "99 · Excellent";
    const svg = issued(LOW)
      .replaceAll("readiness: 41 · Getting started", `${spoof}: 41 · Getting started`)
      .replaceAll(">readiness</text>", `>${spoof}</text>`);
    expect(svg).not.toBe(issued(LOW));
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("a title prefix in the accessible name claims a score", async () => {
    const svg = issued(LOW).replaceAll("readiness: 41 · Getting started", "Excellent, 99 \u2014 readiness: 41 · Getting started");
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });
});

describe("relayout", () => {
  const base = issued(LOW);
  it.each([
    ["the value text moved (x)", (s: string) => s.replace(/(<text x=")(\d+)(" y="140"[^>]*>41 · Getting started)/, (_m, a, x, b) => `${a}${Number(x) + 400}${b}`)],
    ["the label shrunk to nothing (font-size)", (s: string) => s.replace('font-size="110"', 'font-size="1"')],
    ["the value recoloured as Excellent (fill)", (s: string) => s.replace(`fill="${BAND_COLORS["Getting started"].background}"`, `fill="${BAND_COLORS.Excellent.background}"`)],
    ["the value text hidden (fill-opacity)", (s: string) => s.replace(/(<text x="\d+" y="140") fill=/, '$1 fill-opacity="0" fill=')],
    ["an extra rectangle over the band", (s: string) => s.replace("</g><g text-anchor", '<rect x="63" width="10" height="20" fill="#fff"/></g><g text-anchor')],
    ["the viewBox cropped to the label", (s: string) => s.replace(/viewBox="0 0 \d+ 20"/, 'viewBox="0 0 63 20"')],
  ])("%s", async (_name, edit) => {
    const svg = edit(base);
    expect(svg).not.toBe(base);
    const r = await verifyBadge(svg, opts());
    expect(r).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("harmless re-serialisation is not a relayout: attribute order, character references, <x></x>", async () => {
    const svg = base
      .replace('role="img" aria-label', 'aria-label')
      .replace('<svg ', '<svg role="img" ')
      .replace("<title>readiness", "<title>&#114;eadiness")
      .replace(/<stop offset="1" stop-opacity=".1"\/>/, '<stop offset="1" stop-opacity=".1"></stop>');
    expect(svg).not.toBe(base);
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: true });
  });
});

describe("?label= cannot imitate a score", () => {
  it("a hand-made badge with the label 'readiness 99 · Excellent' around a real envelope", async () => {
    const svg = renderBadge({ style: "flat", label: "readiness 99 · Excellent", value: readinessValue(LOW), color: BAND_COLORS[LOW.result.band], link: LOW.listing.url, metadata: metadataOf(LOW) });
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("a statement signed with such a label (by our own key) is not a badge statement", async () => {
    const labelled = { ...LOW, label: "readiness 99 · Excellent" };
    const env = signEnvelope(Buffer.from(canonicalJson(labelled)), "application/vnd.tollgate.badge-statement+json; version=1", signerFor(keyring));
    const r = await verifyBadge(JSON.stringify(env), opts());
    expect(r).toMatchObject({ ok: false, reason: "statement_invalid" });
    expect(r.checks.at(-1)!.detail).toMatch(/label/);
  });

  it("a signed label verifies; relabelling it (even to a harmless word) does not", async () => {
    const labelled: BadgeStatement = { ...LOW, label: "api" };
    const svg = issued(labelled);
    expect(svg).toContain(">api</text>");
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: true, statement: { label: "api" } });
    expect(await verifyBadge(svg.replaceAll("api", "quality"), opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
    // And the default label on a badge whose statement names another.
    expect(await verifyBadge(svg.replaceAll(">api<", ">readiness<").replaceAll("api: 41", "readiness: 41"), opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });
});

describe("duplicate keys", () => {
  /** An envelope whose JSON names "payload" twice: first a forged payload, then the signed one. */
  function doubledPayload(): string {
    const env = envelopeFor(LOW);
    const forged = Buffer.from(canonicalJson({ ...LOW, result: { ...LOW.result, score: 99, band: "Excellent" } })).toString("base64");
    return `{"payloadType":${JSON.stringify(env.payloadType)},"payload":${JSON.stringify(forged)},"payload":${JSON.stringify(env.payload)},"signatures":${JSON.stringify(env.signatures)}}`;
  }

  it("in the envelope JSON", async () => {
    const r = await verifyBadge(doubledPayload(), opts());
    expect(r).toMatchObject({ ok: false, reason: "envelope_malformed" });
    expect(r.checks.at(-1)!.detail).toMatch(/duplicate key "payload"/);
  });

  it("in the envelope inside an SVG", async () => {
    const svg = issued(LOW).replace(metadataOf(LOW), doubledPayload());
    const r = await verifyBadge(svg, opts());
    expect(r).toMatchObject({ ok: false, reason: "envelope_malformed" });
    expect(r.checks.at(-1)!.detail).toMatch(/duplicate key "payload"/);
  });

  it("in the signed payload", async () => {
    const text = canonicalJson(LOW).replace('"score":41', '"score":99,"score":41');
    const env: DsseEnvelope = signEnvelope(Buffer.from(text), "application/vnd.tollgate.badge-statement+json; version=1", signerFor(keyring));
    const r = await verifyBadge(JSON.stringify(env), opts());
    expect(r).toMatchObject({ ok: false, reason: "statement_invalid" });
    expect(r.checks.at(-1)!.detail).toMatch(/duplicate key "score"/);
  });
});

describe("malformed XML", () => {
  const base = issued(LOW);
  it.each([
    ["an unclosed element", (s: string) => s.replace("</g></a></svg>", "</a></svg>")],
    ["mismatched end tags", (s: string) => s.replace("</linearGradient>", "</clipPath>")],
    ["a repeated attribute", (s: string) => s.replace('role="img"', 'role="img" role="img"')],
    ["a bare ampersand", (s: string) => s.replace('font-family="Verdana', 'font-family="Verdana & Co')],
    ["an unknown entity", (s: string) => s.replace('font-family="Verdana', 'font-family="&nbsp;Verdana')],
    ["text after the root", (s: string) => `${s}99 · Excellent`],
    ["a stylesheet processing instruction", (s: string) => `<?xml-stylesheet href="data:text/css,text{display:none}"?>${s}`],
  ])("%s", async (_name, edit) => {
    const svg = edit(base);
    expect(svg).not.toBe(base);
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "svg_malformed" });
  });
});

describe("superseded", () => {
  it("is its own verdict, not valid, and names the current result", async () => {
    const r = await verifyBadge(issued(LOW), opts({ resultStatus: async () => ({ status: "superseded", currentResultId: "res_02" }) }));
    expect(r).toMatchObject({ ok: false, verdict: "superseded", reason: "result_superseded", currentResultId: "res_02", statement: { result: { id: "res_01" } } });
    expect(r.checks.at(-1)).toMatchObject({ name: "result_status", status: "fail" });
    expect(r.checks.at(-1)!.detail).toMatch(/superseded.*res_02/);
  });
});
