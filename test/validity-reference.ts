/**
 * A second, independent implementation of the validity-check criteria, for the corpus
 * (test/validity-corpus.ts): written from the criteria text (docs/spec/products.md
 * "Validity-check malformed rule", "Validity-check computation rule", "Validity-check tight
 * thresholds", "Validity-check free pre-check") and the service's readings (docs/VALIDITY-CHECK.md
 * "Readings"), never from the service's code. It imports nothing of sellers/validity-check: the
 * guidance texts, thresholds and statuses come from the published document itself, the refusals
 * from an ordered list of hand-written checks (no JSON Schema), decimals from string arithmetic
 * (no bigint division), and the slot approximation from a quotient-and-remainder table.
 */
import published from "@/lib/scoring/readiness/fixtures/seed-products/003-validity-check.json";

type Json = unknown;
type Obj = Record<string, unknown>;

export const REF_NOT_ESTABLISHABLE = "NOT-ESTABLISHABLE-FROM-ARTEFACT";
/** docs/VALIDITY-CHECK.md "One signature, one settlement". */
const SETTLEMENT_PROPERTY =
  "ONE-SIGNATURE-ONE-SETTLEMENT: under the upto scheme one payer signature authorizes one settlement, of any amount up to maximum_signable_atomic and never more; the signed authorization's nonce is spent by that settlement, so a further settlement needs a new signature.";
/** docs/VALIDITY-CHECK.md "Readings": the label on the SVM seconds figure. */
const SVM_LABEL = "APPROXIMATION: remaining slots x 0.4 s (the stated slot-time approximation); it does not decide the verdict.";
const LAST_PRINTABLE_UNIX = 8_640_000_000_000;

const isObj = (v: Json): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: Obj, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const filled = (v: Json) => typeof v === "string" && v.length > 0;
const exactUint = (v: Json) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** "at most 10^18", decided on the digits: leading zeros dropped, then length, then lexical order. */
function ceilingOk(v: Json): boolean {
  if (exactUint(v)) return true;
  if (typeof v !== "string" || !/^[0-9]+$/.test(v)) return false;
  const digits = v.replace(/^0+(?=.)/, "");
  const cap = "1" + "0".repeat(18);
  return digits.length < cap.length || (digits.length === cap.length && digits <= cap);
}

interface Check {
  code: string;
  pointer: string;
  broken: (body: Obj) => boolean;
}

const ch = (b: Obj) => b.challenge as Obj;
const pl = (b: Obj) => b.payload as Obj;
const missing = (o: Obj, k: string) => !has(o, k);
const flagBroken = (o: Obj, k: string) => has(o, k) && typeof o[k] !== "boolean";

/** The upto checks after the body and challenge are objects, in the rule's order. */
const UPTO_CHECKS: Check[] = [
  { code: "scheme_required", pointer: "/challenge/scheme", broken: (b) => missing(ch(b), "scheme") },
  { code: "scheme_not_upto", pointer: "/challenge/scheme", broken: (b) => ch(b).scheme !== "upto" },
  { code: "network_required", pointer: "/challenge/network", broken: (b) => !filled(ch(b).network) },
  { code: "payto_required", pointer: "/challenge/payTo", broken: (b) => !filled(ch(b).payTo) },
  { code: "asset_required", pointer: "/challenge/asset", broken: (b) => !filled(ch(b).asset) },
  { code: "ceiling_required", pointer: "/challenge/max_amount_required", broken: (b) => missing(ch(b), "max_amount_required") },
  { code: "ceiling_malformed", pointer: "/challenge/max_amount_required", broken: (b) => !ceilingOk(ch(b).max_amount_required) },
  {
    code: "decimals_malformed",
    pointer: "/challenge/asset_decimals",
    broken: (b) => has(ch(b), "asset_decimals") && !(exactUint(ch(b).asset_decimals) && (ch(b).asset_decimals as number) <= 18),
  },
  { code: "machinery_flag_malformed", pointer: "/challenge/permit2_allowance_sufficient", broken: (b) => flagBroken(ch(b), "permit2_allowance_sufficient") },
  { code: "machinery_flag_malformed", pointer: "/challenge/facilitator_sponsors_approval", broken: (b) => flagBroken(ch(b), "facilitator_sponsors_approval") },
];

const instantBroken = (o: Obj) => has(o, "evaluation_at_unix") && !(exactUint(o.evaluation_at_unix) && (o.evaluation_at_unix as number) <= LAST_PRINTABLE_UNIX);
const rail = (b: Obj) => pl(b).rail;

