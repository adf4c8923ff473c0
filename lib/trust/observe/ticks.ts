/**
 * The observations' archive (docs/TRUST.md "Bounded history"): every hour, rows older than the window
 * the rubric's decay can still weigh move to trust_observations_archive, 5,000 a transaction, until
 * none is left; rows of an endpoint whose history is not yet rolled up stay where they are.
 */
import { db } from "@/lib/db";
import { loadRubric } from "@/lib/trust/engine";
import type { Tick } from "@/lib/scheduler";
import { archiveObservations } from "./rollups";

export async function runObservationArchive(): Promise<number> {
  const client = await db();
  const rubric = loadRubric();
  let moved = 0;
  for (let n = await archiveObservations(client, rubric); n > 0; n = await archiveObservations(client, rubric)) moved += n;
  return moved;
}

export const observationTicks: Tick[] = [{ name: "trust.archive", intervalMs: 60 * 60_000, run: async () => void (await runObservationArchive()) }];
