import { describe, expect, it } from "vitest";
import { signEnvelope, signStatement, type DsseEnvelope } from "./dsse";
import { publicKeySet, rotateKey, signerFor, type Keyring } from "./keys";
import { renderReadinessBadge } from "./render";
import { bandFor, type BadgeStatement } from "./statement";
import { STATEMENT, fixedKeyring } from "@/test/badges";
import { verifyBadge, type VerifyOptions } from "./verify";
import { canonicalJson } from "./canonical-json";

const keyring = fixedKeyring();
const NOW = new Date("2026-12-03T00:00:00Z");
const opts = (over: Partial<VerifyOptions> = {}): VerifyOptions => ({ keys: publicKeySet(keyring), now: NOW, ...over });
const envelopeFor = (s: BadgeStatement = STATEMENT, kr: Keyring = keyring) => signStatement(s, signerFor(kr));
// No title: a title would be unsigned text in the badge's accessible name (issue 20 item 2), so a
// signed badge has none and the renderer refuses one.
const svgFor = (s: BadgeStatement = STATEMENT, kr: Keyring = keyring, style: "flat" | "for-the-badge" = "flat") =>
  renderReadinessBadge(s, { style, envelope: envelopeFor(s, kr) });

describe("round trip", () => {
  it("verifies a signed SVG and reports every check", async () => {
    const r = await verifyBadge(svgFor(), opts());
    expect(r).toMatchObject({ ok: true, keyid: keyring.active.keyid, input: "svg", statement: STATEMENT });
    expect(r.checks.map((c) => [c.name, c.status])).toEqual([
      ["input", "pass"],
      ["envelope", "pass"],
      ["payload_type", "pass"],
      ["key", "pass"],
      ["signature", "pass"],
      ["statement", "pass"],
      ["key_validity", "pass"],
      ["not_before", "pass"],
      ["expiry", "pass"],
      ["visible", "pass"],
      ["result_status", "skipped"],
    ]);
  });

  it("verifies for-the-badge (capitals) too", async () => {
    expect(await verifyBadge(svgFor(STATEMENT, keyring, "for-the-badge"), opts())).toMatchObject({ ok: true });
  });

  it("verifies a bare envelope, with the visible check skipped", async () => {
    const r = await verifyBadge(JSON.stringify(envelopeFor()), opts());
    expect(r).toMatchObject({ ok: true, input: "envelope" });
    expect(r.checks.find((c) => c.name === "visible")?.status).toBe("skipped");
  });
});

/** Re-sign nothing: edit the envelope inside an SVG and put it back. */
function withEnvelope(svg: string, edit: (e: DsseEnvelope) => DsseEnvelope): string {
  const m = /<metadata id="tollgate-badge-envelope">([^<]*)<\/metadata>/.exec(svg)!;
  const env = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, "&")) as DsseEnvelope;
  const json = JSON.stringify(edit(env)).replace(/&/g, "&amp;");
  return svg.replace(m[1], json);
}

function flipByte(b64: string, index: number): string {
  const bytes = Buffer.from(b64, "base64");
  bytes[index] ^= 0x01;
  return bytes.toString("base64");
}

describe("tampering fails", () => {
  it("one changed byte in the payload", async () => {
    const svg = withEnvelope(svgFor(), (e) => ({ ...e, payload: flipByte(e.payload, 200) }));
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "signature_invalid" });
  });

  it("a payload re-scored to 99 without re-signing", async () => {
    const forged = { ...STATEMENT, result: { ...STATEMENT.result, score: 99 } };
    const svg = withEnvelope(svgFor(), (e) => ({ ...e, payload: Buffer.from(canonicalJson(forged)).toString("base64") }));
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "signature_invalid" });
  });

  it("the payload type (changing it is refused before the signature is even tried)", async () => {
    const env = envelopeFor();
    expect(await verifyBadge(JSON.stringify({ ...env, payloadType: "application/vnd.in-toto+json" }), opts())).toMatchObject({ ok: false, reason: "payload_type_unexpected" });
  });

  it("the payload type, signed honestly as another type by our own key (no type confusion)", async () => {
    const env = signEnvelope(Buffer.from(canonicalJson(STATEMENT)), "application/json", signerFor(keyring));
    expect(await verifyBadge(JSON.stringify(env), opts())).toMatchObject({ ok: false, reason: "payload_type_unexpected" });
  });

  it("one changed byte in the signature", async () => {
    for (const i of [0, 31, 63]) {
      const svg = withEnvelope(svgFor(), (e) => ({ ...e, signatures: [{ ...e.signatures[0], sig: flipByte(e.signatures[0].sig, i) }] }));
      expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "signature_invalid" });
    }
  });

  it("a signature moved to another payload type byte-for-byte is still bound to PAE", async () => {
    const env = envelopeFor();
    const other = signEnvelope(Buffer.from(canonicalJson(STATEMENT)), "x", signerFor(keyring));
    expect(await verifyBadge(JSON.stringify({ ...env, signatures: other.signatures }), opts())).toMatchObject({ ok: false, reason: "signature_invalid" });
  });

  it("an envelope that is not JSON, has extra fields, or non-canonical base64", async () => {
    expect(await verifyBadge("{not json", opts())).toMatchObject({ ok: false, reason: "envelope_malformed" });
    expect(await verifyBadge(JSON.stringify({ ...envelopeFor(), extra: 1 }), opts())).toMatchObject({ ok: false, reason: "envelope_malformed" });
    const env = envelopeFor();
    expect(await verifyBadge(JSON.stringify({ ...env, payload: env.payload.replace(/=+$/, "") }), opts())).toMatchObject({ ok: false, reason: "envelope_malformed" });
  });
});