/** The validity checks after the body and payload are objects, in the rule's order. */
const VALIDITY_CHECKS: Check[] = [
  { code: "rail_required", pointer: "/payload/rail", broken: (b) => missing(pl(b), "rail") },
  { code: "rail_unsupported", pointer: "/payload/rail", broken: (b) => rail(b) !== "evm" && rail(b) !== "svm" },
  { code: "evaluation_at_malformed", pointer: "/evaluation_at_unix", broken: instantBroken },
  { code: "evaluation_at_malformed", pointer: "/payload/evaluation_at_unix", broken: (b) => instantBroken(pl(b)) },
  { code: "valid_before_required", pointer: "/payload/valid_before", broken: (b) => rail(b) === "evm" && missing(pl(b), "valid_before") },
  { code: "valid_before_malformed", pointer: "/payload/valid_before", broken: (b) => rail(b) === "evm" && !exactUint(pl(b).valid_before) },
  { code: "block_height_required", pointer: "/payload/last_valid_block_height", broken: (b) => rail(b) === "svm" && missing(pl(b), "last_valid_block_height") },
  { code: "block_height_required", pointer: "/payload/current_block_height", broken: (b) => rail(b) === "svm" && missing(pl(b), "current_block_height") },
  { code: "block_height_malformed", pointer: "/payload/last_valid_block_height", broken: (b) => rail(b) === "svm" && !exactUint(pl(b).last_valid_block_height) },
  { code: "block_height_malformed", pointer: "/payload/current_block_height", broken: (b) => rail(b) === "svm" && !exactUint(pl(b).current_block_height) },
];

export interface RefRefusal {
  refusal: string;
  pointer: string;
}

function firstBroken(body: Obj, checks: Check[]): RefRefusal | null {
  const c = checks.find((x) => x.broken(body));
  return c ? { refusal: c.code, pointer: c.pointer } : null;
}

export function refUptoRefusal(body: Json): RefRefusal | null {
  if (!isObj(body)) return { refusal: "challenge_required", pointer: "" };
  if (!isObj(body.challenge)) return { refusal: "challenge_required", pointer: "/challenge" };
  return firstBroken(body, UPTO_CHECKS);
}

export function refValidityRefusal(body: Json): RefRefusal | null {
  if (!isObj(body)) return { refusal: "payload_required", pointer: "" };
  if (!isObj(body.payload)) return { refusal: "payload_required", pointer: "/payload" };
  return firstBroken(body, VALIDITY_CHECKS);
}

