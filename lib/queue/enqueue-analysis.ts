/** Analysis triggers (docs/QUEUE.md "Triggers"): one durable queue row each; nothing here probes. */
import { checkTarget, validateTarget, type CheckedTarget, type RefusalCode } from "@/lib/net";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness";
import { parseVersion } from "@/lib/scoring/readiness/rubric";
import type { AnalysisTrigger } from "@/lib/generated/prisma/client";
import { queueConfig } from "./config";
import { NOW_UTC, clientOr, isUniqueViolation, prismaOf, rows, utcParam, type Client } from "@/lib/sql";

export const ACTIVE_SUBJECT_INDEX = "uniq_catalog_scoring_active_subject";
export const ACTIVE_STATES = ["deferred", "queued", "running"] as const;

/** Seed: "version mismatches first". */
export const PRIORITY_RUBRIC_MISMATCH = 20;
export const PRIORITY_OWNER = 30;
export const PRIORITY_PUBLISH = 25;
export const PRIORITY_SWEEP = 0;

/** The index is per submitter, so one sweep does not block itself. */
export const systemSubmitter = (kind: "staleness" | "rubric" | "publish", listingId: string) => `system:${kind}:${listingId}`;

export interface RequestAnalysisInput {
  submitter: string;
  listingId?: string | null;
  targetUrl: string | CheckedTarget;
  trigger: AnalysisTrigger;
  priority?: number;
  requestedBy?: string | null;
}

export interface EnqueuedAnalysis {
  id: string;
  state: string;
  listingId: string | null;
}

export function refusedTargetError(refused: { refusal: RefusalCode; detail: string }): AppError {
  return new AppError("refused_target", `the target URL is refused: ${refused.detail}`, [{ pointer: "/url", message: refused.refusal }], {
    refusal: refused.refusal satisfies RefusalCode,
  });
}

/** Pure checks, no DNS; the worker re-checks with DNS. */
export function assertTargetAllowed(targetUrl: string, allowHosts: string[] = env().probeAllowHosts): CheckedTarget {
  const checked = checkTarget(targetUrl, allowHosts);
  if (!checked.ok) throw refusedTargetError(checked);
  return checked.target;
}

/** The unique index refuses a second active row (no racing read-then-write). */
export async function requestAnalysis(input: RequestAnalysisInput, client?: Client): Promise<EnqueuedAnalysis> {
  const targetUrl = (typeof input.targetUrl === "string" ? assertTargetAllowed(input.targetUrl) : input.targetUrl).raw;
  const prisma = await prismaOf(client);
  try {
    const row = await prisma.analysis.create({
      data: {
        submitter: input.submitter,
        requestedBy: input.requestedBy ?? null,
        listingId: input.listingId ?? null,
        targetUrl,
        trigger: input.trigger,
        priority: input.priority ?? PRIORITY_OWNER,
        maxAttempts: queueConfig().maxAttempts,
        state: "queued",
        step: "queued",
      },
      select: { id: true, state: true, listingId: true },
    });
    return row;
  } catch (e) {
    if (!isUniqueViolation(e, ACTIVE_SUBJECT_INDEX)) throw e;
    const active = await prisma.analysis.findFirst({
      where: { submitter: input.submitter, state: { in: [...ACTIVE_STATES] } },
      select: { id: true, state: true },
    });
    throw new AppError("conflict", "An analysis you asked for is still in progress; wait for it to finish.", [], {
      activeAnalysisId: active?.id ?? null,
      activeState: active?.state ?? null,
    });
  }
}

export async function onListingPublished(listingId: string, actorId: string, client?: Client, checked?: CheckedTarget): Promise<EnqueuedAnalysis> {
  const prisma = await prismaOf(client);
  const listing = await prisma.listing.findUnique({ where: { id: listingId }, select: { id: true, baseUrl: true } });
  if (!listing) throw new AppError("not_found", `listing ${listingId} does not exist`);
  try {
    return await requestAnalysis(
      {
        submitter: systemSubmitter("publish", listingId),
        requestedBy: actorId.startsWith("system:") ? null : actorId,
        listingId,
        targetUrl: checked && checked.raw === listing.baseUrl ? checked : listing.baseUrl,
        trigger: "publish",
        priority: PRIORITY_PUBLISH,
      },
      prisma,
    );
  } catch (e) {
    const activeId = e instanceof AppError && e.code === "conflict" ? (e.extra.activeAnalysisId as string | null) : null;
    if (!activeId) throw e;
    return { id: activeId, state: String((e as AppError).extra.activeState), listingId };
  }
}

export interface SweepResult {
  queued: number;
  refused: number;
}

