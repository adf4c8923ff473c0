import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importProductDocument } from "../../discovery/product-document";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { generateListingCorpus } from "@/test/readiness-corpus";
import { checkReadinessEvidence } from "./evidence";
import { comparePatchCandidate, type CorpusEntry } from "./governance";
import { CURRENT_RUBRIC, type Rubric } from "./rubric";

const FX = path.join(__dirname, "fixtures");
const NOW = new Date("2026-12-02T12:00:00Z");

/** The fixture corpus every patch candidate is run over: golden fixtures, seed products, and 2,000 generated listings, each probed and provisional. */
function fixtureCorpus(): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  const index = JSON.parse(readFileSync(path.join(FX, "index.json"), "utf8"));
  for (const f of index.fixtures) {
    const l = validateListingDocument(JSON.parse(readFileSync(path.join(FX, f.listing), "utf8")));
    const e = checkReadinessEvidence(JSON.parse(readFileSync(path.join(FX, f.evidence), "utf8")));
    if (!l.ok || !e.ok) throw new Error(`fixture ${f.id} invalid`);
    out.push({ id: f.id, listing: l.value, evidence: e.value, now: NOW }, { id: `${f.id} (provisional)`, listing: l.value, evidence: null, now: NOW });
  }
  for (const [file, sourceUrl] of [["002-agent-verdict.json", undefined], ["003-validity-check.json", "https://validity-check.example/criteria"]] as const) {
    const imp = importProductDocument(readFileSync(path.join(FX, "seed-products", file), "utf8"), { sourceUrl });
    if (!imp.ok) throw new Error(`seed ${file} did not import`);
    out.push({ id: file, listing: imp.listing, evidence: null, now: NOW });
  }
  generateListingCorpus(20261202, 2000).forEach((g, i) => {
    out.push({ id: `generated-${i}`, listing: g.listing, evidence: g.evidence, now: NOW });
    if (i % 4 === 0) out.push({ id: `generated-${i} (provisional)`, listing: g.listing, evidence: null, now: NOW });
  });
  return out;
}

const corpus = fixtureCorpus();

/** A 1.2.1 candidate built from the current rubric (1.2.0) by `edit`, with its patch changelog entry. */
function candidate(edit: (r: Rubric) => void, version = "1.2.1", kind: "patch" | "minor" = "patch"): Rubric {
  const r = JSON.parse(JSON.stringify(CURRENT_RUBRIC)) as Rubric;
  r.version = version;
  r.status = "candidate";
  r.changelog.push({ version, date: "2026-12-09", kind, changes: ["test candidate"] });
  edit(r);
  return r;
}

describe("comparePatchCandidate over the fixture corpus", () => {
  it("covers the golden fixtures, the seed products and a generated corpus", () => {
    expect(corpus.length).toBeGreaterThan(2000);
    expect(corpus.map((c) => c.id)).toEqual(expect.arrayContaining(["mature-and-honest", "trafficked-but-unpayable", "002-agent-verdict.json"]));
  });

  it("accepts a wording-only patch", () => {
    const c = candidate((r) => {
      for (const rule of r.rules) {
        rule.title = `${rule.title} (reworded)`;
        rule.action = rule.action.replace("Publish", "Put up");
      }
      r.readings.push({ id: "wording", source: "ours", text: "Clarified action sentences." });
      r.dimensions[0].title = "Listing metadata";
      r.rules.reverse(); // reordering the file moves no score either
    });
    const result = comparePatchCandidate(CURRENT_RUBRIC, c, corpus);
    expect(result.problems).toEqual([]);
    expect(result.moved).toEqual([]);
    expect(result).toMatchObject({ ok: true, scored: corpus.length });
  });

  it("refuses a patch that moves points", () => {
    const c = candidate((r) => {
      r.rules.find((x) => x.id === "D2")!.points = 3;
      r.rules.find((x) => x.id === "D4")!.points = 4;
    });
    const result = comparePatchCandidate(CURRENT_RUBRIC, c, corpus);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([]);
    expect(result.moved).toEqual(expect.arrayContaining([expect.objectContaining({ id: "mature-and-honest", field: "rawTotal", base: 95.75, candidate: 96.75 })]));
  });

  it("refuses a patch that changes a threshold, a placeholder list or a cap", () => {
    for (const edit of [
      (r: Rubric) => { r.thresholds.walkthroughMinChars = 200; },
      (r: Rubric) => { r.placeholders.titles.push("weatherly hourly forecasts", "scribe speech to text"); },
      (r: Rubric) => { r.caps.find((x) => x.id === "knownUnpayable")!.value = 29; },
      (r: Rubric) => { r.settleability.unknown = 3.34; },
    ]) {
      const result = comparePatchCandidate(CURRENT_RUBRIC, candidate(edit), corpus);
      expect(result.ok).toBe(false);
      expect(result.moved.length).toBeGreaterThan(0);
    }
  });

  it("refuses a candidate that is not a patch bump or lacks its patch changelog entry", () => {
    expect(comparePatchCandidate(CURRENT_RUBRIC, candidate(() => {}, "1.3.0"), corpus.slice(0, 3)).problems.join()).toMatch(/not a patch bump/);
    expect(comparePatchCandidate(CURRENT_RUBRIC, candidate(() => {}, "1.2.1", "minor"), corpus.slice(0, 3)).problems.join()).toMatch(/not "patch"/);
    const noEntry = candidate((r) => { r.changelog = r.changelog.filter((x) => x.version !== "1.2.1"); });
    expect(comparePatchCandidate(CURRENT_RUBRIC, noEntry, corpus.slice(0, 3)).problems.join()).toMatch(/no changelog entry/);
  });
});
