/**
 * Parses MPP `WWW-Authenticate: Payment …` challenges; mppx's Challenge.deserialize is the authority, each challenge
 * sliced out first so one broken challenge hides no other. C1, C2 and S4 hold x402's meaning
 * (docs/spec/trust-rubric.md).
 */
import { Challenge, Constants } from "mppx";
import type { Finding } from "@/lib/evidence";
import { getHeader, isObject, type HeaderBag } from "@/lib/x402/json";
import { findSecretAsks } from "@/lib/x402/secret-asks";

export interface MppChallenge {
  id: string;
  realm: string;
  method: string;
  intent: string;
  request: unknown;
  expires?: string | null;
  description?: string | null;
  digest?: string | null;
}

export interface MppParseResult {
  challenges: MppChallenge[];
  /** How many `Payment` challenges the header held, accepted or not. */
  offered: number;
  /** At least one challenge parsed, with no C1/C2 failure on it. */
  valid: boolean;
  findings: Finding[];
}

const KNOWN_INTENTS: readonly string[] = Object.values(Constants.Intents);
const REQUIRED = ["id", "realm", "method", "intent", "request"] as const;

export function parseMpp(response: { headers: HeaderBag }, options: { now?: Date } = {}): MppParseResult {
  const now = options.now ?? new Date();
  const header = getHeader(response.headers, "www-authenticate");
  const findings: Finding[] = [];
  if (!header) return { challenges: [], offered: 0, valid: false, findings };
  const chunks = splitPaymentChallenges(header);
  if (chunks.length === 0) return { challenges: [], offered: 0, valid: false, findings };

  const challenges: MppChallenge[] = [];
  let anyValid = false;
  chunks.forEach((chunk, index) => {
    const at = (field?: string) => `/www-authenticate/${index}${field ? `/${field}` : ""}`;
    const own: Finding[] = [];
    const params = readParamsLeniently(chunk);
    for (const field of REQUIRED) {
      if (!params[field]) own.push({ check: "C1", severity: "fail", code: `mpp_${field}_missing`, message: `Payment challenge ${index + 1} has no ${field}.`, pointer: at(field) });
    }
    let request: unknown = undefined;
    if (params.request) {
      const decoded = decodeRequest(params.request);
      if ("error" in decoded) own.push({ check: "C1", severity: "fail", code: decoded.error, message: `Payment challenge ${index + 1}: ${decoded.message}`, pointer: at("request") });
      else request = decoded.value;
    }
    if (params.method && !/^[a-z][a-z0-9:_-]*$/.test(params.method)) {
      own.push({ check: "C2", severity: "fail", code: "mpp_method_invalid", message: `Payment challenge ${index + 1}: method "${params.method}" must be a lower-case token.`, pointer: at("method") });
    }
    if (params.intent && !KNOWN_INTENTS.includes(params.intent)) {
      own.push({ check: "C2", severity: "warn", code: "mpp_intent_unknown", message: `Payment challenge ${index + 1}: intent "${params.intent}" is not one mppx knows (${KNOWN_INTENTS.join(", ")}).`, pointer: at("intent") });
    }
    if (params.expires !== undefined) {
      const t = Date.parse(params.expires);
      if (Number.isNaN(t)) own.push({ check: "C2", severity: "fail", code: "mpp_expires_invalid", message: `Payment challenge ${index + 1}: expires "${params.expires}" is not an ISO 8601 time.`, pointer: at("expires") });
      else if (t <= now.getTime()) own.push({ check: "C2", severity: "fail", code: "mpp_expired", message: `Payment challenge ${index + 1} expired at ${params.expires}, before it was received (${now.toISOString()}).`, pointer: at("expires") });
    }

    let parsed: ReturnType<typeof Challenge.deserialize> | null = null;
    try {
      parsed = Challenge.deserialize(chunk);
    } catch (e) {
      if (!own.some((f) => f.severity === "fail" && f.check === "C1")) {
        own.push({ check: "C1", severity: "fail", code: "mpp_challenge_invalid", message: `Payment challenge ${index + 1} is refused by mppx: ${e instanceof Error ? e.message : String(e)}`, pointer: at() });
      }
    }
    if (parsed && request !== undefined) {
      challenges.push({
        id: parsed.id, realm: parsed.realm, method: parsed.method, intent: parsed.intent, request: parsed.request,
        expires: parsed.expires ?? null, description: parsed.description ?? null, digest: parsed.digest ?? null,
      });
      own.push(...findSecretAsks([{ json: { request: parsed.request, description: parsed.description ?? "" }, label: `MPP challenge ${index + 1}` }]));
      if (!own.some((f) => f.severity === "fail" && (f.check === "C1" || f.check === "C2"))) anyValid = true;
    }
    findings.push(...own);
  });

  for (const check of ["C1", "C2", "S4"]) {
    if (!findings.some((f) => f.check === check && f.severity === "fail")) findings.push({ check, severity: "pass", code: "ok", message: `${check} passed (MPP).` });
  }
  return { challenges, offered: chunks.length, valid: anyValid, findings };
}

/**
 * Splits a WWW-Authenticate value into its `Payment` challenges, ignoring quoted strings; other schemes are skipped.
 */
export function splitPaymentChallenges(value: string): string[] {
  const starts: Array<{ index: number; payment: boolean }> = [];
  let inQuotes = false;
  let escaped = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (inQuotes) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inQuotes = false;
      continue;
    }
    if (c === '"') { inQuotes = true; continue; }
    // A scheme token starts the value or follows a comma, then whitespace and a token68 or auth-param (not "=").
    let b = i - 1;
    while (b >= 0 && /\s/.test(value[b])) b--;
    if (b >= 0 && value[b] !== ",") continue;
    const m = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+(?=[^=\s,])/.exec(value.slice(i));
    if (!m) continue;
    const after = value.slice(i + m[0].length);
    if (/^[A-Za-z0-9_-]+\s*=/.test(after) || /^[A-Za-z0-9._~+/-]+=*\s*(,|$)/.test(after)) {
      starts.push({ index: i, payment: m[1].toLowerCase() === "payment" });
      i += m[1].length - 1;
    }
  }
  const chunks: string[] = [];
  starts.forEach((s, k) => {
    if (!s.payment) return;
    const end = k + 1 < starts.length ? starts[k + 1].index : value.length;
    chunks.push(value.slice(s.index, end).replace(/,\s*$/, "").trim());
  });
  return chunks;
}

function readParamsLeniently(chunk: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  const body = chunk.replace(/^\S+\s+/, "");
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const key = m[1].toLowerCase();
    if (key in out) continue;
    out[key] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3];
  }
  return out;
}

function decodeRequest(encoded: string): { value: Record<string, unknown> } | { error: string; message: string } {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(encoded)) return { error: "mpp_request_not_base64url", message: "request is not base64url." };
  let json: string;
  try {
    json = Buffer.from(encoded, "base64url").toString("utf8");
  } catch {
    return { error: "mpp_request_not_base64url", message: "request is not base64url." };
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { error: "mpp_request_not_json", message: "request decodes from base64url but is not JSON." };
  }
  if (!isObject(value)) return { error: "mpp_request_not_object", message: "request decodes to JSON that is not an object." };
  return { value };
}
