/** R6 "Output correct" where an independent reference exists (docs/TRUST.md "R6"): stated fields recomputed with our own code. Pure. */
import crypto from "node:crypto";
import { keccak256 } from "viem";

export interface ReferenceResult {
  reference: "agent-verdict" | "validity-check";
  outcome: "pass" | "fail";
  compared: Array<{ field: string; stated: unknown; computed: unknown; equal: boolean }>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 8785 canonical JSON. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (isObj(v)) return `{${Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

function deliverableBytes(d: unknown): { kind: string; bytes: Buffer } | null {
  if (!isObj(d) || typeof d.kind !== "string") return null;
  if (d.kind === "text" && typeof d.value === "string") return { kind: "text", bytes: Buffer.from(d.value, "utf8") };
  if (d.kind === "json" && d.value !== undefined) return { kind: "json", bytes: Buffer.from(canonicalJson(d.value), "utf8") };
  if (d.kind === "bytes" && typeof d.value === "string") return { kind: "bytes", bytes: Buffer.from(d.value, "base64") };
  return null;
}

function agentVerdict(request: Record<string, unknown>, out: Record<string, unknown>): ReferenceResult | null {
  const digest = out.deliverableDigest;
  const d = deliverableBytes(request.deliverable);
  if (!isObj(digest) || !d) return null;
  const sha256 = crypto.createHash("sha256").update(d.bytes).digest("hex");
  const keccak = keccak256(d.bytes);
  const compared: ReferenceResult["compared"] = [];
  const cmp = (field: string, stated: unknown, computed: unknown) => compared.push({ field, stated, computed, equal: stated === computed });
  cmp("/deliverableDigest/kind", digest.kind, d.kind);
  cmp("/deliverableDigest/byteLength", digest.byteLength, d.bytes.length);
  cmp("/deliverableDigest/sha256", digest.sha256, sha256);
  cmp("/deliverableDigest/keccak256", digest.keccak256, keccak);
  if (Array.isArray(out.criteria)) {
    out.criteria.forEach((c, i) => {
      const ev = isObj(c) && isObj(c.evidence) ? c.evidence : null;
      if (ev && "deliverableSha256" in ev) cmp(`/criteria/${i}/evidence/deliverableSha256`, ev.deliverableSha256, sha256);
    });
  }
  return { reference: "agent-verdict", outcome: compared.every((c) => c.equal) ? "pass" : "fail", compared };
}

/** STALE <= 0 < TIGHT <= tight < OK. */
function verdictOf(remaining: number, tight: number): string {
  return remaining <= 0 ? "STALE" : remaining <= tight ? "TIGHT" : "OK";
}
const EVM_TIGHT_SECONDS = 60;
const SVM_TIGHT_SLOTS = 150;

function exactDecimal(atomic: string, decimals: number): string {
  const digits = atomic.replace(/^0+(?=\d)/, "").padStart(decimals + 1, "0");
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

function validityCheck(request: Record<string, unknown>, out: Record<string, unknown>): ReferenceResult | null {
  const compared: ReferenceResult["compared"] = [];
  const cmp = (field: string, stated: unknown, computed: unknown) => compared.push({ field, stated, computed, equal: stated === computed });
  if (out.op === "validity") {
    const payload = isObj(request.payload) ? request.payload : null;
    const at = out.evaluation_instant_unix;
    if (!payload || typeof at !== "number") return null;
    // The printed instant is the one judged; when the request stated one, it must be that one.
    const stated = typeof request.evaluation_at_unix === "number" ? request.evaluation_at_unix : typeof payload.evaluation_at_unix === "number" ? payload.evaluation_at_unix : null;
    if (stated !== null) cmp("/evaluation_instant_unix", at, stated);
    cmp("/evaluation_instant", out.evaluation_instant, new Date(at * 1000).toISOString());
    if (payload.rail === "evm" && typeof payload.valid_before === "number") {
      const remaining = payload.valid_before - at;
      cmp("/valid_before", out.valid_before, payload.valid_before);
      cmp("/remaining_seconds", out.remaining_seconds, remaining);
      cmp("/verdict", out.verdict, verdictOf(remaining, EVM_TIGHT_SECONDS));
    } else if (payload.rail === "svm" && typeof payload.last_valid_block_height === "number" && typeof payload.current_block_height === "number") {
      const slots = payload.last_valid_block_height - payload.current_block_height;
      cmp("/remaining_slots", out.remaining_slots, slots);
      cmp("/verdict", out.verdict, verdictOf(slots, SVM_TIGHT_SLOTS));
      cmp("/approximate_remaining_seconds", out.approximate_remaining_seconds, `${slots < 0 ? "-" : ""}${Math.floor(Math.abs(slots * 4) / 10)}.${Math.abs(slots * 4) % 10}`);
    } else return null;
  } else if (out.op === "upto") {
    const ch = isObj(request.challenge) ? request.challenge : null;
    if (!ch) return null;
    const ceiling = typeof ch.max_amount_required === "string" ? ch.max_amount_required : typeof ch.max_amount_required === "number" ? String(ch.max_amount_required) : null;
    if (ceiling === null) return null;
    cmp("/maximum_signable_atomic", out.maximum_signable_atomic, ceiling);
    if (typeof ch.asset_decimals === "number" && Number.isInteger(ch.asset_decimals) && ch.asset_decimals >= 0 && /^\d+$/.test(ceiling)) {
      cmp("/maximum_signable_decimal", out.maximum_signable_decimal, exactDecimal(ceiling, ch.asset_decimals));
    }
  } else return null;
  if (compared.length === 0) return null;
  return { reference: "validity-check", outcome: compared.every((c) => c.equal) ? "pass" : "fail", compared };
}

/** Null when no independent reference exists. */
export function referenceCheck(request: unknown, output: unknown): ReferenceResult | null {
  if (!isObj(request) || !isObj(output)) return null;
  if (output.service === "validity-check") return validityCheck(request, output);
  if (isObj(output.deliverableDigest) && isObj(output.program)) return agentVerdict(request, output);
  return null;
}
