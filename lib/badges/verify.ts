/** Verifying a badge against a published key set: ordered checks to the first failure's reason code (docs/BADGES.md "Verification"). */
import { BADGE_PAYLOAD_TYPE, decodeBase64Strict, ed25519PublicKeyFromRaw, parseEnvelope, verifyPae, type DsseEnvelope } from "./dsse";
import { canonicalJson } from "./canonical-json";
import type { PublicBadgeKey, PublicKeySet } from "./keys";
import { DEFAULT_LABEL } from "./label";
import { BADGE_STYLES, ENVELOPE_METADATA_ID, readinessValue, renderReadinessBadge, type BadgeStyle } from "./render";
import { MAX_TTL_SECONDS, statementShapeError, type BadgeStatement } from "./statement";
import { parseJsonStrict } from "./strict-json";
import { elements, parseXmlStrict, textContent, xmlTreeDifference, type XmlNode } from "./xml-parse";

export type VerifyReason =
  | "input_unrecognised"
  | "svg_malformed"
  | "envelope_missing"
  | "envelope_malformed"
  | "payload_type_unexpected"
  | "unknown_key"
  | "signature_invalid"
  | "statement_invalid"
  | "key_not_valid_at_issue"
  | "statement_not_yet_valid"
  | "statement_expired"
  | "visible_mismatch"
  | "result_superseded"
  | "result_revoked"
  | "result_unknown"
  | "result_status_unavailable";

export type CheckName =
  | "input"
  | "envelope"
  | "payload_type"
  | "key"
  | "signature"
  | "statement"
  | "key_validity"
  | "not_before"
  | "expiry"
  | "visible"
  | "result_status";

export interface Check {
  name: CheckName;
  status: "pass" | "fail" | "skipped";
  detail: string;
}

export type ResultStatus = "current" | "superseded" | "revoked" | "unknown";

export type ResultStatusAnswer = ResultStatus | { status: ResultStatus; currentResultId?: string | null } | { unchecked: string };

export interface VerifyOptions {
  keys: PublicKeySet;
  now: Date;
  /** Whether the signed result is still current; "unchecked" is reported as skipped, not passed. */
  resultStatus?: (resultId: string, listingId: string) => Promise<ResultStatusAnswer>;
  clockSkewSeconds?: number;
}

export type VerifyResult =
  | { ok: true; verdict: "valid"; statement: BadgeStatement; keyid: string; input: "svg" | "envelope"; checks: Check[] }
  | { ok: false; verdict: "superseded"; reason: "result_superseded"; statement: BadgeStatement; keyid: string; input: "svg" | "envelope"; currentResultId: string | null; checks: Check[] }
  | { ok: false; verdict: "invalid"; reason: VerifyReason; checks: Check[] };

const DEFAULT_SKEW_SECONDS = 300;
export const MAX_INPUT_BYTES = 256 * 1024;

