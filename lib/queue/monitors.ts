/**
 * Which rubric versions the connected catalog-monitors support (docs/spec/scoring-system.md
 * "Governance": "the monitor must support a version before the API serves it"). A monitor declares
 * them with every claim; the API hands it analyses only when it supports the rubric this build serves,
 * so under a rubric no connected monitor supports, analyses wait in the queue (the seed's "production
 * analyses wait in the queue"). A result is stored only when the lease's holder declared that version.
 */
import { CURRENT_RUBRIC, rubricVersionString } from "@/lib/scoring/readiness";
import { AppError } from "@/lib/errors";
import { NOW_UTC, rows, type Client } from "@/lib/sql";

/** "readiness/1.1.0": the version this build scores and stores under. */
export function servedRubricVersion(): string {
  return rubricVersionString(CURRENT_RUBRIC);
}

export interface MonitorSupport {
  served: string;
  supported: boolean;
  /** Why the monitor gets no analysis, in words for its log; null when it is supported. */
  reason: string | null;
}

/** Record what a monitor declares at a claim (claimLeases does, before it claims anything), and whether it is supported. */
export async function declareMonitor(client: Client, workerId: string, rubricVersions: readonly string[], served = servedRubricVersion()): Promise<MonitorSupport> {
  await rows(
    client,
    `INSERT INTO "monitor_capabilities" ("workerId", "rubricVersions", "seenAt") VALUES ($1, $2::text[], ${NOW_UTC})
     ON CONFLICT ("workerId") DO UPDATE SET "rubricVersions" = EXCLUDED."rubricVersions", "seenAt" = EXCLUDED."seenAt" RETURNING "workerId"`,
    workerId,
    [...rubricVersions],
  );
  return monitorSupport(workerId, rubricVersions, served);
}

/** Whether a monitor declaring these versions may take analyses under the served rubric (no database). */
export function monitorSupport(workerId: string, rubricVersions: readonly string[], served = servedRubricVersion()): MonitorSupport {
  const supported = rubricVersions.includes(served);
  return {
    served,
    supported,
    reason: supported
      ? null
      : `monitor ${workerId} supports ${rubricVersions.length ? rubricVersions.join(", ") : "no rubric version"}, but the API serves ${served}: analyses wait in the queue until a monitor that supports it claims them`,
  };
}

/** Refuse to store a result under `served` unless the monitor holding the lease declared it (rubric_unsupported, 409). */
export async function requireHolderSupports(client: Client, analysisId: string, served = servedRubricVersion()): Promise<void> {
  const [row] = await rows<{ leasedBy: string | null; rubricVersions: string[] | null }>(
    client,
    `SELECT a."leasedBy", m."rubricVersions" FROM "catalog_scoring_analyses" a LEFT JOIN "monitor_capabilities" m ON m."workerId" = a."leasedBy" WHERE a."id" = $1`,
    analysisId,
  );
  const versions = row?.rubricVersions ?? [];
  if (!versions.includes(served)) {
    throw new AppError(
      "conflict",
      `analysis ${analysisId}: the monitor holding its lease (${row?.leasedBy ?? "unknown"}) declared ${versions.length ? versions.join(", ") : "no rubric version"}, not ${served}; no result is stored under a rubric version the monitor does not support`,
      [{ pointer: "/rubricVersions", message: `must include ${served}` }],
      { code: "rubric_unsupported" },
    );
  }
}
