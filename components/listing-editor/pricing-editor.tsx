/** One payable endpoint's price (P1–P4): label and USD, fixed or dynamic, the machine-readable price, the dynamic range. */
import type { EndpointPricing } from "@/lib/listing-document/document";
import { idOf, nn } from "./model";
import { inputCls, RuleTag, TextField } from "./fields";

const MACHINE_LABEL = { amount: "Atomic amount", asset: "Asset", network: "Network (CAIP-2)" } as const;
const DYNAMIC_LABEL = { min: "Lowest (USD)", max: "Highest (USD)", driver: "Price driver", unit: "Unit" } as const;

/** `pointer` is the endpoint's (/endpoints/i); `onChange` merges a patch into its pricing. */
export function PricingEditor({ pointer: p, pricing: pr, onChange }: { pointer: string; pricing: EndpointPricing; onChange: (patch: Partial<EndpointPricing>) => void }) {
  return (
    <fieldset className="rounded-md bg-slate-50 p-3">
      <legend className="px-1 text-sm font-semibold">Price (P1–P4)</legend>
      <div className="grid gap-3 sm:grid-cols-3">
        <TextField label="Price label" pointer={`${p}/pricing/label`} value={pr.label} onChange={(v) => onChange({ label: v })} rule="P1" placeholder="$0.01 per call" />
        <TextField label="Price in USD" pointer={`${p}/pricing/usd`} value={pr.usd} onChange={(v) => onChange({ usd: v })} rule="P1" placeholder="0.01" />
        <div>
          <label htmlFor={idOf(`${p}/pricing/mode`)} className="text-sm font-medium">
            Fixed or dynamic <RuleTag rule="P3" />
          </label>
          <select id={idOf(`${p}/pricing/mode`)} value={pr.mode ?? ""} onChange={(ev) => onChange({ mode: nn(ev.target.value) as EndpointPricing["mode"] })} className={inputCls}>
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
            <TextField
              label={MACHINE_LABEL[k]}
              pointer={`${p}/pricing/machine/${k}`}
              value={pr.machine?.[k] ?? null}
              onChange={(v) => onChange({ machine: { amount: "", asset: "", network: "", decimals: 6, ...(pr.machine ?? {}), [k]: v ?? "" } })}
            />
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
            onChange={(ev) => onChange({ machine: { amount: "", asset: "", network: "", ...(pr.machine ?? {}), decimals: Number(ev.target.value) } })}
            className={inputCls}
          />
        </div>
      </div>
      {pr.machine && (
        <button type="button" onClick={() => onChange({ machine: null })} className="mt-1 text-xs text-brand underline">
          Remove the machine-readable price
        </button>
      )}
      {pr.mode === "dynamic" && (
        <>
          <p className="mt-3 text-xs font-semibold text-slate-700">Dynamic range <span className="rounded bg-white px-1 font-mono text-[11px]">P4</span></p>
          <div className="grid gap-3 sm:grid-cols-4">
            {(["min", "max", "driver", "unit"] as const).map((k) => (
              <div key={k}>
                <TextField
                  label={DYNAMIC_LABEL[k]}
                  pointer={`${p}/pricing/dynamic/${k}`}
                  value={pr.dynamic?.[k] ?? null}
                  onChange={(v) => onChange({ dynamic: { min: null, max: null, driver: null, unit: null, ...(pr.dynamic ?? {}), [k]: v } })}
                />
              </div>
            ))}
          </div>
        </>
      )}
    </fieldset>
  );
}
