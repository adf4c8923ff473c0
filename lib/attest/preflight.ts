/**
 * preflight (MCP tool, docs/ATTESTATIONS.md "The guard"): would the latest signed attestation vouch for paying these
 * terms at this URL? clients/guard's checks and reason codes.
 */
import { isAppError } from "@/lib/errors";
import { badgeKeySet } from "@/lib/badges/server";
import { verifyAttestation, type AttestationStatement } from "./attestation";
import { checkResourceUrl, getAttestationByUrl } from "./read";

export interface PreflightTerms {
  url: string;
  method?: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
}

export type PreflightAnswer =
  | { pay: true; reason: "ok"; message: string; endpointId: string; grade: AttestationStatement["grade"]; expiresAt: string }
  | { pay: false; reason: string; message: string; endpointId?: string; grade?: AttestationStatement["grade"] };

/** The guard's default. */
export const PREFLIGHT_MAX_EVIDENCE_AGE_MS = 36 * 3_600_000;
const REFUSED_VERDICTS = ["avoid", "down"];

/** As the guard names it; null when none. */
export function paymentDifference(s: AttestationStatement, t: PreflightTerms, now: Date): { reason: string; message: string } | null {
  if (now.getTime() - Date.parse(s.scoring.now) > PREFLIGHT_MAX_EVIDENCE_AGE_MS) return { reason: "stale", message: `the grade rests on evidence scored ${s.scoring.now}` };
  if (REFUSED_VERDICTS.includes(s.grade.verdict)) return { reason: s.grade.verdict, message: `the endpoint's grade is ${s.grade.grade ?? "ungraded"} with verdict ${s.grade.verdict}: its evidence says not to pay it` };
  const p = s.payment;
  if (p === null) return { reason: "free_listing", message: "the endpoint is listed as free" };
  if (t.network !== p.network) return { reason: "network_mismatch", message: `the payment is on ${t.network}, the listing's price on ${p.network}` };
  if (t.asset.toLowerCase() !== p.asset.toLowerCase()) return { reason: "asset_mismatch", message: `the payment is in ${t.asset}, the listing's price in ${p.asset}` };
  if (p.payTo === null || t.payTo.toLowerCase() !== p.payTo.toLowerCase()) return { reason: "payto_changed", message: `the payment goes to ${t.payTo}, the graded endpoint was paid at ${p.payTo ?? "(none seen)"}` };
  if (!/^\d+$/.test(t.amount)) return { reason: "malformed", message: "amount must be a whole number of base units" };
  if (BigInt(t.amount) > BigInt(p.amount)) return { reason: "price_above_listing", message: `the endpoint asks ${t.amount}, above its listed ${p.amount} base units` };
  if (BigInt(t.amount) !== BigInt(p.amount)) return { reason: "price_changed", message: `the endpoint asks ${t.amount}, not its listed ${p.amount} base units` };
  return null;
}

const NOT_FOUND: Record<string, string> = { no_endpoint: "unlisted", no_attestation: "unattested", attestation_pending: "listing_changed" };

export async function preflight(t: PreflightTerms, now = new Date()): Promise<PreflightAnswer> {
  const url = checkResourceUrl(t.url);
  let stored;
  try {
    stored = await getAttestationByUrl(url, t.method ?? null);
  } catch (e) {
    const reason = isAppError(e) && e.code === "not_found" ? NOT_FOUND[String(e.extra.reason)] : undefined;
    if (!reason) throw e;
    return { pay: false, reason, message: (e as Error).message };
  }
  const v = verifyAttestation(stored.envelope, await badgeKeySet(now), { endpoint: {}, now });
  if (!v.ok) return { pay: false, reason: v.reason, message: v.message, endpointId: stored.statement.endpoint.id };
  const s = v.statement;
  if (checkResourceUrl(s.endpoint.url) !== url) return { pay: false, reason: "wrong_endpoint", message: `the attestation found is for ${s.endpoint.url}`, endpointId: s.endpoint.id };
  const diff = paymentDifference(s, t, now);
  if (diff) return { pay: false, ...diff, endpointId: s.endpoint.id, grade: s.grade };
  return { pay: true, reason: "ok", message: `Tollgate's attestation vouches for these terms until ${s.expiresAt}`, endpointId: s.endpoint.id, grade: s.grade, expiresAt: s.expiresAt };
}
