/** Findings on how an answer arrived: S1 transport, S5 content type, R3 latency (docs/spec/trust-rubric.md). */
import type { Finding, TlsFacts } from "@/lib/evidence";
import type { RedirectRecord, SafeFetchSuccess, TlsInfo } from "@/lib/net";

/** S1. */
export const MIN_CERT_DAYS = 14;
/** R3's curve: 100 at 300 ms, 90 at 1 s, 50 at 3 s, 0 at 10 s. */
export const R3_GOOD_MS = 1_000;
export const R3_SLOW_MS = 3_000;
export const R3_LIMIT_MS = 10_000;

export function tlsFacts(tls: TlsInfo | null | undefined): TlsFacts | null {
  return tls ? { valid: tls.valid, daysToExpiry: tls.daysToExpiry } : null;
}

export function transportFindings(url: string, tls: TlsInfo | null | undefined, redirects: readonly RedirectRecord[] | undefined): Finding[] {
  const findings: Finding[] = [];
  if (!url.startsWith("https:")) findings.push({ check: "S1", severity: "fail", code: "not_https", message: `${url} is served over plain HTTP; agents should only pay over HTTPS.` });
  if (tls) {
    if (!tls.valid) findings.push({ check: "S1", severity: "fail", code: "tls_invalid", message: `The TLS certificate did not verify${tls.authorizationError ? ` (${tls.authorizationError})` : ""}.` });
    if (tls.daysToExpiry !== null && tls.daysToExpiry <= MIN_CERT_DAYS) {
      findings.push({ check: "S1", severity: "fail", code: "cert_expiring", message: tls.daysToExpiry < 0 ? "The TLS certificate has expired." : `The TLS certificate expires in ${tls.daysToExpiry} days (needs more than ${MIN_CERT_DAYS}).` });
    }
  }
  for (const r of redirects ?? []) {
    if (r.followed || r.reason === "redirect_limit") continue;
    // Judged by the names: the guard may refuse the target for another reason first.
    const offHost = r.reason === "redirect_off_host" || hostOf(r.to) !== hostOf(r.from);
    findings.push(offHost
      ? { check: "S1", severity: "fail", code: "redirect_off_host", message: `A redirect from ${r.from} to ${r.to} leaves the host${r.reason && r.reason !== "redirect_off_host" ? ` (refused: ${r.reason})` : ""}; it was not followed.` }
      : { check: "S1", severity: "fail", code: "redirect_refused", message: `A redirect from ${r.from} to ${r.to} was refused (${r.reason}); it was not followed.` });
  }
  if (!findings.some((f) => f.severity === "fail")) findings.push({ check: "S1", severity: "pass", code: "ok", message: "HTTPS with a valid certificate and no redirect off the host." });
  return findings;
}

export function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}

const EXECUTABLE = new Set(["html", "svg", "xml"]);

export function contentFindings(r: Pick<SafeFetchSuccess, "contentType" | "sniffedType" | "contentTypeMatches" | "bodyTruncated">): Finding[] {
  const findings: Finding[] = [];
  const declared = r.contentType ?? "(none)";
  const promisesJson = /\bjson\b/i.test(declared);
  if (promisesJson && EXECUTABLE.has(r.sniffedType)) {
    findings.push({ check: "S5", severity: "fail", code: "script_where_json", message: `The response promises JSON (${declared}) but the bytes are ${r.sniffedType}, which a browser or agent may execute.` });
  } else if (!r.contentTypeMatches) {
    findings.push({ check: "S5", severity: "fail", code: "content_type_mismatch", message: `The declared content type ${declared} does not match the bytes (they look like ${r.sniffedType}).` });
  }
  if (r.bodyTruncated) findings.push({ check: "S5", severity: "warn", code: "body_over_cap", message: "The body was larger than the probe reads (after decompression); only its start was kept." });
  if (!findings.some((f) => f.severity === "fail")) findings.push({ check: "S5", severity: "pass", code: "ok", message: `The content type ${declared} matches the bytes.` });
  return findings;
}

export function latencyFinding(ttfbMs: number): Finding {
  const ms = Math.round(ttfbMs);
  if (ttfbMs <= R3_GOOD_MS) return { check: "R3", severity: "pass", code: "ttfb", message: `First byte after ${ms} ms.` };
  if (ttfbMs <= R3_SLOW_MS) return { check: "R3", severity: "info", code: "ttfb_slow", message: `First byte after ${ms} ms (over ${R3_GOOD_MS} ms).` };
  if (ttfbMs < R3_LIMIT_MS) return { check: "R3", severity: "warn", code: "ttfb_very_slow", message: `First byte after ${ms} ms (over ${R3_SLOW_MS} ms).` };
  return { check: "R3", severity: "fail", code: "ttfb_over_limit", message: `First byte after ${ms} ms (the curve reaches 0 at ${R3_LIMIT_MS} ms).` };
}
