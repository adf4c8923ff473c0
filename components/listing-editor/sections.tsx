/** The editor's endpoint list and its price change note. */
import type { EndpointPricing, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { PRICE_CHANGE_NOTE_MAX, PRICE_CHANGE_NOTE_POINTER } from "@/lib/listings/price-change-note";
import { jsonKey, type JsonField } from "./model";
import { Section, TextField } from "./fields";
import { EndpointEditor } from "./endpoint-editor";

interface EndpointsProps {
  endpoints: ListingDocument["endpoints"];
  json: Record<string, string>;
  jsonErrors: Record<string, string>;
  onAdd: () => void;
  onJson: (i: number, f: JsonField, text: string) => void;
  onChange: (i: number, patch: Partial<ListingEndpoint>) => void;
  onPricing: (i: number, patch: Partial<EndpointPricing>) => void;
  onRemove: (i: number) => void;
}

export function EndpointsSection({ endpoints, json, jsonErrors, onAdd, onJson, onChange, onPricing, onRemove }: EndpointsProps) {
  return (
    <section aria-labelledby="endpoints-h" className="rounded-xl border border-line bg-white p-4 sm:p-5">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="endpoints-h" className="text-lg font-semibold">Endpoints <span className="text-sm font-normal text-muted">({endpoints.length})</span></h2>
        <button type="button" onClick={onAdd} className="rounded-md border border-line px-3 py-1.5 text-sm hover:bg-slate-50">
          Add an endpoint
        </button>
      </div>
      {endpoints.length === 0 && <p className="mt-3 text-sm text-muted">No endpoints yet. E1 needs at least one: add the paid routes your service answers.</p>}
      <ol className="mt-3 space-y-4">
        {endpoints.map((e, i) => (
          <EndpointEditor
            key={i}
            index={i}
            endpoint={e}
            jsonText={(f) => json[jsonKey(i, f)] ?? ""}
            jsonError={(f) => jsonErrors[jsonKey(i, f)]}
            onJson={(f, text) => onJson(i, f, text)}
            onChange={(patch) => onChange(i, patch)}
            onPricing={(patch) => onPricing(i, patch)}
            onRemove={() => onRemove(i)}
          />
        ))}
      </ol>
    </section>
  );
}

export function PriceNoteSection({ value, onChange }: { value: string | null; onChange: (v: string | null) => void }) {
  return (
    <Section title="Price change note" hint="Changing a payable endpoint's listed price? Say what changed and why. Buyers see the note beside the price change on the endpoint's trust page, and a noted increase does not fail the trust check H2 (price stable).">
      <TextField
        label="Price change note"
        pointer={PRICE_CHANGE_NOTE_POINTER}
        value={value}
        onChange={onChange}
        area
        max={PRICE_CHANGE_NOTE_MAX}
        rule="H2"
        placeholder="From 1 March the price rises to $0.02 per call: the forecasts now use the hourly model."
        hint="Saved only with a save that changes a payable endpoint's atomic amount, asset, network or mode; a note with no price change is refused."
      />
    </Section>
  );
}
