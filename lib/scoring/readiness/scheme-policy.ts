/** readiness/1.2.0's scheme policies: a rubric policy may decide a matched requirement's C2 findings instead of the probe's defaults. */
import type { EndpointEvidence, NormalisedRequirement } from "@/lib/evidence";
import type { SchemePolicy } from "./rubric";

export function policyFor(req: NormalisedRequirement | undefined, policies: readonly SchemePolicy[]): SchemePolicy | null {
  if (!req) return null;
  const extraName = req.extra && typeof req.extra.name === "string" ? req.extra.name : undefined;
  return policies.find((p) =>
    (p.match.scheme === undefined || (Array.isArray(p.match.scheme) ? p.match.scheme.includes(req.scheme) : p.match.scheme === req.scheme)) &&
    (p.match.network === undefined || p.match.network === req.network) &&
    (p.match.extraName === undefined || p.match.extraName === extraName),
  ) ?? null;
}

/** The policy that makes this invalid challenge valid, or null: every C1/C2 failure must be in a matched requirement, excused, and within the policy's window. */
export function validByPolicy(e: Pick<EndpointEvidence, "challenge" | "findings">, policies: readonly SchemePolicy[]): string | null {
  const ch = e.challenge;
  if (!ch || ch.valid || (ch.kind !== "x402-v2" && ch.kind !== "x402-v1") || policies.length === 0) return null;
  const reqs = ch.requirements ?? [];
  const fails = (e.findings ?? []).filter((f) => f.severity === "fail" && (f.check === "C1" || f.check === "C2"));
  if (fails.length === 0) return null;
  const used = new Set<string>();
  for (const f of fails) {
    const m = /^\/accepts\/(\d+)\/([A-Za-z]+)$/.exec(f.pointer ?? "");
    if (!m) return null;
    const req = reqs[Number(m[1])];
    const p = policyFor(req, policies);
    if (!p || !p.excuses.includes(f.code)) return null;
    if (f.code === "timeout_missing" || f.code === "timeout_out_of_range") {
      const t = req.maxTimeoutSeconds;
      const inWindow = t === null ? p.timeout.optional : Number.isFinite(t) && t >= p.timeout.min && t <= p.timeout.max;
      if (!inWindow) return null;
    }
    used.add(p.id);
  }
  return [...used].join(", ");
}
