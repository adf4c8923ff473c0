/**
 * The seller's view of the canary (docs/CANARY.md): status, latest paid call, each failing endpoint's reason in
 * words. `canaryNotice` is pure.
 */
import { isoOf, rows, type Client } from "@/lib/sql";

export type Verification = "verified" | "degraded" | "unverified";

export interface CanarySampleRow { method: string; path: string; outcome: "pass" | "degraded" | "broken" | null; reason: string | null; httpStatus: number | null; completedAt: string | null }
export interface CanaryRunRow { outcome: Verification | null; reason: string | null; finishedAt: string | null }

/** lib/canary's judge codes in a seller's words. */
const SAMPLE_WORDS: Record<string, string> = {
  timeout: "your endpoint did not answer in time after the payment",
  unrecorded: "the payment could not be recorded",
  not_settled: "the payment was signed and sent, but your server did not settle it",
  unproven: "the settlement could not be proven on chain",
  charged_without_delivery: "the payment settled but your endpoint did not answer with a 2xx",
  charged_other_amount: "the amount charged on chain differs from the amount your 402 quoted",
  paid_other_payto: "the payment went to another address than your 402 quoted",
  charged_twice: "a replayed payment was charged a second time",
  invalid_output: "the paid answer did not match your response schema",
  slow: "the paid answer was slower than the canary allows",
  reconciled: "(reconciled after an interruption)",
};

const RUN_WORDS: Array<[RegExp, string]> = [
  [/^not_listed/, "the listing is not published, so the catalog does not pay it"],
  [/^no_payable_endpoint/, "no endpoint has a price the catalog can pay"],
  [/^protocol_not_supported/, "the catalog's test calls pay over x402 only, and this listing does not offer it"],
  [/^no_house_wallet/, "this deployment has no house wallet to pay test calls with"],
  [/^attempts_exhausted/, "the test call could not be completed after several attempts"],
];

export function sampleReasonWords(reason: string | null): string {
  if (!reason) return "no reason recorded";
  return reason
    .split(",")
    .map((code) => SAMPLE_WORDS[code] ?? (/^http_\d+$/.test(code) ? `your endpoint answered HTTP ${code.slice(5)} to the paid call` : code.startsWith("house_") ? `the catalog's own payment was refused (${code.slice(6)}): not your fault` : code))
    .join("; ");
}

export interface CanaryNotice {
  verification: Verification;
  /** e.g. "Verified: the catalog's last paid test call passed (2026-12-05)." */
  status: string;
  /** Worst first: the first thing to fix. */
  failing: Array<{ method: string; path: string; outcome: "degraded" | "broken"; words: string; httpStatus: number | null; at: string | null }>;
}

export function canaryNotice(verification: Verification, run: CanaryRunRow | null, samples: CanarySampleRow[]): CanaryNotice {
  const failing = samples
    .filter((s): s is CanarySampleRow & { outcome: "degraded" | "broken" } => s.outcome === "broken" || s.outcome === "degraded")
    .sort((a, b) => (a.outcome === b.outcome ? 0 : a.outcome === "broken" ? -1 : 1))
    .map((s) => ({ method: s.method, path: s.path, outcome: s.outcome, words: sampleReasonWords(s.reason), httpStatus: s.httpStatus, at: s.completedAt }));
  const when = run?.finishedAt ? ` (${run.finishedAt.slice(0, 16).replace("T", " ")} UTC)` : "";
  let status: string;
  if (!run) status = "Not verified yet: the catalog has not made a paid test call of this listing.";
  else if (verification === "verified") status = `Verified: the catalog's last paid test call of every endpoint passed${when}.`;
  else if (verification === "degraded") status = `Failing: the catalog's last paid test call found a problem${when}. Buyers see “paid test call failed” on your tile until a run passes.`;
  else {
    const why = RUN_WORDS.find(([re]) => re.test(run.reason ?? ""))?.[1];
    status = `Not verified${when}: ${why ?? (failing.length ? "a paid test call failed" : "no paid test call could be judged")}.`;
  }
  return { verification, status, failing };
}

export async function readSellerCanary(client: Client, listingId: string, verification: Verification): Promise<CanaryNotice> {
  const [run] = await rows<CanaryRunRow & { id: string }>(
    client,
    `SELECT "id", "outcome"::text AS "outcome", "reason", ${isoOf(`"finishedAt"`)} AS "finishedAt"
       FROM "canary_runs" WHERE "listingId" = $1 AND "state" = 'done' ORDER BY "finishedAt" DESC NULLS LAST, "createdAt" DESC LIMIT 1`,
    listingId,
  );
  const samples = run
    ? await rows<CanarySampleRow>(
        client,
        `SELECT s."method", coalesce(e."path", s."path") AS "path", s."outcome"::text AS "outcome", s."reason", s."httpStatus", ${isoOf(`s."completedAt"`)} AS "completedAt"
           FROM "canary_samples" s
           LEFT JOIN "endpoints" e ON e."listingId" = s."listingId" AND e."method"::text = s."method" AND e."trustPath" = s."path"
          WHERE s."runId" = $1 ORDER BY 1, 2`,
        run.id,
      )
    : [];
  return canaryNotice(verification, run ?? null, samples);
}
