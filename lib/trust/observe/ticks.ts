/** Hourly: rolled-up rows older than the rubric's raw window move to the archive, 5,000 a transaction (docs/TRUST.md "Bounded history"). */
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
