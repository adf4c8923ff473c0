/** The analysis's steps as it runs (queued → probing → scoring → stored), its state, and why it failed. */
import { STEPS, stepLabel, type Step } from "./analysis-steps";

export interface Progress {
  id: string;
  state: string;
  step: string;
  attempts: number;
  maxAttempts: number;
  error: string | null;
  resultId: string | null;
  progress?: { done: number; total: number } | null;
}

export function AnalysisProgress({ p, finished, currentStep, progressError }: { p: Progress | undefined; finished: boolean; currentStep: Step; progressError: Error | null }) {
  const stepIndex = STEPS.indexOf(currentStep);
  return (
    <div role="status" aria-live="polite" className="text-sm">
      <ol className="flex flex-wrap items-center gap-1.5" aria-label="Analysis progress">
        {STEPS.map((s, i) => {
          const done = finished && p?.state === "succeeded" ? true : i < stepIndex;
          const now = !finished && i === stepIndex;
          const failedHere = (p?.state === "failed" || p?.state === "dead") && i === stepIndex;
          return (
            <li
              key={s}
              data-step={s}
              data-status={done ? "done" : now ? "current" : failedHere ? "failed" : "todo"}
              aria-current={now ? "step" : undefined}
              className={`rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ${done ? "bg-green-50 text-green-800 ring-green-700/30" : now ? "animate-pulse bg-indigo-50 text-indigo-900 ring-indigo-700/40" : failedHere ? "bg-red-50 text-red-800 ring-red-700/30" : "bg-white text-slate-600 ring-slate-300"}`}
            >
              {done ? "✓ " : ""}
              {now ? stepLabel(s, p) : s}
            </li>
          );
        })}
      </ol>
      {p && (
        <p className="mt-1 text-xs text-muted" data-testid="analysis-state">
          Analysis {p.state}
          {p.state === "succeeded" ? " · result stored" : p.state !== "failed" && ` · ${stepLabel(currentStep, p)}`}
          {p.attempts > 0 && ` · attempt ${p.attempts} of ${p.maxAttempts}`}
        </p>
      )}
      {(p?.state === "failed" || p?.state === "dead") && <p className="mt-1 text-sm text-red-800">The analysis failed: {p.error ?? "no reason recorded"}. Check the service is reachable, then re-analyse.</p>}
      {p?.error && p.state !== "failed" && p.state !== "dead" && <p className="mt-1 text-xs text-amber-900">Last attempt: {p.error} (it will be retried).</p>}
      {progressError && <p className="mt-1 text-sm text-red-800">Lost track of the analysis: {progressError.message}. Reload the page.</p>}
    </div>
  );
}
