/**
 * Verifying a badge: given the SVG (or the bare envelope JSON) and a published key set, decide
 * whether it states something Tollgate signed, still stands behind, and actually shows.
 *
 * Checks run in order and stop at the first failure, whose closed reason code is returned with the
 * trail of checks made so far. The signature is checked before the payload is parsed, so nothing
 * unauthenticated is interpreted beyond finding the key.
 */
import { BADGE_PAYLOAD_TYPE, decodeBase64Strict, ed25519PublicKeyFromRaw, parseEnvelope, verifyPae, type DsseEnvelope } from "./dsse";
import { canonicalJson } from "./canonical-json";
import type { PublicBadgeKey, PublicKeySet } from "./keys";
import { ENVELOPE_METADATA_ID, readinessValue } from "./render";
import { MAX_TTL_SECONDS, statementShapeError, type BadgeStatement } from "./statement";
import { unescapeXml } from "./xml";

export type VerifyReason =
  | "input_unrecognised"
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

export interface VerifyOptions {
  keys: PublicKeySet;
  now: Date;
  /**
   * Whether the signed result is still the listing's current (or a superseded, unrevoked) one.
   * "unchecked" (with `detail` optional) records that the source could not say, e.g. a catalog
   * without the status route: the check is reported as skipped, not passed.
   */
  resultStatus?: (resultId: string, listingId: string) => Promise<ResultStatus | { unchecked: string }>;
  /** Tolerated clock difference between issuer and verifier for "issued in the future". */
  clockSkewSeconds?: number;
}

export type VerifyResult =
  | { ok: true; statement: BadgeStatement; keyid: string; input: "svg" | "envelope"; checks: Check[] }
  | { ok: false; reason: VerifyReason; checks: Check[] };

const DEFAULT_SKEW_SECONDS = 300;
/** Far more than any badge; refuse before regex work on something huge. */
export const MAX_INPUT_BYTES = 256 * 1024;

export async function verifyBadge(input: string, opts: VerifyOptions): Promise<VerifyResult> {
  const checks: Check[] = [];
  const pass = (name: CheckName, detail: string) => void checks.push({ name, status: "pass", detail });
  const fail = (reason: VerifyReason, name: CheckName, detail: string): VerifyResult => {
    checks.push({ name, status: "fail", detail });
    return { ok: false, reason, checks };
  };

  // 1. What were we given?
  if (input.length > MAX_INPUT_BYTES) return fail("input_unrecognised", "input", `input larger than ${MAX_INPUT_BYTES} bytes`);
  let text = input.replace(/^\uFEFF/, "").trim();
  let svg: SvgFacts | null = null;
  let envelopeText: string;
  // A seller pastes the badge into an HTML page (docs, a README rendered to HTML): verify the badge
  // inside it. The SVG's own strictness (no DOCTYPE, no foreign elements) applies to the badge only.
  let fromPage = false;
  if (/^<!doctype html|^<html[\s>]/i.test(text)) {
    const badges = [...text.matchAll(/<svg\b[\s\S]*?<\/svg>/g)].map((m) => m[0]).filter((x) => x.includes(`id="${ENVELOPE_METADATA_ID}"`));
    if (badges.length === 0) return fail("envelope_missing", "input", "the HTML page holds no signed Tollgate badge (an inline <svg> with its envelope)");
    if (badges.length > 1) return fail("input_unrecognised", "input", `the HTML page holds ${badges.length} signed badges; verify them one at a time`);
    text = badges[0];
    fromPage = true;
  }
  if (text.startsWith("<")) {
    const read = readSvg(text);
    if (typeof read === "string") return fail("envelope_missing", "input", read);
    svg = read;
    if (read.envelopeText === null) return fail("envelope_missing", "input", "the SVG has no <metadata> envelope (an unscored or unsigned badge)");
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

  // 3. Payload type: part of what is signed, but we also refuse anything that is not a badge statement.
  if (envelope.payloadType !== BADGE_PAYLOAD_TYPE) return fail("payload_type_unexpected", "payload_type", `got ${JSON.stringify(envelope.payloadType)}`);
  pass("payload_type", BADGE_PAYLOAD_TYPE);

  // 4–5. A signature by a published key. keyid is an unauthenticated hint, used only to pick the key.
  const byId = new Map<string, PublicBadgeKey>(opts.keys.keys.map((k) => [k.keyid, k]));
  const candidates = envelope.signatures.filter((s) => byId.has(s.keyid));
  if (candidates.length === 0) return fail("unknown_key", "key", `no signature by a published key (keyids: ${envelope.signatures.map((s) => s.keyid).join(", ")})`);
  pass("key", `published key(s): ${candidates.map((s) => s.keyid).join(", ")}`);
  const good = candidates.find((s) => verifySig(envelope, payload, s.sig, byId.get(s.keyid)!));
  if (!good) return fail("signature_invalid", "signature", "no signature verifies over PAE(payloadType, payload)");
  const key = byId.get(good.keyid)!;
  pass("signature", `Ed25519 signature by ${key.keyid} verifies`);

  // 6. The statement itself, now that it is authenticated.
  let statement: BadgeStatement;
  try {
    const value: unknown = JSON.parse(payload.toString("utf8"));
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

  // 7. The key was valid when the statement was issued (so a rotated-out key cannot sign new ones).
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
    const mismatch = visibleMismatch(svg, statement);
    if (mismatch) return fail("visible_mismatch", "visible", mismatch);
    pass("visible", `shows "${readinessValue(statement)}"${svg.links.length ? `, links to ${statement.listing.url}` : ""}`);
  } else {
    checks.push({ name: "visible", status: "skipped", detail: "envelope only: nothing visible to compare" });
  }

  // 11. The catalog still stands behind the result.
  if (opts.resultStatus) {
    let status: ResultStatus | { unchecked: string };
    try {
      status = await opts.resultStatus(statement.result.id, statement.listing.id);
    } catch (e) {
      return fail("result_status_unavailable", "result_status", `status lookup failed: ${(e as Error).message}`);
    }
    if (typeof status === "object") {
      checks.push({ name: "result_status", status: "skipped", detail: `status not checked: ${status.unchecked}` });
      return { ok: true, statement, keyid: key.keyid, input: svg ? "svg" : "envelope", checks };
    }
    if (status === "revoked") return fail("result_revoked", "result_status", `result ${statement.result.id} was revoked`);
    if (status === "unknown") return fail("result_unknown", "result_status", `the catalog does not know result ${statement.result.id} for listing ${statement.listing.id}`);
    pass("result_status", status === "current" ? "the listing's current result" : "superseded by a newer analysis (not revoked)");
  } else {
    checks.push({ name: "result_status", status: "skipped", detail: "no result-status source given" });
  }

  return { ok: true, statement, keyid: key.keyid, input: svg ? "svg" : "envelope", checks };
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href; // the renderer writes the WHATWG-normalised form
  } catch {
    return false;
  }
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

// ---------------------------------------------------------------------------------------------
// Reading an SVG back. Not a general XML parser: it reads what our renderer writes (and what an
// attribute-preserving optimiser leaves of it) and refuses anything with elements we never emit, so
// a tamperer cannot add visible text by other means (<tspan>, <foreignObject>, <image>, script).

interface SvgFacts {
  envelopeText: string | null;
  ariaLabel: string | null;
  title: string | null;
  texts: string[];
  links: string[];
}

const ALLOWED_ELEMENTS = new Set(["svg", "title", "metadata", "a", "linearGradient", "stop", "clipPath", "rect", "g", "text"]);

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name.replace(":", "\\:")}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag);
  if (!m) return null;
  return unescapeXml(m[1] ?? m[2]);
}

