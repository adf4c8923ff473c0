/** The listing-level sections of the editor: about, documentation, payment and operations. */
import type { ListingDocument } from "@/lib/listing-document/document";
import { idOf, nn, type Err } from "./model";
import { inputCls, NetworksInput, RuleTag, Section, TextField } from "./fields";

type Operations = ListingDocument["operations"];

export function ListingFields(props: {
  doc: ListingDocument;
  set: <K extends keyof ListingDocument>(k: K, v: ListingDocument[K]) => void;
  setOp: (k: keyof Operations, v: string | null) => void;
  /** Validation messages under /networks (shown by the networks input itself). */
  networkErrors: Err[];
}) {
  const { doc, set, setOp } = props;
  return (
    <>
      <Section title="About the service" hint="Metadata: what a buyer and an agent read first.">
        <TextField label="Title" pointer="/title" value={doc.title} onChange={(v) => set("title", v ?? "")} rule="M1" placeholder="Weather forecasts by coordinates" />
        <TextField label="Short description" pointer="/shortDescription" value={doc.shortDescription} onChange={(v) => set("shortDescription", v)} rule="M2" hint="At least 20 characters, in words other than the title." />
        <TextField label="Detailed description" pointer="/description" value={doc.description} onChange={(v) => set("description", v)} rule="M3" area hint="At least 60 characters: what it does, for whom, what a call returns." />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Logo URL" pointer="/logoUrl" value={doc.logoUrl} onChange={(v) => set("logoUrl", v)} rule="M4" type="url" hint="A public URL serving an image." />
          <TextField label="Category" pointer="/category" value={doc.category} onChange={(v) => set("category", v)} rule="M5" placeholder="e.g. Maps, AI, Finance" />
          <TextField label="Homepage URL" pointer="/homepageUrl" value={doc.homepageUrl} onChange={(v) => set("homepageUrl", v)} rule="M5" type="url" />
          <TextField label="Base URL" pointer="/baseUrl" value={doc.baseUrl} onChange={(v) => set("baseUrl", v ?? "")} type="url" hint="Where the endpoints live; the probe calls paths under it." />
        </div>
      </Section>

      <Section title="Documentation" hint="Where a caller learns to set up, authenticate and pay.">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Docs URL" pointer="/docsUrl" value={doc.docsUrl} onChange={(v) => set("docsUrl", v)} rule="D1" type="url" />
          <TextField label="Discovery document URL" pointer="/discoveryUrl" value={doc.discoveryUrl} onChange={(v) => set("discoveryUrl", v)} rule="D4" type="url" hint="/.well-known/x402 or an OpenAPI document." />
        </div>
        <TextField label="Setup, auth and payment walkthrough" pointer="/walkthrough" value={doc.walkthrough} onChange={(v) => set("walkthrough", v)} rule="D2" area hint="Step by step, or a URL to it." />
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
        <NetworksInput value={doc.networks} onChange={(v) => set("networks", v)} errors={props.networkErrors} />
      </Section>

      <Section title="Operations" hint="What a caller must know before the first call (O1–O4).">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Auth preconditions" pointer="/operations/authPreconditions" value={doc.operations.authPreconditions} onChange={(v) => setOp("authPreconditions", v)} rule="O1" placeholder="None: payment is the only credential" />
          <TextField label="Network requirements" pointer="/operations/networkRequirements" value={doc.operations.networkRequirements} onChange={(v) => setOp("networkRequirements", v)} rule="O2" />
          <TextField label="Funding requirements" pointer="/operations/fundingRequirements" value={doc.operations.fundingRequirements} onChange={(v) => setOp("fundingRequirements", v)} rule="O2" placeholder="USDC on Base; no gas needed" />
          <TextField label="Rate limits" pointer="/operations/limits" value={doc.operations.limits} onChange={(v) => setOp("limits", v)} rule="O3" />
          <TextField label="Timeouts" pointer="/operations/timeouts" value={doc.operations.timeouts} onChange={(v) => setOp("timeouts", v)} rule="O3" />
          <div>
            <label htmlFor={idOf("/operations/syncMode")} className="text-sm font-medium">
              Sync or async <RuleTag rule="O3" />
            </label>
            <select id={idOf("/operations/syncMode")} value={doc.operations.syncMode ?? ""} onChange={(e) => setOp("syncMode", nn(e.target.value) as never)} className={inputCls}>
              <option value="">Not declared</option>
              <option value="sync">Synchronous</option>
              <option value="async">Asynchronous</option>
              <option value="mixed">Mixed</option>
            </select>
          </div>
          <TextField label="Error model" pointer="/operations/errors" value={doc.operations.errors} onChange={(v) => setOp("errors", v)} rule="O4" />
          <TextField label="Idempotency" pointer="/operations/idempotency" value={doc.operations.idempotency} onChange={(v) => setOp("idempotency", v)} rule="O4" />
          <TextField label="Support channel" pointer="/operations/supportChannel" value={doc.operations.supportChannel} onChange={(v) => setOp("supportChannel", v)} rule="O4" placeholder="support@example.com" />
        </div>
      </Section>
    </>
  );
}