describe("keys and time", () => {
  it("a valid envelope under an unknown key", async () => {
    const stranger = fixedKeyring("11".repeat(32));
    expect(await verifyBadge(svgFor(STATEMENT, stranger), opts())).toMatchObject({ ok: false, reason: "unknown_key" });
  });

  it("a stranger's key claiming our keyid", async () => {
    const stranger = fixedKeyring("11".repeat(32));
    const env = signStatement(STATEMENT, { keyid: keyring.active.keyid, privateKey: stranger.active.privateKey });
    expect(await verifyBadge(JSON.stringify(env), opts())).toMatchObject({ ok: false, reason: "signature_invalid" });
  });

  it("an expired statement", async () => {
    const r = await verifyBadge(svgFor(), opts({ now: new Date("2026-12-09T10:00:00Z") }));
    expect(r).toMatchObject({ ok: false, reason: "statement_expired" });
  });

  it("a statement issued in the future", async () => {
    expect(await verifyBadge(svgFor(), opts({ now: new Date("2026-12-02T09:00:00Z") }))).toMatchObject({ ok: false, reason: "statement_not_yet_valid" });
  });

  it("a statement claiming a lifetime beyond 30 days", async () => {
    const long = { ...STATEMENT, expiresAt: "2027-06-01T00:00:00Z" };
    expect(await verifyBadge(svgFor(long), opts())).toMatchObject({ ok: false, reason: "statement_invalid" });
  });

  it("a rotated-out key after its validity, while its earlier badges still verify", async () => {
    const rotated = rotateKey(keyring, { now: new Date("2026-12-05T00:00:00Z"), graceSeconds: 0, privateKey: fixedKeyring("22".repeat(32)).active.privateKey });
    const keys = publicKeySet(rotated);
    const later = new Date("2026-12-06T00:00:00Z");
    // Signed before the rotation: still good until its own expiry.
    expect(await verifyBadge(svgFor(), { keys, now: later })).toMatchObject({ ok: true, keyid: keyring.active.keyid });
    // The old key (say, leaked) signing something new after its notAfter: refused.
    const afterwards = { ...STATEMENT, issuedAt: "2026-12-05T12:00:00Z", expiresAt: "2026-12-12T12:00:00Z" };
    expect(await verifyBadge(svgFor(afterwards), { keys, now: later })).toMatchObject({ ok: false, reason: "key_not_valid_at_issue" });
    // The new key signs the same statement fine.
    expect(await verifyBadge(svgFor(afterwards, rotated), { keys, now: later })).toMatchObject({ ok: true, keyid: rotated.active.keyid });
  });

  it("a statement issued before the key's notBefore", async () => {
    const early = { ...STATEMENT, issuedAt: "2025-12-31T00:00:00Z", expiresAt: "2026-01-07T00:00:00Z" };
    expect(await verifyBadge(svgFor(early), opts({ now: new Date("2026-01-01T00:00:00Z") }))).toMatchObject({ ok: false, reason: "key_not_valid_at_issue" });
  });
});