async function enqueueListings(
  client: Client,
  opts: { kind: "staleness" | "rubric"; trigger: AnalysisTrigger; where: string; priority: string; params: unknown[] },
): Promise<SweepResult & { rows: Array<{ id: string; priority: number }> }> {
  const candidates = await rows<{ id: string; baseUrl: string; priority: number }>(
    client,
    `SELECT l."id", l."baseUrl", (${opts.priority})::int AS "priority"
     FROM "listings" l LEFT JOIN "catalog_scoring_results" r ON r."id" = l."currentResultId"
     WHERE (${opts.where})
       AND NOT EXISTS (SELECT 1 FROM "catalog_scoring_analyses" a WHERE a."listingId" = l."id" AND a."state" IN ('deferred','queued','running'))`,
    ...opts.params,
  );
  const allowHosts = env().probeAllowHosts;
  const ok = candidates.filter((c) => validateTarget(c.baseUrl, { allowHosts }).ok);
  const refused = candidates.length - ok.length;
  if (ok.length === 0) return { queued: 0, refused, rows: [] };
  const inserted = await rows<{ id: string; priority: number }>(
    client,
    `INSERT INTO "catalog_scoring_analyses" ("id", "listingId", "submitter", "trigger", "targetUrl", "state", "step", "priority", "maxAttempts", "runAfter", "createdAt", "updatedAt")
     SELECT 'a' || replace(gen_random_uuid()::text, '-', ''), l."id", $1 || l."id", $2::"AnalysisTrigger", l."baseUrl",
            'queued', 'queued', c."priority", $3::int, ${NOW_UTC}, ${NOW_UTC}, ${NOW_UTC}
     FROM unnest($4::text[], $5::int[]) AS c("listingId", "priority") JOIN "listings" l ON l."id" = c."listingId"
     ON CONFLICT ("submitter") WHERE "state" IN ('deferred', 'queued', 'running') DO NOTHING
     RETURNING "id", "priority"`,
    `system:${opts.kind}:`,
    opts.trigger,
    queueConfig().maxAttempts,
    ok.map((c) => c.id),
    ok.map((c) => c.priority),
  );
  return { queued: inserted.length, refused, rows: inserted };
}

export async function staleSweep(now: Date = new Date(), client?: Client): Promise<SweepResult> {
  const prisma = await clientOr(client);
  const { queued, refused } = await enqueueListings(prisma, {
    kind: "staleness",
    trigger: "staleness",
    where: `l."publicationState" <> 'archived' AND r."id" IS NOT NULL AND r."createdAt" < ${utcParam(1)} - make_interval(days => $2::int)`,
    priority: String(PRIORITY_SWEEP),
    params: [now.toISOString(), queueConfig().staleAfterDays],
  });
  return { queued, refused };
}

export type ReleaseKind = "major" | "minor" | "patch" | "initial" | "same";

export function releaseKind(version: string, previous: string | null): ReleaseKind {
  if (previous === null) return "initial";
  const strip = (v: string) => (v.startsWith("readiness/") ? v.slice("readiness/".length) : v);
  const [a, b, c] = parseVersion(strip(version));
  const [x, y, z] = parseVersion(strip(previous));
  if (a !== x) {
    if (a < x) throw new AppError("bad_request", `readiness/${strip(version)} is older than readiness/${strip(previous)}`);
    return "major";
  }
  if (b !== y) {
    if (b < y) throw new AppError("bad_request", `readiness/${strip(version)} is older than readiness/${strip(previous)}`);
    return "minor";
  }
  if (c !== z) {
    if (c < z) throw new AppError("bad_request", `readiness/${strip(version)} is older than readiness/${strip(previous)}`);
    return "patch";
  }
  return "same";
}

export interface ReleaseOutcome extends SweepResult {
  version: string;
  kind: ReleaseKind;
  recorded: boolean;
  mismatched: number;
}

/** docs/spec/scoring-system.md "Governance": MAJOR or MINOR re-scores every listing, PATCH nothing. */
export async function onRubricRelease(version: string, previousVersion: string | null, client?: Client): Promise<ReleaseOutcome> {
  const prisma = await clientOr(client);
  const bare = version.replace(/^readiness\//, "");
  const kind = releaseKind(bare, previousVersion);
  const stamped = `readiness/${bare}`;
  const recorded = await rows<{ version: string }>(
    prisma,
    `INSERT INTO "rubric_releases" ("version", "kind", "releasedAt") VALUES ($1, $2, ${NOW_UTC}) ON CONFLICT ("version") DO NOTHING RETURNING "version"`,
    bare,
    kind,
  );
  const base = { version: stamped, kind, recorded: recorded.length > 0, queued: 0, refused: 0, mismatched: 0 };
  if (!base.recorded || (kind !== "major" && kind !== "minor")) return base;
  const { rows: queued, ...swept } = await enqueueListings(prisma, {
    kind: "rubric",
    trigger: "rubric",
    where: `l."publicationState" <> 'archived'`,
    priority: `CASE WHEN r."id" IS NULL OR r."rubricVersion" <> $1::text THEN ${PRIORITY_RUBRIC_MISMATCH} ELSE ${PRIORITY_SWEEP} END`,
    params: [stamped],
  });
  return { ...base, ...swept, mismatched: queued.filter((q) => q.priority === PRIORITY_RUBRIC_MISMATCH).length };
}

export async function checkRubricRelease(client?: Client): Promise<ReleaseOutcome | null> {
  const prisma = await prismaOf(client);
  const current = CURRENT_RUBRIC.version;
  const known = await prisma.rubricRelease.findMany({ select: { version: true } });
  if (known.some((k) => k.version === current)) return null;
  const newest = known
    .map((k) => k.version)
    .sort((a, b) => {
      const [x, y, z] = parseVersion(a);
      const [p, q, r] = parseVersion(b);
      return x - p || y - q || z - r;
    })
    .pop();
  return onRubricRelease(current, newest ?? null, prisma);
}
