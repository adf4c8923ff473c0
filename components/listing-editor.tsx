"use client";
/**
 * The listing editor: every field the readiness rules read, inline validation by JSON pointer (the
 * same validateListingDocument gate as saving, run on the server so ajv stays out of the bundle),
 * and a live provisional estimate (scoreReadiness with provisional: true, pure, in the browser).
 */
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState, useTransition, type ReactNode } from "react";
import type { EndpointPricing, HttpMethod, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { scoreReadiness } from "@/lib/scoring/readiness/engine";
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness/rubric";
import type { ReadinessResult } from "@/lib/scoring/readiness/types";
import { saveListingAction, validateListingAction, type SaveActionInput } from "@/lib/surfaces/seller-actions";
import { ProvisionalChip, ReadinessChip } from "./readiness-chip";

type Err = { pointer: string; message: string };
type JsonField = "requestSchema" | "responseSchema" | "requestExample";
const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const RULE_TITLE = new Map(CURRENT_RUBRIC.rules.map((r) => [r.id, r.title]));
const DIM_TITLE = new Map(CURRENT_RUBRIC.dimensions.map((d) => [d.id, d.title]));

const inputCls = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-ink aria-[invalid=true]:border-red-600";
const idOf = (pointer: string) => `f${pointer.replace(/[^A-Za-z0-9]+/g, "-")}`;
const nn = (s: string): string | null => (s.trim() === "" ? null : s);
const jsonText = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v, null, 2));

function emptyEndpoint(): ListingEndpoint {
  return { method: "POST", path: "/", description: null, requestSchema: null, noParameters: false, responseSchema: null, requestExample: null, payable: true, pricing: null, docsUrl: null };
}
function emptyPricing(): EndpointPricing {
  return { label: null, usd: null, machine: null, mode: null, dynamic: null };
}

export interface ListingEditorProps {
  initial: ListingDocument;
  listingId: string | null;
  publicationState: string | null;
  /** The URL the draft was imported from (kept as the listing's source). */
  source?: string | null;
}

