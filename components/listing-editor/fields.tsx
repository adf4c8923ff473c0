/** The listing editor's fields: each input's id comes from its JSON pointer, its message from the FieldErrors context. */
import { createContext, useContext, useState, type ReactNode } from "react";
import { codePointLength, fieldMaxLength } from "@/lib/listing-document/limits";
import { idOf, nn, type Err } from "./model";

export const inputCls = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-ink aria-[invalid=true]:border-red-600";

/** The validation message for a JSON pointer, or null. */
export const FieldErrors = createContext<(pointer: string) => string | null>(() => null);

/** The readiness rule a field feeds, next to its label. */
export function RuleTag({ rule }: { rule: string }) {
  return <span className="ml-1 rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">{rule}</span>;
}

export function Section({ title, hint, children }: { title: string; hint: string; children: ReactNode }) {
  return (
    <section className="space-y-4 rounded-xl border border-line bg-white p-4 sm:p-5">
      <div>
        <h2 className="text-lg font-semibold">{title}</h2>
        <p className="text-sm text-muted">{hint}</p>
      </div>
      {children}
    </section>
  );
}

export function TextField(props: {
  label: string;
  pointer: string;
  value: string | null;
  onChange: (v: string | null) => void;
  hint?: ReactNode;
  area?: boolean;
  rule?: string;
  type?: string;
  placeholder?: string;
  /** A length limit for a field outside the listing schema (the schema's own limit otherwise). */
  max?: number;
}) {
  const id = idOf(props.pointer);
  const err = useContext(FieldErrors)(props.pointer);
  const describedBy = [err ? `${id}-err` : null, `${id}-count`].filter(Boolean).join(" ");
  return (
    <div>
      <label htmlFor={id} className="text-sm font-medium">
        {props.label} {props.rule && <RuleTag rule={props.rule} />}
      </label>
      {props.area ? (
        <textarea id={id} rows={3} value={props.value ?? ""} placeholder={props.placeholder} onChange={(e) => props.onChange(nn(e.target.value))} className={inputCls} aria-invalid={!!err} aria-describedby={describedBy} />
      ) : (
        <input id={id} type={props.type ?? "text"} value={props.value ?? ""} placeholder={props.placeholder} onChange={(e) => props.onChange(nn(e.target.value))} className={inputCls} aria-invalid={!!err} aria-describedby={describedBy} />
      )}
      <div className="flex flex-wrap items-start justify-between gap-x-3">
        {props.hint ? <p className="mt-0.5 text-xs text-muted">{props.hint}</p> : <span />}
        <LimitCounter id={`${id}-count`} pointer={props.pointer} value={props.value} max={props.max} />
      </div>
      {err && <p id={`${id}-err`} className="mt-0.5 text-xs font-medium text-red-800">{err}</p>}
    </div>
  );
}

/** "123 / 20,000": the field's length against its schema limit (lib/listing-document/limits.ts), red when over. */
export function LimitCounter({ id, pointer, value, max: own }: { id: string; pointer: string; value: string | null; max?: number }) {
  const max = own ?? fieldMaxLength(pointer);
  const len = value ? codePointLength(value) : 0;
  if (max === null) return <span id={id} className="sr-only">No length limit</span>;
  const over = len > max;
  return (
    <p id={id} data-testid="limit-counter" className={`mt-0.5 shrink-0 text-xs tabular-nums ${over ? "font-semibold text-red-800" : len > max * 0.9 ? "text-amber-800" : "text-muted"}`}>
      {len.toLocaleString("en-US")} / {max.toLocaleString("en-US")}
      {over && ` · ${(len - max).toLocaleString("en-US")} over the limit`}
    </p>
  );
}

/** A JSON text area: its own parse error first, else the validation message for its pointer. */
export function JsonArea(props: { pointer: string; label: string; rule: string; hint: string; text: string; parseError: string | undefined; onChange: (text: string) => void }) {
  const id = idOf(props.pointer);
  const errFor = useContext(FieldErrors);
  const err = props.parseError ?? errFor(props.pointer);
  return (
    <div>
      <label htmlFor={id} className="text-sm font-medium">
        {props.label} <RuleTag rule={props.rule} />
      </label>
      <textarea id={id} rows={4} spellCheck={false} value={props.text} onChange={(ev) => props.onChange(ev.target.value)} className={`${inputCls} font-mono text-xs`} aria-invalid={!!err} aria-describedby={`${id}-hint`} />
      <p id={`${id}-hint`} className="mt-0.5 text-xs text-muted">{props.hint}</p>
      {err && <p className="mt-0.5 text-xs font-medium text-red-800">{err}</p>}
    </div>
  );
}

export function NetworksInput({ value, onChange, errors }: { value: string[]; onChange: (v: string[]) => void; errors: Err[] }) {
  const [raw, setRaw] = useState(value.join(", "));
  const id = idOf("/networks");
  return (
    <div>
      <label htmlFor={id} className="text-sm font-medium">
        Networks <RuleTag rule="O2" />
      </label>
      <input
        id={id}
        value={raw}
        onChange={(e) => {
          setRaw(e.target.value);
          onChange([...new Set(e.target.value.split(/[\s,]+/).filter(Boolean))]);
        }}
        placeholder="eip155:8453, eip155:84532"
        className={`${inputCls} font-mono`}
        aria-invalid={errors.length > 0}
        aria-describedby={`${id}-hint`}
      />
      <p id={`${id}-hint`} className="mt-0.5 text-xs text-muted">CAIP-2 ids, comma separated (Base is eip155:8453).</p>
      {errors.map((e) => (
        <p key={e.pointer} className="mt-0.5 text-xs font-medium text-red-800">
          <code>{e.pointer}</code> {e.message}
        </p>
      ))}
    </div>
  );
}