const WALLET = /^(?:0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/;

export function refPrecheckRefusal(body: Json): (RefRefusal & { op: string | null }) | null {
  if (!isObj(body)) return { refusal: "op_required", pointer: "", op: null };
  if (!has(body, "op")) return { refusal: "op_required", pointer: "/op", op: null };
  if (body.op !== "upto" && body.op !== "validity") return { refusal: "op_unsupported", pointer: "/op", op: null };
  const op = body.op;
  if (has(body, "caller") && !(typeof body.caller === "string" && WALLET.test(body.caller))) return { refusal: "caller_malformed", pointer: "/caller", op };
  const r = op === "upto" ? refUptoRefusal(body) : refValidityRefusal(body);
  return r ? { ...r, op } : null;
}

/** Exact decimal rendering by moving the point in the digit string. */
export function refRender(atomic: string, decimals: number): string {
  const digits = atomic.replace(/^0+(?=.)/, "");
  if (decimals === 0) return digits;
  const padded = digits.padStart(decimals + 1, "0");
  return `${padded.slice(0, padded.length - decimals)}.${padded.slice(padded.length - decimals)}`;
}

function kind(network: string): "evm" | "svm" | "other" {
  const [namespace, reference] = [network.slice(0, network.indexOf(":")), network.slice(network.indexOf(":") + 1)];
  if (network.includes(":") && namespace === "eip155" && /^\d+$/.test(reference)) return "evm";
  if (network.includes(":") && namespace === "solana" && reference.length > 0 && /^[1-9A-HJ-NP-Za-km-z]+$/.test(reference)) return "svm";
  return "other";
}

const iso = (unix: number) => new Date(unix * 1000).toISOString();
const head = (op: string | null) => ({ service: published.service, version: published.version, criteria_id: published.criteria_id, criteria_revision: published.criteria_revision, op });

/** The machinery status as a decision table over (network kind, allowance flag, sponsor flag). */
function machinery(netKind: string, allowance: Json, sponsors: Json): string {
  if (netKind !== "evm") return "NO-UPTO-MACHINERY-FOR-NETWORK-IN-RECORD";
  const table: [Json, Json, string][] = [
    [true, "*", "ALLOWANCE-ALREADY-SUFFICIENT"],
    ["*", true, "APPROVAL-SPONSORED-BY-FACILITATOR"],
    [false, false, "APPROVAL-TRANSACTION-REQUIRED"],
  ];
  const row = table.find(([a, s]) => (a === "*" || a === allowance) && (s === "*" || s === sponsors));
  return row ? row[2] : REF_NOT_ESTABLISHABLE;
}

export function refUpto(body: Obj, issuedAtUnix: number): Record<string, unknown> {
  const c = body.challenge as Obj;
  const atomic = typeof c.max_amount_required === "number" ? (c.max_amount_required as number).toFixed(0) : (c.max_amount_required as string);
  const netKind = kind(c.network as string);
  const gaps: string[] = [];
  const decimalsStated = has(c, "asset_decimals");
  if (!decimalsStated) gaps.push("asset_decimals", "maximum_signable_decimal");
  const flag = (k: string) => (has(c, k) ? c[k] : (gaps.push(k), REF_NOT_ESTABLISHABLE));
  const allowance = flag("permit2_allowance_sufficient");
  const sponsors = flag("facilitator_sponsors_approval");
  const status = machinery(netKind, c.permit2_allowance_sufficient, c.facilitator_sponsors_approval);
  if (status === REF_NOT_ESTABLISHABLE) gaps.push("machinery_status");
  return {
    ...head("upto"),
    issued_at_unix: issuedAtUnix,
    issued_at: iso(issuedAtUnix),
    scheme: c.scheme,
    network: c.network,
    network_kind: netKind,
    payTo: c.payTo,
    asset: c.asset,
    maximum_signable_atomic: atomic,
    asset_decimals: decimalsStated ? c.asset_decimals : REF_NOT_ESTABLISHABLE,
    maximum_signable_decimal: decimalsStated ? refRender(atomic, c.asset_decimals as number) : REF_NOT_ESTABLISHABLE,
    permit2_allowance_sufficient: allowance,
    facilitator_sponsors_approval: sponsors,
    machinery_status: status,
    settlement_property: SETTLEMENT_PROPERTY,
    not_establishable: gaps,
  };
}

/** slots x 0.4 without multiplying: 5 slots are exactly 2 s, and the remainder is read off a table. */
function slotSeconds(slots: number): string {
  const negative = slots < 0;
  const n = Math.abs(slots);
  const q = Math.floor(n / 5);
  const r = n - q * 5;
  const whole = 2 * q + [0, 0, 0, 1, 1][r];
  const tenth = [0, 4, 8, 2, 6][r];
  return `${negative && (whole > 0 || tenth > 0) ? "-" : ""}${whole}.${tenth}`;
}

function verdict(remaining: number, railName: "evm" | "svm"): "STALE" | "TIGHT" | "OK" {
  const max = published.tight_thresholds[railName].tight_max_remaining;
  return remaining > max ? "OK" : remaining > 0 ? "TIGHT" : "STALE";
}

export function refValidity(body: Obj, serverUnix: number): Record<string, unknown> {
  const p = body.payload as Obj;
  const stated = has(body, "evaluation_at_unix") ? (body.evaluation_at_unix as number) : has(p, "evaluation_at_unix") ? (p.evaluation_at_unix as number) : null;
  const at = stated === null ? serverUnix : stated;
  const shared = {
    ...head("validity"),
    evaluation_instant_unix: at,
    evaluation_instant: iso(at),
    evaluation_instant_source: stated === null ? "server-time" : "submitted",
  };
  if (p.rail === "evm") {
    const t = published.tight_thresholds.evm;
    const remaining = (p.valid_before as number) - at;
    const v = verdict(remaining, "evm");
    return { ...shared, rail: "evm", valid_before: p.valid_before, remaining_seconds: remaining, threshold: { unit: t.unit, tight_max_remaining: t.tight_max_remaining, rule: t.rule }, verdict: v, guidance: published.guidance[v] };
  }
  const t = published.tight_thresholds.svm;
  const slots = (p.last_valid_block_height as number) - (p.current_block_height as number);
  const v = verdict(slots, "svm");
  return {
    ...shared,
    rail: "svm",
    last_valid_block_height: p.last_valid_block_height,
    current_block_height: p.current_block_height,
    remaining_slots: slots,
    approximate_remaining_seconds: slotSeconds(slots),
    approximate_remaining_seconds_label: SVM_LABEL,
    threshold: { unit: t.unit, tight_max_remaining: t.tight_max_remaining, rule: t.rule },
    verdict: v,
    guidance: published.guidance[v],
  };
}

export function refPrecheck(body: Obj): Record<string, unknown> {
  if (body.op === "upto") {
    const c = body.challenge as Obj;
    return { ...head("upto"), assessable: true, facts: { scheme: c.scheme, network_kind: kind(c.network as string), ceiling_present: has(c, "max_amount_required"), decimals_present: has(c, "asset_decimals") } };
  }
  const p = body.payload as Obj;
  return { ...head("validity"), assessable: true, facts: { rail: p.rail, evaluation_instant_submitted: has(body, "evaluation_at_unix") || has(p, "evaluation_at_unix") } };
}

export type Endpoint = "POST /upto" | "POST /validity" | "POST /precheck";

/** What the service answers for one case: a free refusal, or the delivery / pre-check answer. */
export function refExpected(endpoint: Endpoint, body: Json, instantUnix: number): { status: number; body: Record<string, unknown> } {
  if (endpoint === "POST /precheck") {
    const r = refPrecheckRefusal(body);
    if (r) return { status: 400, body: { ...head(r.op), assessable: false, refusal: r.refusal, pointer: r.pointer } };
    return { status: 200, body: refPrecheck(body as Obj) };
  }
  const op = endpoint === "POST /upto" ? "upto" : "validity";
  const r = op === "upto" ? refUptoRefusal(body) : refValidityRefusal(body);
  if (r) return { status: 400, body: { ...head(op), error: "malformed", refusal: r.refusal, pointer: r.pointer } };
  return { status: 200, body: op === "upto" ? refUpto(body as Obj, instantUnix) : refValidity(body as Obj, instantUnix) };
}