export function ListingEditor({ initial, listingId, publicationState, source }: ListingEditorProps) {
  const router = useRouter();
  const [doc, setDoc] = useState<ListingDocument>(initial);
  const [json, setJson] = useState<Record<string, string>>(() => {
    const t: Record<string, string> = {};
    initial.endpoints.forEach((e, i) => {
      for (const f of ["requestSchema", "responseSchema", "requestExample"] as JsonField[]) t[`${i}/${f}`] = jsonText(e[f]);
    });
    return t;
  });
  const [jsonErrors, setJsonErrors] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Err[]>([]);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const [busyIntent, setBusyIntent] = useState<SaveActionInput["intent"] | null>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  // Inline validation: debounced, on the server (the very gate the save uses).
  useEffect(() => {
    let cancelled = false;
    const t = setTimeout(() => {
      validateListingAction(doc)
        .then((e) => !cancelled && setErrors(e))
        .catch(() => {});
    }, 450);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [doc]);

  const estimate = useMemo<ReadinessResult | null>(() => {
    try {
      return scoreReadiness(doc, null, CURRENT_RUBRIC, { provisional: true });
    } catch {
      return null;
    }
  }, [doc]);

  const errFor = (pointer: string) => {
    const own = errors.filter((e) => e.pointer === pointer).map((e) => e.message);
    return own.length ? own.join("; ") : null;
  };

  const set = <K extends keyof ListingDocument>(k: K, v: ListingDocument[K]) => setDoc((d) => ({ ...d, [k]: v }));
  const setOp = (k: keyof ListingDocument["operations"], v: string | null) => setDoc((d) => ({ ...d, operations: { ...d.operations, [k]: v } }));
  const setEp = (i: number, patch: Partial<ListingEndpoint>) => setDoc((d) => ({ ...d, endpoints: d.endpoints.map((e, j) => (j === i ? { ...e, ...patch } : e)) }));
  const setPricing = (i: number, patch: Partial<EndpointPricing>) =>
    setDoc((d) => ({ ...d, endpoints: d.endpoints.map((e, j) => (j === i ? { ...e, pricing: { ...(e.pricing ?? emptyPricing()), ...patch } } : e)) }));

  function setJsonField(i: number, f: JsonField, text: string) {
    const key = `${i}/${f}`;
    setJson((j) => ({ ...j, [key]: text }));
    if (text.trim() === "") {
      setJsonErrors(({ [key]: _drop, ...rest }) => rest);
      setEp(i, { [f]: null } as Partial<ListingEndpoint>);
      return;
    }
    try {
      const v = JSON.parse(text) as unknown;
      setJsonErrors(({ [key]: _drop, ...rest }) => rest);
      setEp(i, { [f]: v } as Partial<ListingEndpoint>);
    } catch (e) {
      setJsonErrors((j) => ({ ...j, [key]: `not valid JSON: ${(e as Error).message}` }));
    }
  }

  function removeEndpoint(i: number) {
    setDoc((d) => ({ ...d, endpoints: d.endpoints.filter((_, j) => j !== i) }));
    setJson((j) => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(j)) {
        const [idx, f] = k.split("/");
        const n = Number(idx);
        if (n < i) out[k] = v;
        else if (n > i) out[`${n - 1}/${f}`] = v;
      }
      return out;
    });
    setJsonErrors({});
  }

  function submit(intent: SaveActionInput["intent"]) {
    setSaveError(null);
    if (Object.keys(jsonErrors).length) {
      setSaveError("Some JSON fields do not parse; fix the fields marked below first.");
      summaryRef.current?.focus();
      return;
    }
    setBusyIntent(intent);
    startTransition(async () => {
      const r = await saveListingAction({ listingId, document: doc, intent, source: source ?? null });
      setBusyIntent(null);
      if (!r.ok) {
        setErrors(r.errors);
        setSaveError(r.message);
        requestAnimationFrame(() => summaryRef.current?.focus());
        return;
      }
      const q = r.analysisId ? `?analysis=${encodeURIComponent(r.analysisId)}` : "";
      router.push(`/dashboard/listings/${r.listingId}${q}`);
      router.refresh();
    });
  }

  const allErrors: Err[] = [...Object.entries(jsonErrors).map(([k, message]) => ({ pointer: `/endpoints/${k}`, message })), ...errors];
  const published = publicationState === "published";

  const text = (label: string, pointer: string, value: string | null, onChange: (v: string | null) => void, opts: { hint?: ReactNode; area?: boolean; rule?: string; type?: string; placeholder?: string } = {}) => {
    const id = idOf(pointer);
    const err = errFor(pointer);
    return (
      <div>
        <label htmlFor={id} className="text-sm font-medium">
          {label} {opts.rule && <span className="ml-1 rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">{opts.rule}</span>}
        </label>
        {opts.area ? (
          <textarea id={id} rows={3} value={value ?? ""} placeholder={opts.placeholder} onChange={(e) => onChange(nn(e.target.value))} className={inputCls} aria-invalid={!!err} aria-describedby={err ? `${id}-err` : undefined} />
        ) : (
          <input id={id} type={opts.type ?? "text"} value={value ?? ""} placeholder={opts.placeholder} onChange={(e) => onChange(nn(e.target.value))} className={inputCls} aria-invalid={!!err} aria-describedby={err ? `${id}-err` : undefined} />
        )}
        {opts.hint && <p className="mt-0.5 text-xs text-muted">{opts.hint}</p>}
        {err && <p id={`${id}-err`} className="mt-0.5 text-xs font-medium text-red-800">{err}</p>}
      </div>
    );
  };

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_20rem]">
      <form
        className="min-w-0 space-y-6"
        onSubmit={(e) => {
          e.preventDefault();
          submit(published ? "reanalyse" : "draft");
        }}
        noValidate
      >
        <div ref={summaryRef} tabIndex={-1} className="outline-none" aria-live="assertive">
          {(saveError || allErrors.length > 0) && (
            <div role={saveError ? "alert" : undefined} className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900">
              {saveError && <p className="font-medium">Not saved: {saveError}</p>}
              {allErrors.length > 0 && (
                <>
                  <p className={saveError ? "mt-1" : "font-medium"}>{allErrors.length} field{allErrors.length === 1 ? " needs" : "s need"} attention before this can be saved:</p>
                  <ul className="mt-1 list-disc pl-5">
                    {allErrors.slice(0, 12).map((e) => (
                      <li key={`${e.pointer}:${e.message}`}>
                        <a href={`#${idOf(e.pointer)}`} className="underline">
                          <code>{e.pointer || "/"}</code>
                        </a>{" "}
                        {e.message}
                      </li>
                    ))}
                  </ul>
                </>
              )}
            </div>
          )}
        </div>

        <Section title="About the service" hint="Metadata: what a buyer and an agent read first.">
          {text("Title", "/title", doc.title, (v) => set("title", v ?? ""), { rule: "M1", placeholder: "Weather forecasts by coordinates" })}
          {text("Short description", "/shortDescription", doc.shortDescription, (v) => set("shortDescription", v), { rule: "M2", hint: "At least 20 characters, in words other than the title." })}
          {text("Detailed description", "/description", doc.description, (v) => set("description", v), { rule: "M3", area: true, hint: "At least 60 characters: what it does, for whom, what a call returns." })}
          <div className="grid gap-4 sm:grid-cols-2">
            {text("Logo URL", "/logoUrl", doc.logoUrl, (v) => set("logoUrl", v), { rule: "M4", type: "url", hint: "A public URL serving an image." })}
            {text("Category", "/category", doc.category, (v) => set("category", v), { rule: "M5", placeholder: "e.g. Maps, AI, Finance" })}
            {text("Homepage URL", "/homepageUrl", doc.homepageUrl, (v) => set("homepageUrl", v), { rule: "M5", type: "url" })}
            {text("Base URL", "/baseUrl", doc.baseUrl, (v) => set("baseUrl", v ?? ""), { type: "url", hint: "Where the endpoints live; the probe calls paths under it." })}
          </div>
        </Section>

        <Section title="Documentation" hint="Where a caller learns to set up, authenticate and pay.">
          <div className="grid gap-4 sm:grid-cols-2">
            {text("Docs URL", "/docsUrl", doc.docsUrl, (v) => set("docsUrl", v), { rule: "D1", type: "url" })}
            {text("Discovery document URL", "/discoveryUrl", doc.discoveryUrl, (v) => set("discoveryUrl", v), { rule: "D4", type: "url", hint: "/.well-known/x402 or an OpenAPI document." })}
          </div>
          {text("Setup, auth and payment walkthrough", "/walkthrough", doc.walkthrough, (v) => set("walkthrough", v), { rule: "D2", area: true, hint: "Step by step, or a URL to it." })}
        </Section>

        <Section title="Payment" hint="Which protocols and networks you accept.">
          <fieldset>
            <legend className="text-sm font-medium">Protocols</legend>
            <div className="mt-1 flex gap-4 text-sm">
              {(["x402", "mpp"] as const).map((p) => (
                <label key={p} className="inline-flex items-center gap-1.5">
                  <input type="checkbox" checked={doc.protocols.includes(p)} onChange={(e) => set("protocols", e.target.checked ? [...doc.protocols, p] : doc.protocols.filter((x) => x !== p))} />
                  {p === "mpp" ? "MPP" : "x402"}
                </label>
              ))}
            </div>
          </fieldset>
          <NetworksInput value={doc.networks} onChange={(v) => set("networks", v)} errors={errors.filter((e) => e.pointer.startsWith("/networks"))} />
        </Section>

        <Section title="Operations" hint="What a caller must know before the first call (O1–O4).">
          <div className="grid gap-4 sm:grid-cols-2">
            {text("Auth preconditions", "/operations/authPreconditions", doc.operations.authPreconditions, (v) => setOp("authPreconditions", v), { rule: "O1", placeholder: "None: payment is the only credential" })}
            {text("Network requirements", "/operations/networkRequirements", doc.operations.networkRequirements, (v) => setOp("networkRequirements", v), { rule: "O2" })}
            {text("Funding requirements", "/operations/fundingRequirements", doc.operations.fundingRequirements, (v) => setOp("fundingRequirements", v), { rule: "O2", placeholder: "USDC on Base; no gas needed" })}
            {text("Rate limits", "/operations/limits", doc.operations.limits, (v) => setOp("limits", v), { rule: "O3" })}
            {text("Timeouts", "/operations/timeouts", doc.operations.timeouts, (v) => setOp("timeouts", v), { rule: "O3" })}
            <div>
              <label htmlFor={idOf("/operations/syncMode")} className="text-sm font-medium">
                Sync or async <span className="ml-1 rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">O3</span>
              </label>
              <select id={idOf("/operations/syncMode")} value={doc.operations.syncMode ?? ""} onChange={(e) => setOp("syncMode", nn(e.target.value) as never)} className={inputCls}>
                <option value="">Not declared</option>
                <option value="sync">Synchronous</option>
                <option value="async">Asynchronous</option>
                <option value="mixed">Mixed</option>
              </select>
            </div>
            {text("Error model", "/operations/errors", doc.operations.errors, (v) => setOp("errors", v), { rule: "O4" })}
            {text("Idempotency", "/operations/idempotency", doc.operations.idempotency, (v) => setOp("idempotency", v), { rule: "O4" })}
            {text("Support channel", "/operations/supportChannel", doc.operations.supportChannel, (v) => setOp("supportChannel", v), { rule: "O4", placeholder: "support@example.com" })}
          </div>
        </Section>

        <section aria-labelledby="endpoints-h" className="rounded-xl border border-line bg-white p-4 sm:p-5">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 id="endpoints-h" className="text-lg font-semibold">Endpoints <span className="text-sm font-normal text-muted">({doc.endpoints.length})</span></h2>
            <button type="button" onClick={() => setDoc((d) => ({ ...d, endpoints: [...d.endpoints, emptyEndpoint()] }))} className="rounded-md border border-line px-3 py-1.5 text-sm hover:bg-slate-50">
              Add an endpoint
            </button>
          </div>
          {doc.endpoints.length === 0 && <p className="mt-3 text-sm text-muted">No endpoints yet. E1 needs at least one: add the paid routes your service answers.</p>}
          <ol className="mt-3 space-y-4">
            {doc.endpoints.map((e, i) => {
              const p = `/endpoints/${i}`;
              const pr = e.pricing ?? emptyPricing();
              const jsonArea = (f: JsonField, label: string, rule: string, hint: string) => {
                const id = idOf(`${p}/${f}`);
                const err = jsonErrors[`${i}/${f}`] ?? errFor(`${p}/${f}`);
                return (
                  <div>
                    <label htmlFor={id} className="text-sm font-medium">
                      {label} <span className="ml-1 rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">{rule}</span>
                    </label>
                    <textarea id={id} rows={4} spellCheck={false} value={json[`${i}/${f}`] ?? ""} onChange={(ev) => setJsonField(i, f, ev.target.value)} className={`${inputCls} font-mono text-xs`} aria-invalid={!!err} aria-describedby={`${id}-hint`} />
                    <p id={`${id}-hint`} className="mt-0.5 text-xs text-muted">{hint}</p>
                    {err && <p className="mt-0.5 text-xs font-medium text-red-800">{err}</p>}
                  </div>
                );
              };
              return (
                <li key={i} className="rounded-lg border border-line p-3 sm:p-4">
                  <fieldset className="space-y-3">
                    <legend className="flex w-full items-center justify-between gap-2 text-sm font-semibold">
                      <span>
                        Endpoint {i + 1}: <code className="font-mono">{e.method} {e.path}</code>
                      </span>
                    </legend>
                    <div className="grid gap-3 sm:grid-cols-[8rem_1fr]">
                      <div>
                        <label htmlFor={idOf(`${p}/method`)} className="text-sm font-medium">Method</label>
                        <select id={idOf(`${p}/method`)} value={e.method} onChange={(ev) => setEp(i, { method: ev.target.value as HttpMethod })} className={inputCls}>
                          {METHODS.map((m) => (
                            <option key={m}>{m}</option>
                          ))}
                        </select>
                      </div>
                      {text("Path", `${p}/path`, e.path, (v) => setEp(i, { path: v ?? "" }), { rule: "E2", placeholder: "/v1/forecast" })}
                    </div>
                    {text("Description", `${p}/description`, e.description, (v) => setEp(i, { description: v }), { rule: "E2", hint: "At least 10 characters: what one call does." })}
                    <label className="inline-flex items-center gap-2 text-sm">
                      <input type="checkbox" checked={e.noParameters} onChange={(ev) => setEp(i, { noParameters: ev.target.checked })} />
                      This endpoint takes no parameters <span className="rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">E3</span>
                    </label>
                    <div className="grid gap-3 md:grid-cols-2">
                      {!e.noParameters && jsonArea("requestSchema", "Request schema (JSON Schema)", "E3", "The body or query a call sends.")}
                      {jsonArea("responseSchema", "Response schema (JSON Schema)", "E4", "What a paid call returns.")}
                      {jsonArea("requestExample", "Safe request example (JSON)", "E5", "A request that costs nothing and changes nothing.")}
                      {text("Endpoint docs URL", `${p}/docsUrl`, e.docsUrl, (v) => setEp(i, { docsUrl: v }), { rule: "D3", type: "url", hint: "The docs page documenting this endpoint's schemas and examples." })}
                    </div>
                    <label className="inline-flex items-center gap-2 text-sm">
                      <input type="checkbox" checked={e.payable} onChange={(ev) => setEp(i, { payable: ev.target.checked })} />
                      Payable: answers HTTP 402 and charges per call
                    </label>
                    {e.payable && (
                      <fieldset className="rounded-md bg-slate-50 p-3">
                        <legend className="px-1 text-sm font-semibold">Price (P1–P4)</legend>
                        <div className="grid gap-3 sm:grid-cols-3">
                          {text("Price label", `${p}/pricing/label`, pr.label, (v) => setPricing(i, { label: v }), { rule: "P1", placeholder: "$0.01 per call" })}
                          {text("Price in USD", `${p}/pricing/usd`, pr.usd, (v) => setPricing(i, { usd: v }), { rule: "P1", placeholder: "0.01" })}
                          <div>
                            <label htmlFor={idOf(`${p}/pricing/mode`)} className="text-sm font-medium">
                              Fixed or dynamic <span className="ml-1 rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">P3</span>
                            </label>
                            <select id={idOf(`${p}/pricing/mode`)} value={pr.mode ?? ""} onChange={(ev) => setPricing(i, { mode: nn(ev.target.value) as EndpointPricing["mode"] })} className={inputCls}>
                              <option value="">Not declared</option>
                              <option value="fixed">Fixed</option>
                              <option value="dynamic">Dynamic</option>
                            </select>
                          </div>
                        </div>
                        <p className="mt-3 text-xs font-semibold text-slate-700">Machine-readable price <span className="rounded bg-white px-1 font-mono text-[11px]">P2</span></p>
                        <div className="grid gap-3 sm:grid-cols-4">
                          {(["amount", "asset", "network"] as const).map((k) => (
                            <div key={k}>
                              {text(k === "amount" ? "Atomic amount" : k === "asset" ? "Asset" : "Network (CAIP-2)", `${p}/pricing/machine/${k}`, pr.machine?.[k] ?? null, (v) =>
                                setPricing(i, { machine: { amount: "", asset: "", network: "", decimals: 6, ...(pr.machine ?? {}), [k]: v ?? "" } }),
                              )}
                            </div>
                          ))}
                          <div>
                            <label htmlFor={idOf(`${p}/pricing/machine/decimals`)} className="text-sm font-medium">Decimals</label>
                            <input
                              id={idOf(`${p}/pricing/machine/decimals`)}
                              type="number"
                              min={0}
                              max={36}
                              value={pr.machine?.decimals ?? ""}
                              onChange={(ev) => setPricing(i, { machine: { amount: "", asset: "", network: "", ...(pr.machine ?? {}), decimals: Number(ev.target.value) } })}
                              className={inputCls}
                            />
                          </div>
                        </div>
                        {pr.machine && (
                          <button type="button" onClick={() => setPricing(i, { machine: null })} className="mt-1 text-xs text-brand underline">
                            Remove the machine-readable price
                          </button>
                        )}
                        {pr.mode === "dynamic" && (
                          <>
                            <p className="mt-3 text-xs font-semibold text-slate-700">Dynamic range <span className="rounded bg-white px-1 font-mono text-[11px]">P4</span></p>
                            <div className="grid gap-3 sm:grid-cols-4">
                              {(["min", "max", "driver", "unit"] as const).map((k) => (
                                <div key={k}>
                                  {text(k === "min" ? "Lowest (USD)" : k === "max" ? "Highest (USD)" : k === "driver" ? "Price driver" : "Unit", `${p}/pricing/dynamic/${k}`, pr.dynamic?.[k] ?? null, (v) =>
                                    setPricing(i, { dynamic: { min: null, max: null, driver: null, unit: null, ...(pr.dynamic ?? {}), [k]: v } }),
                                  )}
                                </div>
                              ))}
                            </div>
                          </>
                        )}
                      </fieldset>
                    )}
                    <button type="button" onClick={() => removeEndpoint(i)} className="text-sm text-red-800 underline">
                      Remove endpoint {i + 1}
                    </button>
                  </fieldset>
                </li>
              );
            })}
          </ol>
        </section>

        <div className="sticky bottom-0 z-10 -mx-4 flex flex-wrap items-center gap-3 border-t border-line bg-white/95 px-4 py-3 backdrop-blur sm:mx-0 sm:rounded-xl sm:border">
          {published ? (
            <>
              <button type="button" disabled={pending} onClick={() => submit("reanalyse")} className="rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-60">
                {busyIntent === "reanalyse" ? "Saving…" : "Save and re-analyse"}
              </button>
              <button type="button" disabled={pending} onClick={() => submit("draft")} className="rounded-md border border-line px-4 py-2 text-sm hover:bg-slate-50 disabled:opacity-60">
                {busyIntent === "draft" ? "Saving…" : "Save without analysing"}
              </button>
            </>
          ) : (
            <>
              <button type="button" disabled={pending} onClick={() => submit("publish")} className="rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-60">
                {busyIntent === "publish" ? "Publishing…" : "Publish and analyse"}
              </button>
              <button type="button" disabled={pending} onClick={() => submit("draft")} className="rounded-md border border-line px-4 py-2 text-sm hover:bg-slate-50 disabled:opacity-60">
                {busyIntent === "draft" ? "Saving…" : "Save as draft"}
              </button>
            </>
          )}
          <span className="text-xs text-muted">{published ? "The listing is published; the analysis runs the live probe again." : "Publishing lists it in the catalog and runs the live probe."}</span>
        </div>
      </form>

      <Estimate estimate={estimate} />
    </div>
  );
}

