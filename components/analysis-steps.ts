/** An analysis's steps as the owner sees them: queued, probing (endpoint n of m, from the worker's heartbeat), scoring, stored. */
export interface StepInput {
  state: string;
  step: string;
  progress?: { done: number; total: number } | null;
}
type Progress = StepInput;

export const STEPS = ["queued", "probing", "scoring", "stored"] as const;
export type Step = (typeof STEPS)[number];

/** Which step an analysis is at: the queue's state and step, with "stored" once it succeeded. */
export function stepOf(p: Pick<Progress, "state" | "step"> | undefined): Step {
  if (!p) return "queued";
  if (p.state === "succeeded") return "stored";
  if (p.state === "queued" || p.state === "deferred") return "queued";
  if (p.step === "scoring") return "scoring";
  if (p.step === "probing") return "probing";
  return "queued";
}

/** The step's words: "probing (endpoint 2 of 4)" while the worker reports endpoints. */
export function stepLabel(s: Step, p: Pick<Progress, "progress"> | undefined): string {
  if (s === "probing" && p?.progress && p.progress.total > 0) {
    const { done, total } = p.progress;
    return `probing (endpoint ${Math.min(done + 1, total)} of ${total})`;
  }
  return s;
}