export async function verifyBadge(input: string, opts: VerifyOptions): Promise<VerifyResult> {
  const checks: Check[] = [];
  const pass = (name: CheckName, detail: string) => void checks.push({ name, status: "pass", detail });
  const fail = (reason: VerifyReason, name: CheckName, detail: string): VerifyResult => {
    checks.push({ name, status: "fail", detail });
    return { ok: false, verdict: "invalid", reason, checks };
  };

  // 1. What were we given?
  if (input.length > MAX_INPUT_BYTES) return fail("input_unrecognised", "input", `input larger than ${MAX_INPUT_BYTES} bytes`);
  let text = input.replace(/^\uFEFF/, "").trim();
  let svg: XmlNode | null = null;
  let envelopeText: string;
  // A badge pasted into an HTML page is verified inside it; SVG strictness applies to the badge only.
  let fromPage = false;
  if (/^<!doctype html|^<html[\s>]/i.test(text)) {
    const badges = [...text.matchAll(/<svg\b[\s\S]*?<\/svg>/g)].map((m) => m[0]).filter((x) => x.includes(`id="${ENVELOPE_METADATA_ID}"`));
    if (badges.length === 0) return fail("envelope_missing", "input", "the HTML page holds no signed Tollgate badge (an inline <svg> with its envelope)");
    if (badges.length > 1) return fail("input_unrecognised", "input", `the HTML page holds ${badges.length} signed badges; verify them one at a time`);
    text = badges[0];
    fromPage = true;
  }
  if (text.startsWith("<")) {
    let root: XmlNode;
    try {
      root = parseXmlStrict(text);
    } catch (e) {
      return fail("svg_malformed", "input", `the SVG is not well-formed XML: ${(e as Error).message}`);
    }
    const read = readSvg(root);
    if (typeof read === "string") return fail("envelope_missing", "input", read);
    if (read.envelopeText === null) return fail("envelope_missing", "input", "the SVG has no <metadata> envelope (an unscored or unsigned badge)");
    svg = root;
    envelopeText = read.envelopeText;
    pass("input", fromPage ? "SVG badge (inline in an HTML page) with an embedded envelope" : "SVG badge with an embedded envelope");
  } else if (text.startsWith("{")) {
    envelopeText = text;
    pass("input", "DSSE envelope JSON");
  } else {
    return fail("input_unrecognised", "input", "expected an SVG badge or DSSE envelope JSON");
  }

  // 2. Envelope shape.
  const parsed = parseEnvelope(envelopeText);
  if (!parsed.ok) return fail("envelope_malformed", "envelope", parsed.message);
  const { envelope, payload } = parsed;
  pass("envelope", `${envelope.signatures.length} signature(s)`);

  // 3. Payload type (signed, but only badge statements are accepted).
  if (envelope.payloadType !== BADGE_PAYLOAD_TYPE) return fail("payload_type_unexpected", "payload_type", `got ${JSON.stringify(envelope.payloadType)}`);
  pass("payload_type", BADGE_PAYLOAD_TYPE);

  // 4–5. A signature by a published key; keyid is an unauthenticated hint.
  const byId = new Map<string, PublicBadgeKey>(opts.keys.keys.map((k) => [k.keyid, k]));
  const candidates = envelope.signatures.filter((s) => byId.has(s.keyid));
  if (candidates.length === 0) return fail("unknown_key", "key", `no signature by a published key (keyids: ${envelope.signatures.map((s) => s.keyid).join(", ")})`);
  pass("key", `published key(s): ${candidates.map((s) => s.keyid).join(", ")}`);
  const good = candidates.find((s) => verifySig(envelope, payload, s.sig, byId.get(s.keyid)!));
  if (!good) return fail("signature_invalid", "signature", "no signature verifies over PAE(payloadType, payload)");
  const key = byId.get(good.keyid)!;
  pass("signature", `Ed25519 signature by ${key.keyid} verifies`);

  // 6. The statement, now authenticated; repeated member names refused.
  let statement: BadgeStatement;
  try {
    const value: unknown = parseJsonStrict(payload.toString("utf8"));
    const shape = statementShapeError(value);
    if (shape) return fail("statement_invalid", "statement", shape);
    statement = value as BadgeStatement;
    if (canonicalJson(statement) !== payload.toString("utf8")) return fail("statement_invalid", "statement", "payload is not canonical JSON");
  } catch (e) {
    return fail("statement_invalid", "statement", `payload is not JSON: ${(e as Error).message}`);
  }
  const issuedMs = Date.parse(statement.issuedAt);
  const expiresMs = Date.parse(statement.expiresAt);
  if (expiresMs <= issuedMs || expiresMs - issuedMs > MAX_TTL_SECONDS * 1000) {
    return fail("statement_invalid", "statement", `lifetime must be within (0, ${MAX_TTL_SECONDS}s]`);
  }
  pass("statement", `listing ${statement.listing.slug}, result ${statement.result.id}, ${readinessValue(statement)}`);

  // 7. The key was valid at issue (a rotated-out key cannot sign new ones).
  const nb = Date.parse(key.notBefore);
  const na = key.notAfter === null ? Infinity : Date.parse(key.notAfter);
  if (issuedMs < nb || issuedMs > na) {
    return fail("key_not_valid_at_issue", "key_validity", `issued ${statement.issuedAt}, key ${key.keyid} valid ${key.notBefore} – ${key.notAfter ?? "open"}`);
  }
  pass("key_validity", `key ${key.keyid} (${key.status}) valid at ${statement.issuedAt}`);

  // 8–9. Time.
  const nowMs = opts.now.getTime();
  const skew = (opts.clockSkewSeconds ?? DEFAULT_SKEW_SECONDS) * 1000;
  if (issuedMs > nowMs + skew) return fail("statement_not_yet_valid", "not_before", `issued ${statement.issuedAt}, now ${opts.now.toISOString()}`);
  pass("not_before", `issued ${statement.issuedAt}`);
  if (expiresMs <= nowMs) return fail("statement_expired", "expiry", `expired ${statement.expiresAt}; fetch the badge again for a fresh statement`);
  pass("expiry", `valid until ${statement.expiresAt}`);

  // 10. What the SVG shows is what was signed.
  if (svg) {
    const rendered = sameAsRendered(svg, statement, envelope);
    if (!rendered.ok) return fail("visible_mismatch", "visible", rendered.detail);
    pass("visible", `identical to the ${rendered.style} badge rendered from the statement: "${statement.label ?? DEFAULT_LABEL}: ${readinessValue(statement)}", linking to ${statement.listing.url}`);
  } else {
    checks.push({ name: "visible", status: "skipped", detail: "envelope only: nothing visible to compare" });
  }

  // 11. The catalog still stands behind the result.
  const inputKind = svg ? "svg" : "envelope";
  if (opts.resultStatus) {
    let answer: ResultStatusAnswer;
    try {
      answer = await opts.resultStatus(statement.result.id, statement.listing.id);
    } catch (e) {
      return fail("result_status_unavailable", "result_status", `status lookup failed: ${(e as Error).message}`);
    }
    if (typeof answer === "object" && "unchecked" in answer) {
      checks.push({ name: "result_status", status: "skipped", detail: `status not checked: ${answer.unchecked}` });
      return { ok: true, verdict: "valid", statement, keyid: key.keyid, input: inputKind, checks };
    }
    const status = typeof answer === "string" ? answer : answer.status;
    const currentResultId = typeof answer === "string" ? null : (answer.currentResultId ?? null);
    if (status === "revoked") return fail("result_revoked", "result_status", `result ${statement.result.id} was revoked`);
    if (status === "unknown") return fail("result_unknown", "result_status", `the catalog does not know result ${statement.result.id} for listing ${statement.listing.id}`);
    if (status === "superseded") {
      checks.push({
        name: "result_status",
        status: "fail",
        detail: `superseded: a newer analysis replaced result ${statement.result.id}${currentResultId ? ` (the listing's current result is ${currentResultId})` : ""}; the badge is authentic but its score is out of date`,
      });
      return { ok: false, verdict: "superseded", reason: "result_superseded", statement, keyid: key.keyid, input: inputKind, currentResultId, checks };
    }
    if (status !== "current") return fail("result_status_unavailable", "result_status", `the status source answered ${JSON.stringify(status)}`);
    pass("result_status", "the listing's current result");
  } else {
    checks.push({ name: "result_status", status: "skipped", detail: "no result-status source given" });
  }

  return { ok: true, verdict: "valid", statement, keyid: key.keyid, input: inputKind, checks };
}

function verifySig(envelope: DsseEnvelope, payload: Buffer, sigB64: string, key: PublicBadgeKey): boolean {
  const raw = decodeBase64Strict(key.publicKey);
  const sig = decodeBase64Strict(sigB64);
  if (!raw || raw.length !== 32 || !sig) return false;
  try {
    return verifyPae(envelope.payloadType, payload, sig, ed25519PublicKeyFromRaw(raw));
  } catch {
    return false;
  }
}

// Reading an SVG back: elements a badge never has are refused up front; the rest is settled by
// comparing with the re-render. <path> is a logo (logos.ts).

const ALLOWED_ELEMENTS = new Set(["svg", "title", "metadata", "a", "linearGradient", "stop", "clipPath", "rect", "g", "text", "path"]);

function readSvg(root: XmlNode): { envelopeText: string | null } | string {
  if (root.name !== "svg") return "not an SVG document";
  const metas: XmlNode[] = [];
  for (const e of elements(root)) {
    if (!ALLOWED_ELEMENTS.has(e.name)) return `the SVG contains a <${e.name}> element, which a Tollgate badge never has`;
    if (e.name === "metadata" && e.attrs.id === ENVELOPE_METADATA_ID) metas.push(e);
  }
  if (metas.length > 1) return "the SVG carries more than one envelope";
  return { envelopeText: metas.length ? textContent(metas[0]) : null };
}

/** Is `svg` our render of this statement in some style? Same XML tree after parsing, not same bytes. */
function sameAsRendered(svg: XmlNode, statement: BadgeStatement, envelope: DsseEnvelope): { ok: true; style: BadgeStyle } | { ok: false; detail: string } {
  let closest: { style: BadgeStyle; difference: string } | null = null;
  for (const style of BADGE_STYLES) {
    let expected: XmlNode;
    try {
      expected = parseXmlStrict(renderReadinessBadge(statement, { style, envelope }));
    } catch (e) {
      return { ok: false, detail: `the statement cannot be rendered as a badge: ${(e as Error).message}` };
    }
    const difference = xmlTreeDifference(svg, expected);
    if (difference === null) return { ok: true, style };
    const depth = (d: string) => d.split(":")[0].split("/").length;
    if (!closest || depth(difference) > depth(closest.difference)) closest = { style, difference };
  }
  return {
    ok: false,
    detail: `the SVG is not the badge rendered from its signed statement ("${statement.label ?? DEFAULT_LABEL}: ${readinessValue(statement)}"); against the ${closest!.style} style: ${closest!.difference}`,
  };
}
