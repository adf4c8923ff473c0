/** One endpoint of the listing: method and path, description, schemas and example (as JSON), docs, payable and its price. */
import type { EndpointPricing, HttpMethod, ListingEndpoint } from "@/lib/listing-document/document";
import { emptyPricing, idOf, METHODS, type JsonField } from "./model";
import { inputCls, JsonArea, TextField } from "./fields";
import { PricingEditor } from "./pricing-editor";

export function EndpointEditor(props: {
  index: number;
  endpoint: ListingEndpoint;
  /** The JSON text areas' contents and parse errors, and the edit of one. */
  jsonText: (f: JsonField) => string;
  jsonError: (f: JsonField) => string | undefined;
  onJson: (f: JsonField, text: string) => void;
  onChange: (patch: Partial<ListingEndpoint>) => void;
  onPricing: (patch: Partial<EndpointPricing>) => void;
  onRemove: () => void;
}) {
  const { index: i, endpoint: e, onChange } = props;
  const p = `/endpoints/${i}`;
  const json = (f: JsonField, label: string, rule: string, hint: string) => (
    <JsonArea pointer={`${p}/${f}`} label={label} rule={rule} hint={hint} text={props.jsonText(f)} parseError={props.jsonError(f)} onChange={(text) => props.onJson(f, text)} />
  );
  return (
    <li className="rounded-lg border border-line p-3 sm:p-4">
      <fieldset className="space-y-3">
        <legend className="flex w-full items-center justify-between gap-2 text-sm font-semibold">
          <span>
            Endpoint {i + 1}: <code className="font-mono">{e.method} {e.path}</code>
          </span>
        </legend>
        <div className="grid gap-3 sm:grid-cols-[8rem_1fr]">
          <div>
            <label htmlFor={idOf(`${p}/method`)} className="text-sm font-medium">Method</label>
            <select id={idOf(`${p}/method`)} value={e.method} onChange={(ev) => onChange({ method: ev.target.value as HttpMethod })} className={inputCls}>
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </div>
          <TextField label="Path" pointer={`${p}/path`} value={e.path} onChange={(v) => onChange({ path: v ?? "" })} rule="E2" placeholder="/v1/forecast" />
        </div>
        <TextField label="Description" pointer={`${p}/description`} value={e.description} onChange={(v) => onChange({ description: v })} rule="E2" hint="At least 10 characters: what one call does." />
        <label className="inline-flex items-center gap-2 text-sm">
          <input type="checkbox" checked={e.noParameters} onChange={(ev) => onChange({ noParameters: ev.target.checked })} />
          This endpoint takes no parameters <span className="rounded bg-slate-100 px-1 font-mono text-[11px] text-slate-700">E3</span>
        </label>
        <div className="grid gap-3 md:grid-cols-2">
          {!e.noParameters && json("requestSchema", "Request schema (JSON Schema)", "E3", "The body or query a call sends.")}
          {json("responseSchema", "Response schema (JSON Schema)", "E4", "What a paid call returns.")}
          {json("requestExample", "Safe request example (JSON)", "E5", "A request that costs nothing and changes nothing.")}
          <TextField label="Endpoint docs URL" pointer={`${p}/docsUrl`} value={e.docsUrl} onChange={(v) => onChange({ docsUrl: v })} rule="D3" type="url" hint="The docs page documenting this endpoint's schemas and examples." />
        </div>
        <label className="inline-flex items-center gap-2 text-sm">
          <input type="checkbox" checked={e.payable} onChange={(ev) => onChange({ payable: ev.target.checked })} />
          Payable: answers HTTP 402 and charges per call
        </label>
        {e.payable && <PricingEditor pointer={p} pricing={e.pricing ?? emptyPricing()} onChange={props.onPricing} />}
        <button type="button" onClick={props.onRemove} className="text-sm text-red-800 underline">
          Remove endpoint {i + 1}
        </button>
      </fieldset>
    </li>
  );
}