function readSvg(svg: string): SvgFacts | string {
  const body = svg.replace(/^<\?xml[^>]*\?>\s*/, "").replace(/<!--[\s\S]*?-->/g, "");
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) return "the SVG declares a DOCTYPE or entities; refused";
  const root = /^<svg\b[^>]*>/.exec(body);
  if (!root) return "not an SVG document";
  for (const m of body.matchAll(/<\/?([A-Za-z_][\w.:-]*)/g)) {
    if (!ALLOWED_ELEMENTS.has(m[1])) return `the SVG contains a <${m[1]}> element, which a Tollgate badge never has`;
  }
  const metas = [...body.matchAll(/<metadata\b([^>]*)>([\s\S]*?)<\/metadata>/g)].filter((m) => attr(m[0], "id") === ENVELOPE_METADATA_ID);
  if (metas.length > 1) return "the SVG carries more than one envelope";
  const titles = [...body.matchAll(/<title\b[^>]*>([\s\S]*?)<\/title>/g)];
  const texts = [...body.matchAll(/<text\b[^>]*>([\s\S]*?)<\/text>/g)].map((m) => unescapeXml(m[1]));
  if (texts.some((t) => t === null) || titles.length > 1) return "the SVG's text is not well-formed";
  const envelopeText = metas.length ? unescapeXml(metas[0][2]) : null;
  const links = [...body.matchAll(/<a\b[^>]*>/g)].flatMap((m) => [attr(m[0], "href"), attr(m[0], "xlink:href")]).filter((h): h is string => h !== null);
  return {
    envelopeText: metas.length && envelopeText === null ? "" : envelopeText,
    ariaLabel: attr(root[0], "aria-label"),
    title: titles.length ? unescapeXml(titles[0][1]) : null,
    texts: texts as string[],
    links,
  };
}

/** Null when the badge visibly shows exactly the signed score and band (and links only to the listing). */
function visibleMismatch(svg: SvgFacts, statement: BadgeStatement): string | null {
  const value = readinessValue(statement);
  const suffix = `: ${value}`;
  if (svg.ariaLabel === null || !svg.ariaLabel.endsWith(suffix)) return `aria-label ${JSON.stringify(svg.ariaLabel)} does not end with "${suffix}"`;
  if (svg.title !== svg.ariaLabel) return "the <title> differs from the aria-label";
  // The label is whatever precedes the value in the accessible name (after an optional "title — ").
  const head = svg.ariaLabel.slice(0, -suffix.length);
  const label = head.includes(" \u2014 ") ? head.slice(head.lastIndexOf(" \u2014 ") + 3) : head;
  const norm = (s: string) => s.toLocaleUpperCase("en");
  const allowed = new Set([norm(label), norm(value)]);
  const shown = svg.texts.filter((t) => t.trim() !== "");
  if (!shown.some((t) => norm(t) === norm(value))) return `no visible text shows "${value}"`;
  const other = shown.find((t) => !allowed.has(norm(t)));
  if (other !== undefined) return `visible text ${JSON.stringify(other)} is neither the label nor the signed value "${value}"`;
  const badLink = svg.links.find((h) => sameUrl(h, statement.listing.url) === false);
  if (badLink !== undefined) return `the badge links to ${JSON.stringify(badLink)}, not the signed listing page ${statement.listing.url}`;
  return null;
}
