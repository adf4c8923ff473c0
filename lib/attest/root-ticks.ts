/**
 * The daily root's wiring: the day's bundle hashes are those of the attestations issued that UTC day
 * (trust_grades.issuedAt), the tick publishes due days on the configured chain, and a bundle's day
 * is read from the grade that names it.
 */
import type { Tick } from "@/lib/scheduler";
import { clientOr, rows, utcParam, type Client } from "@/lib/sql";
import { DAY_MS, inclusionProof, publishDueRoots, utcDay, type InclusionProof, type PublishRun } from "./daily-root";
import { rootChainFromEnv } from "./root-chain";
import { AppError } from "@/lib/errors";
import { isBundleSha256 } from "./merkle";

export const DAILY_ROOT_INTERVAL_MS = 10 * 60_000;

/** The distinct bundle hashes of the attestations issued on `day` (UTC). */
export async function attestedBundleHashes(day: number, client: Client): Promise<string[]> {
  const found = await rows<{ sha: string }>(
    client,
    `SELECT DISTINCT "bundleSha256" AS "sha" FROM "trust_grades" WHERE "issuedAt" >= ${utcParam(1)} AND "issuedAt" < ${utcParam(2)}`,
    new Date(day * DAY_MS).toISOString(),
    new Date((day + 1) * DAY_MS).toISOString(),
  );
  return found.map((r) => r.sha);
}

/** One run of the tick; `unconfigured` names what is missing when this deployment publishes no roots. */
export async function runDailyRoot(now?: Date): Promise<PublishRun | { unconfigured: string }> {
  const chain = rootChainFromEnv();
  if ("unconfigured" in chain) return chain;
  return publishDueRoots({ chain, dayHashes: attestedBundleHashes, now });
}

export const rootTicks: Tick[] = [{ name: "attest.daily-root", intervalMs: DAILY_ROOT_INTERVAL_MS, run: async () => void (await runDailyRoot()) }];

/**
 * The inclusion proof of one endpoint's bundle: its day is the day its attestation was issued. A
 * bundle this endpoint has no attestation for is not_found; its day without a root, root_not_published.
 */
export async function endpointBundleProof(endpointId: string, bundleSha256: string | null, client?: Client): Promise<InclusionProof> {
  if (bundleSha256 === null || !isBundleSha256(bundleSha256)) {
    throw new AppError("bad_request", "the query parameter sha256 must be the bundle's hash: 64 lowercase hex digits", [{ pointer: "/sha256", message: "must be 64 lowercase hex digits" }]);
  }
  const c = await clientOr(client);
  const [first] = await rows<{ issuedAt: string }>(
    c,
    `SELECT to_char(min("issuedAt"), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "issuedAt" FROM "trust_grades" WHERE "endpointId" = $1 AND "bundleSha256" = $2`,
    endpointId,
    bundleSha256,
  );
  if (!first?.issuedAt) throw new AppError("not_found", `endpoint ${endpointId} has no attestation over bundle ${bundleSha256}`);
  return inclusionProof(bundleSha256, utcDay(new Date(first.issuedAt)), c);
}
