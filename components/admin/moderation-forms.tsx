"use client";
/** Moderation levers as forms (useActionState): each needs a reason, shows the outcome and the browse position before → after. */
import { useActionState, type ReactNode } from "react";
import { canaryAction, setCurationAction, setFeaturedAction, type ModerationState } from "@/lib/surfaces/admin-actions";

const idle: ModerationState = { status: "idle" };
const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm aria-[invalid=true]:border-red-600";

function Outcome({ state }: { state: ModerationState }) {
  if (state.status === "idle") return null;
  if (state.status === "error") {
    return (
      <p role="alert" className="mt-2 rounded-md bg-red-50 p-2 text-sm text-red-900">
        Not saved: {state.message}
      </p>
    );
  }
  const pos = (p: number | null) => (p === null ? "not listed" : `#${p}`);
  return (
    <p role="status" className="mt-2 rounded-md bg-green-50 p-2 text-sm text-green-900">
      {state.message} Browse position <strong data-testid="position-before">{pos(state.positionBefore)}</strong> → <strong data-testid="position-after">{pos(state.positionAfter)}</strong> of {state.of}
      {state.rank100 !== null && ` · rank ${state.rank100} (quality ${state.quality100})`}.
    </p>
  );
}

const formKey = (state: ModerationState) => (state.status === "error" ? `e:${JSON.stringify(state.values)}:${state.message}` : state.status === "ok" ? `ok:${state.message}` : "idle");
const kept = (state: ModerationState, key: string, fallback: string) => (state.status === "error" ? (state.values[key] ?? fallback) : fallback);

function Reason({ id, invalid, defaultValue }: { id: string; invalid: boolean; defaultValue: string }) {
  return (
    <div>
      <label htmlFor={id} className="text-sm font-medium">Reason <span className="text-red-800">(required)</span></label>
      <textarea id={id} name="reason" required rows={2} defaultValue={defaultValue} maxLength={2000} className={input} aria-invalid={invalid} placeholder="Why this change? It is kept in the audit log." />
    </div>
  );
}

function Card({ title, hint, children }: { title: string; hint: string; children: ReactNode }) {
  return (
    <section className="rounded-xl border border-line bg-white p-4">
      <h3 className="font-semibold">{title}</h3>
      <p className="text-xs text-muted">{hint}</p>
      {children}
    </section>
  );
}

type LeverAction = (prev: ModerationState, form: FormData) => Promise<ModerationState>;
/** A field's value to show: what was submitted when the save failed, else the current one. */
type Kept = (key: string, fallback: string) => string;

/** One lever's card: its fields, the required reason, the submit button and the outcome. */
function LeverForm(props: { title: string; hint: string; action: LeverAction; reasonId: string; submit: string; fields: (kept: Kept, bad: string | null) => ReactNode }) {
  const [state, action, pending] = useActionState(props.action, idle);
  const bad = state.status === "error" ? state.field : null;
  return (
    <Card title={props.title} hint={props.hint}>
      <form key={formKey(state)} action={action} className="mt-3 space-y-3">
        {props.fields((key, fallback) => kept(state, key, fallback), bad)}
        <Reason id={props.reasonId} invalid={bad === "reason"} defaultValue={kept(state, "reason", "")} />
        <button type="submit" disabled={pending} className="rounded-md bg-brand px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-60">
          {pending ? "Saving…" : props.submit}
        </button>
      </form>
      <Outcome state={state} />
    </Card>
  );
}

export function FeaturedForm({ listingId, current }: { listingId: string; current: number }) {
  return (
    <LeverForm
      title="Featured level"
      hint="×(1 + 0.1 × level); forced to ×1.00 when the gate says unpayable. Internal only."
      action={setFeaturedAction.bind(null, listingId)}
      reasonId={`featured-reason-${listingId}`}
      submit="Set featured level"
      fields={(kept, bad) => (
        <div>
          <label htmlFor={`featured-${listingId}`} className="text-sm font-medium">Level (0–5)</label>
          <select id={`featured-${listingId}`} name="level" defaultValue={kept("level", String(current))} className={input} aria-invalid={bad === "level"}>
            {[0, 1, 2, 3, 4, 5].map((l) => (
              <option key={l} value={l}>{l} · ×{(1 + 0.1 * l).toFixed(2)}</option>
            ))}
          </select>
        </div>
      )}
    />
  );
}

/** Verification is the canary's outcome (docs/CANARY.md): a moderator starts a run or suspends the listing's canary, never sets the status. */
export function CanaryForm({ listingId, verification, suspended }: { listingId: string; verification: string; suspended: boolean }) {
  return (
    <LeverForm
      title="Canary"
      hint={`Verification comes from paid canary runs: ${verification}${suspended ? " (canary suspended)" : ""}. verified ×1.00 · unverified ×0.85 · degraded ×0.50.`}
      action={canaryAction.bind(null, listingId)}
      reasonId={`canary-reason-${listingId}`}
      submit="Apply"
      fields={(kept, bad) => (
        <div>
          <label htmlFor={`canary-${listingId}`} className="text-sm font-medium">Action</label>
          <select id={`canary-${listingId}`} name="canary" defaultValue={kept("canary", suspended ? "resume" : "run")} className={input} aria-invalid={bad === "canary"}>
            {!suspended && <option value="run">start a canary run now</option>}
            {!suspended && <option value="suspend">suspend this listing&apos;s canary</option>}
            {suspended && <option value="resume">resume this listing&apos;s canary</option>}
          </select>
        </div>
      )}
    />
  );
}

export function CurationForm({ listingId, tier, sortWeight }: { listingId: string; tier: number; sortWeight: number }) {
  return (
    <LeverForm
      title="Tier and sort weight"
      hint="Visible curation levers: tier ascending, then sort weight descending, come before rank."
      action={setCurationAction.bind(null, listingId)}
      reasonId={`curation-reason-${listingId}`}
      submit="Set tier and weight"
      fields={(kept, bad) => (
        <div className="grid grid-cols-2 gap-3">
          <div>
            <label htmlFor={`tier-${listingId}`} className="text-sm font-medium">Tier</label>
            <input id={`tier-${listingId}`} name="tier" type="number" min={0} step={1} defaultValue={kept("tier", String(tier))} className={input} aria-invalid={bad === "tier"} />
          </div>
          <div>
            <label htmlFor={`sw-${listingId}`} className="text-sm font-medium">Sort weight</label>
            <input id={`sw-${listingId}`} name="sortWeight" type="number" step={1} defaultValue={kept("sortWeight", String(sortWeight))} className={input} aria-invalid={bad === "sortWeight"} />
          </div>
        </div>
      )}
    />
  );
}
