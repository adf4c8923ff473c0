import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ListingDocument } from "@/lib/listing-document/document";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { checkReadinessEvidence, CURRENT_RUBRIC, scoreReadiness, type ReadinessEvidence } from "@/lib/scoring/readiness";
import { fullListing } from "@/test/readiness";
import { gainWords, scoreWithAdvice } from "./advice";

const FIXTURES = path.join(process.cwd(), "lib/scoring/readiness/fixtures");
const index = JSON.parse(fs.readFileSync(path.join(FIXTURES, "index.json"), "utf8")) as { now: string };
const NOW = new Date(index.now);
function fixture(name: string): { listing: ListingDocument; evidence: ReadinessEvidence } {
  const l = validateListingDocument(JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.listing.json`), "utf8")));
  const e = checkReadinessEvidence(JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.evidence.json`), "utf8")));
  if (!l.ok || !e.ok) throw new Error(`fixture ${name} does not load`);
  return { listing: l.value, evidence: e.value };
}

/** A listing whose one payable endpoint declares no price mode (the case: P3 offered, P4 waiting). */
function undeclaredMode(): ListingDocument {
  const l = fullListing();
  return { ...l, endpoints: l.endpoints.map((e) => ({ ...e, pricing: e.pricing ? { ...e.pricing, mode: null, dynamic: null } : e.pricing })) };
}

describe("advice: each fix's points are what re-scoring with it gains", () => {
  it("keeps the engine's score, rules and caps untouched", () => {
    for (const name of ["mature-and-honest", "popular-but-thin", "trafficked-but-unpayable", "well-built-brand-new"]) {
      const { listing, evidence } = fixture(name);
      const plain = scoreReadiness(listing, evidence, CURRENT_RUBRIC, { now: NOW });
      const advised = scoreWithAdvice(listing, evidence, CURRENT_RUBRIC, { now: NOW });
      expect({ ...advised, improvements: [] }).toEqual({ ...plain, improvements: [] });
      expect(advised.improvements.map((i) => i.ruleId).sort()).toEqual(plain.improvements.map((i) => i.ruleId).sort());
    }
  });

  it("declaring a price mode: fixed gains P3's points; dynamic gains nothing, because it opens P4, and says so", () => {
    const listing = undeclaredMode();
    const advised = scoreWithAdvice(listing, null, CURRENT_RUBRIC, { provisional: true });
    const p3 = advised.improvements.find((i) => i.ruleId === "P3")!;
    expect(p3.points).toBe(4); // what the engine offers
    expect(p3.fix).toBe("declare the price fixed");
    expect(p3.gain).toBe(4);
    expect(p3.opens).toEqual([]);
    const dynamic = p3.alternatives.find((a) => a.fix === "declare the price dynamic")!;
    expect(dynamic.gain).toBe(0);
    expect(dynamic.opens).toEqual([{ ruleId: "P4", points: 4 }]);

    // Checked by hand, through the engine alone: the seller's two real choices.
    const base = scoreReadiness(listing, null, CURRENT_RUBRIC, { provisional: true }).total;
    const withMode = (mode: "fixed" | "dynamic") => ({ ...listing, endpoints: listing.endpoints.map((e) => ({ ...e, pricing: e.pricing ? { ...e.pricing, mode } : e.pricing })) });
    expect(scoreReadiness(withMode("fixed"), null, CURRENT_RUBRIC, { provisional: true }).total - base).toBe(p3.gain);
    expect(scoreReadiness(withMode("dynamic"), null, CURRENT_RUBRIC, { provisional: true }).total - base).toBe(dynamic.gain);
  });

  it("a seller's own wording of a fix moves the score by the advised points (M2, M3, D2, O4 by hand)", () => {
    const l = fullListing();
    const listing: ListingDocument = { ...l, shortDescription: null, description: "Too short.", walkthrough: null, operations: { ...l.operations, errors: null, idempotency: null, supportChannel: null } };
    const advised = scoreWithAdvice(listing, null, CURRENT_RUBRIC, { provisional: true });
    const base = advised.total;
    const own: Record<string, ListingDocument> = {
      M2: { ...listing, shortDescription: "Forecasts for any latitude and longitude, hourly" },
      M3: { ...listing, description: "Hourly temperature, rain and wind for the next two days at any coordinate, in JSON, paid per call." },
      D2: { ...listing, walkthrough: "Call POST /v1/forecast without payment to get the 402; sign one offer with your wallet; call again with the X-PAYMENT header." },
      O4: { ...listing, operations: { ...listing.operations, errors: "Problem JSON with a code.", idempotency: "Safe to retry.", supportChannel: "help@weatherly.dev" } },
    };
    for (const [rule, doc] of Object.entries(own)) {
      const imp = advised.improvements.find((i) => i.ruleId === rule);
      expect(imp, rule).toBeDefined();
      expect(imp!.gain, rule).not.toBeNull();
      expect(scoreReadiness(doc, null, CURRENT_RUBRIC, { provisional: true }).total - base, rule).toBe(imp!.gain);
    }
  });

  it("under a cap, a non-blocking fix gains raw points but not total ones, and says why", () => {
    const { listing, evidence } = fixture("trafficked-but-unpayable");
    const advised = scoreWithAdvice(listing, evidence, CURRENT_RUBRIC, { now: NOW });
    expect(advised.caps.length).toBeGreaterThan(0);
    const held = advised.improvements.filter((i) => !i.blocker && i.gain === 0 && (i.rawGain ?? 0) > 0);
    expect(held.length).toBeGreaterThan(0);
    expect(gainWords(held[0]!)).toMatch(/^\+0 pts now \(\+[\d.]+ before rounding and caps\)$/);
    // Blockers still come first.
    expect(advised.improvements[0]!.blocker).toBe(true);
  });

  it("a fix that moves nothing when re-scored says what it can earn once probed, never '+0 pts'", () => {
    expect(gainWords({ gain: 0, rawGain: 0, points: 4 })).toBe("up to +4 pts, needs a probe");
    expect(gainWords({ gain: 0, rawGain: 0.5, points: 4 })).toBe("+0 pts now (+0.5 before rounding and caps)");
    expect(gainWords({ gain: 3, rawGain: 3, points: 4 })).toBe("+3 pts");
    expect(gainWords({ gain: 0, rawGain: 0, points: 0 })).toBe("+0 pts");
  });

  it("rules measured by the probe, the monitor or the ledger are not simulated: 'up to' the rubric's points", () => {
    const { listing, evidence } = fixture("popular-but-thin");
    const advised = scoreWithAdvice(listing, evidence, CURRENT_RUBRIC, { now: NOW });
    for (const i of advised.improvements.filter((x) => x.ruleId.startsWith("H"))) {
      expect(i.gain).toBeNull();
      expect(gainWords(i)).toBe(`up to +${i.points} pts`);
    }
  });

  it("orders blockers first, then by the points actually gained", () => {
    const advised = scoreWithAdvice(undeclaredMode(), null, CURRENT_RUBRIC, { provisional: true });
    const worth = advised.improvements.map((i) => (i.rawGain === null ? i.points : i.rawGain));
    for (let k = 1; k < worth.length; k++) {
      if (advised.improvements[k]!.blocker === advised.improvements[k - 1]!.blocker) expect(worth[k]!).toBeLessThanOrEqual(worth[k - 1]!);
    }
  });
});
