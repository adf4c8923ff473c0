import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importProductDocument } from "../../discovery/product-document";
import { scoreReadiness } from "./engine";
import { CURRENT_RUBRIC } from "./rubric";

// The two seed product documents, imported and scored provisionally (no probe has run against them).
// fixtures/seed-products.md explains every number below against the source document.
const SEEDS = path.join(__dirname, "fixtures/seed-products");
const NOW = new Date("2026-12-02T12:00:00Z");

function scored(file: string, sourceUrl?: string) {
  const imp = importProductDocument(readFileSync(path.join(SEEDS, file), "utf8"), { sourceUrl });
  if (!imp.ok) throw new Error(JSON.stringify(imp.errors));
  const r = scoreReadiness(imp.listing, null, CURRENT_RUBRIC, { now: NOW });
  return { r, points: Object.fromEntries(r.rules.map((x) => [x.id, Math.round(x.earned * 100) / 100])) };
}

describe("Arbiter agent verdict (docs/spec/products.md)", () => {
  const { r, points } = scored("002-agent-verdict.json");
  it("scores 55 provisionally, Getting started", () => {
    expect(r).toMatchObject({ total: 55, rawTotal: 55, provisional: true, caps: [], band: { label: "Getting started" } });
  });
  it("earns these points per rule", () => {
    expect(points).toEqual({
      M1: 3, M2: 3, M3: 3, M4: 0, M5: 0,
      E1: 5, E2: 5, E3: 5, E4: 5, E5: 5,
      P1: 6, P2: 0, P3: 4, P4: 0,
      D1: 4, D2: 0, D3: 4, D4: 0,
      O1: 0, O2: 3, O3: 0, O4: 0,
      H1: 0, H2: 0, H3: 0,
    });
  });
  it("its biggest fix is a machine-readable price", () => {
    expect(r.improvements[0]).toMatchObject({ ruleId: "P2", points: 6, endpoints: ["POST /api/x402/AGENT_VERDICT"] });
  });
});

describe("validity-check (docs/spec/products.md)", () => {
  const { r, points } = scored("003-validity-check.json", "https://validity-check.example/criteria");
  it("scores 32 provisionally, Getting started", () => {
    expect(r).toMatchObject({ total: 32, rawTotal: 32, provisional: true, caps: [], band: { label: "Getting started" } });
  });
  it("earns these points per rule", () => {
    expect(points).toEqual({
      M1: 3, M2: 0, M3: 3, M4: 0, M5: 0,
      E1: 5, E2: 3, E3: 0, E4: 0, E5: 0,
      P1: 6, P2: 0, P3: 4, P4: 4,
      D1: 4, D2: 0, D3: 0, D4: 0,
      O1: 0, O2: 0, O3: 0, O4: 0,
      H1: 0, H2: 0, H3: 0,
    });
  });
  it("names the two undescribed endpoints for E2", () => {
    expect(r.rules.find((x) => x.id === "E2")!.endpoints).toEqual(["GET /criteria", "GET /metrics"]);
  });
});
