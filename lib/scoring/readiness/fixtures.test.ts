import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { scoreReadiness } from "./engine";
import { checkReadinessEvidence } from "./evidence";
import { CURRENT_RUBRIC } from "./rubric";

const DIR = path.join(__dirname, "fixtures");
const index = JSON.parse(readFileSync(path.join(DIR, "index.json"), "utf8")) as {
  now: string;
  fixtures: Array<{ id: string; listing: string; evidence: string; expected: { total: number; rawTotal: number; band: string; caps: string[] }; gaps: Record<string, number>; _gaps: string }>;
};
const readJson = (f: string) => JSON.parse(readFileSync(path.join(DIR, f), "utf8"));

describe("golden fixtures: the listing shapes of docs/spec/scoring-system.md", () => {
  it("has one fixture per row of the seed's table", () => {
    expect(index.fixtures.map((f) => f.id)).toEqual(["mature-and-honest", "mature-and-honest-featured", "popular-but-thin", "well-built-brand-new", "trafficked-but-unpayable"]);
  });

  it.each(index.fixtures.map((f) => [f.id, f] as const))("%s", (_id, f) => {
    const listing = validateListingDocument(readJson(f.listing));
    if (!listing.ok) throw new Error(`${f.listing}: ${JSON.stringify(listing.errors)}`);
    const evidence = checkReadinessEvidence(readJson(f.evidence));
    if (!evidence.ok) throw new Error(`${f.evidence}: ${JSON.stringify(evidence.errors)}`);

    const r = scoreReadiness(listing.value, evidence.value, CURRENT_RUBRIC, { now: new Date(index.now) });
    expect({ total: r.total, rawTotal: r.rawTotal, band: r.band.label, caps: r.caps.map((c) => c.id) }).toEqual(f.expected);

    // The gaps written in the index are exactly the rules that fall short, by exactly that much.
    const short = Object.fromEntries(r.rules.filter((x) => x.earned < x.max).map((x) => [x.id, Math.round((x.max - x.earned) * 100) / 100]));
    expect(short).toEqual(f.gaps);
    expect(f._gaps.length).toBeGreaterThan(40);
    expect(r.provisional).toBe(false);
  });

  it("a capped fixture lists the cap's fix first, as a blocker", () => {
    const f = index.fixtures.find((x) => x.id === "trafficked-but-unpayable")!;
    const l = validateListingDocument(readJson(f.listing));
    const e = checkReadinessEvidence(readJson(f.evidence));
    if (!l.ok || !e.ok) throw new Error("fixture invalid");
    const r = scoreReadiness(l.value, e.value, CURRENT_RUBRIC, { now: new Date(index.now) });
    expect(r.improvements[0]).toMatchObject({ ruleId: "H3", blocker: true, points: 5 });
    expect(r.improvements.slice(1).every((i) => !i.blocker)).toBe(true);
  });

  it("scored provisionally, each fixture loses exactly its health points and no cap applies", () => {
    for (const f of index.fixtures) {
      const l = validateListingDocument(readJson(f.listing));
      if (!l.ok) throw new Error("fixture invalid");
      const r = scoreReadiness(l.value, null, CURRENT_RUBRIC, { now: new Date(index.now) });
      const health = 15 - (f.gaps.H2 ?? 0) - (f.gaps.H3 ?? 0) - (f.gaps.H1 ?? 0);
      // Provisionally M4/D1/D4 fall back to the declared URL, which may differ from what was observed.
      const observedOnly = ["M4", "D1", "D4"].reduce((a, id) => a + (f.gaps[id] ?? 0), 0);
      expect(r.caps).toEqual([]);
      expect(r.rawTotal).toBeGreaterThanOrEqual(Math.round((f.expected.rawTotal - health) * 1e6) / 1e6);
      expect(r.rawTotal).toBeLessThanOrEqual(f.expected.rawTotal - health + observedOnly + 1e-9);
    }
  });
});
