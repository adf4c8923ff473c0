/**
 * The daily root's wiring: a day's bundle hashes are its issued attestations' (trust_grades.issuedAt); an endpoint's
 * bundle is proved in its issue day's root.
 */
import type { Tick } from "@/lib/scheduler";
import { clientOr, isoOf, rows, utcParam, type Client } from "@/lib/sql";
import { DAY_MS, inclusionProof, publishDueRoots, utcDay, type InclusionProof, type PublishRun } from "./daily-root";
import { rootChainFromEnv } from "./root-chain";
import { AppError } from "@/lib/errors";
import { checkBundleHash, checkEndpointId, readLatestAttestation } from "./read";

export const DAILY_ROOT_INTERVAL_MS = 10 * 60_000;

/** Distinct, of attestations issued on `day` (UTC). */
export async function attestedBundleHashes(day: number, client: Client): Promise<string[]> {
  const found = await rows<{ sha: string }>(
    client,
    `SELECT DISTINCT "bundleSha256" AS "sha" FROM "trust_grades" WHERE "issuedAt" >= ${utcParam(1)} AND "issuedAt" < ${utcParam(2)}`,
    new Date(day * DAY_MS).toISOString(),
    new Date((day + 1) * DAY_MS).toISOString(),
  );
  return found.map((r) => r.sha);
}

/** `unconfigured` names what is missing. */
export async function runDailyRoot(now?: Date): Promise<PublishRun | { unconfigured: string }> {
  const chain = rootChainFromEnv();
  if ("unconfigured" in chain) return chain;
  return publishDueRoots({ chain, dayHashes: attestedBundleHashes, now });
}

export const rootTicks: Tick[] = [{ name: "attest.daily-root", intervalMs: DAILY_ROOT_INTERVAL_MS, run: async () => void (await runDailyRoot()) }];

/**
 * `sha256`, else the latest attestation's; resolved as the evidence route does. 404 `no_bundle`, or
 * `root_not_published` while its day has no root.
 */
export async function endpointBundleProof(endpointId: string, sha256: string | null, client?: Client): Promise<InclusionProof> {
  const id = checkEndpointId(endpointId);
  const named = checkBundleHash(sha256);
  const c = await clientOr(client);
  const hash = named ?? (await readLatestAttestation(c, id)).bundleSha256;
  const [g] = await rows<{ issuedAt: string | null }>(
    c,
    `SELECT ${isoOf(`min(g."issuedAt")`)} AS "issuedAt"
     FROM "endpoints" e JOIN "listings" l ON l."id" = e."listingId"
     JOIN "trust_grades" g ON g."listingId" = e."listingId" AND g."method" = e."method"::text AND g."path" = e."trustPath" AND g."bundleSha256" = $2
     WHERE e."id" = $1 AND l."publicationState" IN ('published', 'unlisted') AND l."deletedAt" IS NULL`,
    id,
    hash,
  );
  if (!g?.issuedAt) throw new AppError("not_found", "No evidence bundle of this endpoint has that hash.", [{ pointer: "/sha256", message: "names no bundle of this endpoint" }], { reason: "no_bundle" });
  return inclusionProof(hash, utcDay(new Date(g.issuedAt)), c);
}
