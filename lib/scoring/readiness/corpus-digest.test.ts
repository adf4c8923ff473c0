/**
 * Every readiness result over a seeded corpus, under every rubric and evidence mode, hashed: speed work
 * on the engine (bench:score) must leave each total, reason, pointer and improvement as it was.
 * A deliberate change to what the engine says changes the digest; record the new one with the change.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { EndpointDocsEvidence } from "@/lib/evidence";
import { generateListingCorpus } from "@/test/readiness-corpus";
import { scoreReadiness } from "./engine";
import { loadRubric } from "./rubric";
import type { ReadinessEvidence } from "./types";

const NOW = new Date("2026-12-02T12:00:00Z");

/** Format-2 evidence: docs pages missing, refused, short of names or of the path, lower-case methods, no list at all. */
function withDocs(c: ReturnType<typeof generateListingCorpus>[number], i: number): ReadinessEvidence {
  const endpointDocs: EndpointDocsEvidence[] = c.listing.endpoints.map((e, k) => {
    const names = [e.requestSchema, e.responseSchema].flatMap((s) => Object.keys((s as { properties?: object } | null)?.properties ?? {}));
    const present = e.docsUrl != null && (i + k) % 5 !== 0;
    return {
      method: k % 7 === 3 ? String(e.method).toLowerCase() : e.method,
      path: e.path,
      url: e.docsUrl ?? null,
      ok: present,
      status: present ? 200 : e.docsUrl ? 404 : null,
      contentType: present ? "text/html" : null,
      truncated: false,
      pathShown: present && (i + k) % 11 !== 0,
      names: present ? names.slice(0, Math.max(1, names.length - ((i + k) % 2))) : [],
      example: present && (i + k) % 3 !== 0,
      ...((i + k) % 13 === 0 ? { refusal: "private_address" } : {}),
    } as EndpointDocsEvidence;
  });
  return { ...c.evidence, probe: { ...c.evidence.probe, version: 2, ...(i % 17 === 0 ? {} : { endpointDocs }) } } as ReadinessEvidence;
}

describe("readiness results over a seeded corpus", () => {
  it("are exactly those recorded (1,500 listings × 3 rubrics × format-1, format-2 and provisional)", () => {
    const corpus = generateListingCorpus(777, 1500);
    const rubrics = (["1.0.0", "1.1.0", "1.2.0"] as const).map((v) => loadRubric(v));
    const h = createHash("sha256");
    let totals = 0;
    for (let i = 0; i < corpus.length; i++) {
      const v2 = withDocs(corpus[i], i);
      for (const rubric of rubrics) {
        for (const ev of [corpus[i].evidence, v2, null]) {
          const r = scoreReadiness(corpus[i].listing, ev, rubric, { now: NOW });
          totals += r.total;
          h.update(JSON.stringify(r));
        }
      }
    }
    expect(totals).toBeGreaterThan(0);
    expect(h.digest("hex")).toBe("019afcd9ae87b3352426154ac752c5d8ebdd9b041e7cdec5dbc56eeba28f38c2");
  });
});
