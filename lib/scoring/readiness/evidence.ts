/** Structural check of a ReadinessEvidence document from outside: the fields the rules read, each problem by JSON pointer. */
import { PROBE_EVIDENCE_VERSIONS } from "@/lib/evidence";
import { HEALTH_BASELINE } from "../signals";
import type { ReadinessEvidence } from "./types";

export interface EvidenceError {
  pointer: string;
  message: string;
}

const CHALLENGE_KINDS = new Set(["x402-v2", "x402-v1", "mpp", "none"]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function checkReadinessEvidence(input: unknown): { ok: true; value: ReadinessEvidence } | { ok: false; errors: EvidenceError[] } {
  const errors: EvidenceError[] = [];
  const err = (pointer: string, message: string) => errors.push({ pointer, message });
  const num = (o: Obj, key: string, base: string, opts: { nullable?: boolean; min?: number; max?: number }) => {
    const v = o[key];
    if (v === null && opts.nullable) return;
    if (typeof v !== "number" || !Number.isFinite(v)) return err(`${base}/${key}`, `must be a number${opts.nullable ? " or null" : ""}`);
    if (opts.min !== undefined && v < opts.min) err(`${base}/${key}`, `must be at least ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) err(`${base}/${key}`, `must be at most ${opts.max}`);
  };
  const bool = (o: Obj, key: string, base: string) => {
    if (typeof o[key] !== "boolean") err(`${base}/${key}`, "must be true or false");
  };
  const resource = (o: Obj, key: string) => {
    const v = o[key];
    if (v === null || v === undefined) return;
    if (!isObj(v)) return err(`/probe/${key}`, "must be an object or null");
    bool(v, "ok", `/probe/${key}`);
    if (key === "logo" && v.ok === true) bool(v, "isImage", "/probe/logo");
  };

  if (!isObj(input)) return { ok: false, errors: [{ pointer: "", message: "evidence must be a JSON object with probe, settle and liveness" }] };

  const probe = input.probe;
  if (!isObj(probe)) err("/probe", "must be an object (ProbeEvidence)");
  else if (!(PROBE_EVIDENCE_VERSIONS as readonly unknown[]).includes(probe.version)) {
    // The version decides how every other field reads: nothing else is checked under an unknown one.
    err("/probe/version", `unknown probe evidence format version ${JSON.stringify(probe.version ?? null)}; this build reads versions ${PROBE_EVIDENCE_VERSIONS.join(", ")}`);
  } else {
    if (!Array.isArray(probe.endpoints)) err("/probe/endpoints", "must be an array");
    else
      probe.endpoints.forEach((e, i) => {
        const base = `/probe/endpoints/${i}`;
        if (!isObj(e)) return err(base, "must be an object");
        if (typeof e.method !== "string") err(`${base}/method`, "must be a string");
        if (typeof e.path !== "string") err(`${base}/path`, "must be a string");
        bool(e, "reachable", base);
        const ch = e.challenge;
        if (!isObj(ch)) return err(`${base}/challenge`, "must be an object");
        if (!CHALLENGE_KINDS.has(ch.kind as string)) err(`${base}/challenge/kind`, `must be one of ${[...CHALLENGE_KINDS].join(", ")}`);
        bool(ch, "valid", `${base}/challenge`);
      });
    resource(probe, "logo");
    resource(probe, "docs");
    resource(probe, "discovery");
    const docs = probe.endpointDocs;
    if (docs !== undefined) {
      if (probe.version === 1) err("/probe/endpointDocs", "is not part of evidence format version 1 (it came with version 2)");
      else if (!Array.isArray(docs)) err("/probe/endpointDocs", "must be an array");
      else
        docs.forEach((d, i) => {
          const base = `/probe/endpointDocs/${i}`;
          if (!isObj(d)) return err(base, "must be an object");
          if (typeof d.method !== "string") err(`${base}/method`, "must be a string");
          if (typeof d.path !== "string") err(`${base}/path`, "must be a string");
          bool(d, "ok", base);
          bool(d, "pathShown", base);
          bool(d, "example", base);
          if (!Array.isArray(d.names) || !d.names.every((n) => typeof n === "string")) err(`${base}/names`, "must be an array of strings");
        });
    }
  }

  const settle = input.settle;
  if (!isObj(settle)) err("/settle", "must be an object (SettleFacts)");
  else {
    const at = settle.lastSettledAt;
    if (at !== null && (typeof at !== "string" || Number.isNaN(Date.parse(at)))) err("/settle/lastSettledAt", "must be an ISO date-time string or null");
    num(settle, "failedAttemptsSinceLastSettle", "/settle", { min: 0 });
    num(settle, "distinctFailingBuyersSinceLastSettle", "/settle", { min: 0 });
  }

  const live = input.liveness;
  if (!isObj(live)) err("/liveness", "must be an object (LivenessFacts)");
  else {
    num(live, "uptime7d", "/liveness", { nullable: true, min: 0, max: 100 });
    num(live, "uptime30d", "/liveness", { nullable: true, min: 0, max: 100 });
    if (!(typeof live.healthStatus === "string" && live.healthStatus in HEALTH_BASELINE)) err("/liveness/healthStatus", `must be one of ${Object.keys(HEALTH_BASELINE).join(", ")}`);
    num(live, "healthConfidence", "/liveness", { min: 0, max: 1 });
    bool(live, "settlementUnproven", "/liveness");
  }

  return errors.length ? { ok: false, errors } : { ok: true, value: input as unknown as ReadinessEvidence };
}