describe("what the SVG shows", () => {
  it("an SVG whose visible score differs from its signed one", async () => {
    const svg = svgFor().replace(/>96 · Excellent<\/text>/g, ">99 · Excellent</text>");
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("an SVG whose band alone was changed", async () => {
    const svg = svgFor().replace(/>96 · Excellent</g, ">96 · Ready<");
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("an SVG whose accessible name was changed", async () => {
    const svg = svgFor().replace(/readiness: 96 · Excellent/g, "readiness: 100 · Excellent");
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("a signed envelope pasted into another listing's lower-scored badge", async () => {
    const low = { ...STATEMENT, result: { ...STATEMENT.result, score: 41, band: bandFor(41) } };
    const lowSvg = renderReadinessBadge(low, { style: "flat", link: null });
    const pasted = lowSvg.replace("</title>", `</title><metadata id="tollgate-badge-envelope">${JSON.stringify(envelopeFor()).replace(/"/g, "&quot;")}</metadata>`);
    expect(await verifyBadge(pasted, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("added visible text by other means (<tspan>, <foreignObject>, a second <text>)", async () => {
    const svg = svgFor();
    expect(await verifyBadge(svg.replace("</g></a></svg>", "<text><tspan>100</tspan></text></g></a></svg>"), opts())).toMatchObject({ ok: false, reason: "envelope_missing" });
    expect(await verifyBadge(svg.replace("</a></svg>", "<foreignObject>100</foreignObject></a></svg>"), opts())).toMatchObject({ ok: false });
    expect(await verifyBadge(svg.replace("</g></a></svg>", '<text x="1">100 · Excellent</text></g></a></svg>'), opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("a link redirected away from the signed listing page", async () => {
    const svg = svgFor().replace(/https:\/\/tollgate\.dev\/catalog\/acme-weather/g, "https://evil.example/acme");
    expect(await verifyBadge(svg, opts())).toMatchObject({ ok: false, reason: "visible_mismatch" });
  });

  it("an unsigned (unscored) badge has no envelope", async () => {
    expect(await verifyBadge(renderReadinessBadge(null, { style: "flat" }), opts())).toMatchObject({ ok: false, reason: "envelope_missing" });
  });

  it("two envelopes in one SVG", async () => {
    const svg = svgFor();
    const meta = /<metadata[\s\S]*?<\/metadata>/.exec(svg)![0];
    expect(await verifyBadge(svg.replace(meta, meta + meta), opts())).toMatchObject({ ok: false, reason: "envelope_missing" });
  });

  it("survives an optimiser's XML declaration and comments", async () => {
    expect(await verifyBadge(`<?xml version="1.0" encoding="UTF-8"?>\n<!-- cached -->${svgFor()}`, opts())).toMatchObject({ ok: true });
  });

  it("refuses a DOCTYPE (entity tricks)", async () => {
    expect(await verifyBadge(`<!DOCTYPE svg [<!ENTITY x "96">]>${svgFor()}`, opts())).toMatchObject({ ok: false });
  });
});

describe("result status", () => {
  it.each([
    ["current", true, undefined],
    ["superseded", false, "result_superseded"], // was valid: exactly the bug of issue 20 item 2
    ["revoked", false, "result_revoked"],
    ["unknown", false, "result_unknown"],
  ] as const)("%s", async (status, ok, reason) => {
    const calls: string[][] = [];
    const r = await verifyBadge(svgFor(), opts({ resultStatus: async (res, lst) => (calls.push([res, lst]), status) }));
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(r.reason).toBe(reason);
    expect(calls).toEqual([["res_01", "lst_01"]]);
  });

  it("a source that cannot say is reported as skipped, not passed", async () => {
    const r = await verifyBadge(svgFor(), opts({ resultStatus: async () => ({ unchecked: "404" }) }));
    expect(r.ok).toBe(true);
    expect(r.checks.at(-1)).toEqual({ name: "result_status", status: "skipped", detail: "status not checked: 404" });
  });

  it("a failing source is result_status_unavailable", async () => {
    const r = await verifyBadge(svgFor(), opts({ resultStatus: async () => Promise.reject(new Error("down")) }));
    expect(r).toMatchObject({ ok: false, reason: "result_status_unavailable" });
  });
});

it("refuses input that is neither SVG nor JSON", async () => {
  expect(await verifyBadge("hello", opts())).toMatchObject({ ok: false, reason: "input_unrecognised" });
});

describe("a badge pasted into an HTML page", () => {
  const page = (body: string) => `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Acme docs</title></head><body><h1>Acme</h1>${body}</body></html>`;

  it("verifies the inline badge of a plain HTML page (DOCTYPE and all)", async () => {
    const r = await verifyBadge(page(`<p>Readiness: ${svgFor()}</p>`), opts());
    expect(r).toMatchObject({ ok: true, statement: STATEMENT });
    expect(r.checks[0].detail).toMatch(/inline in an HTML page/);
  });

  it("still catches a tampered badge inside the page", async () => {
    const tampered = svgFor().replace(/96/g, "99");
    expect(await verifyBadge(page(tampered), opts())).toMatchObject({ ok: false });
  });

  it("says so when the page holds no signed badge, or more than one", async () => {
    expect(await verifyBadge(page("<p>no badge</p>"), opts())).toMatchObject({ ok: false, reason: "envelope_missing" });
    expect(await verifyBadge(page(svgFor() + svgFor()), opts())).toMatchObject({ ok: false, reason: "input_unrecognised" });
  });
});
