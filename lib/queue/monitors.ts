/** Which rubric versions the connected monitors support (docs/spec/scoring-system.md "Governance"). */
import { CURRENT_RUBRIC, rubricVersionString } from "@/lib/scoring/readiness";
import { AppError } from "@/lib/errors";
import { NOW_UTC, rows, type Client } from "@/lib/sql";

/** e.g. "readiness/1.1.0". */
export function servedRubricVersion(): string {
  return rubricVersionString(CURRENT_RUBRIC);
}

export interface MonitorSupport {
  served: string;
  supported: boolean;
  /** In words for its log; null when supported. */
  reason: string | null;
}

/** At every claim, before anything is claimed. */
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

/** No database. */
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

/** rubric_unsupported, 409. */
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