function Section({ title, hint, children }: { title: string; hint: string; children: ReactNode }) {
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

function NetworksInput({ value, onChange, errors }: { value: string[]; onChange: (v: string[]) => void; errors: Err[] }) {
  const [raw, setRaw] = useState(value.join(", "));
  const id = idOf("/networks");
  return (
    <div>
      <label htmlFor={id} className="text-sm font-medium">
        Networks <span className="ml-1 rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">O2</span>
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

/** Seed 004 "Provisional estimate": H1–H3 not observed, no cap evaluated; never published. */
function Estimate({ estimate }: { estimate: ReadinessResult | null }) {
  return (
    <aside aria-labelledby="estimate-h" className="self-start rounded-xl border border-violet-300 bg-violet-50/60 p-4 lg:sticky lg:top-4">
      <div className="flex items-center justify-between gap-2">
        <h2 id="estimate-h" className="text-sm font-semibold text-violet-950">Provisional estimate</h2>
        <ProvisionalChip />
      </div>
      <p className="mt-1 text-xs text-violet-950">Provisional estimate — no live probe yet; never published. Health (H1–H3) counts as not observed and no cap is applied.</p>
      {!estimate ? (
        <p className="mt-3 text-sm text-muted">Fill in the title and base URL to see an estimate.</p>
      ) : (
        <div aria-live="polite">
          <div className="mt-3">
            <ReadinessChip score={estimate.total} band={estimate.band.label} size="lg" />
          </div>
          <ul className="mt-3 space-y-1.5 text-xs">
            {estimate.dimensions.map((d) => (
              <li key={d.id}>
                <div className="flex justify-between">
                  <span>{DIM_TITLE.get(d.id)}</span>
                  <span className="tabular-nums">
                    {fmt(d.earned)} / {d.max}
                  </span>
                </div>
                <div className="mt-0.5 h-1.5 rounded bg-violet-100" aria-hidden>
                  <div className="h-1.5 rounded bg-violet-700" style={{ width: `${(d.earned / d.max) * 100}%` }} />
                </div>
              </li>
            ))}
          </ul>
          {estimate.improvements.length > 0 && (
            <>
              <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-violet-950">Worth the most points</h3>
              <ol className="mt-1 space-y-1 text-xs">
                {estimate.improvements.slice(0, 5).map((i) => (
                  <li key={i.ruleId} className="flex gap-2">
                    <span className="font-mono font-semibold">{i.ruleId}</span>
                    <span className="flex-1">{RULE_TITLE.get(i.ruleId)}</span>
                    <span className="tabular-nums font-semibold">+{fmt(i.points)}</span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
      )}
    </aside>
  );
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, "");
}
