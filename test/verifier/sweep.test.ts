/**
 * The verifier on what the app itself signs: lib/attest/sweep.ts prepareGrade (bundle, score, the
 * statement with the listing's terms, DSSE with the badge signer) for generated endpoints, free and
 * payable, each verified to the digit, and refused for another endpoint's terms.
 */
import { describe, expect, it } from "vitest";
import { prepareGrade, type EndpointTerms } from "@/lib/attest/sweep";
import { loadRubric } from "@/lib/trust/engine";
import { verifyAttestation } from "../../verifier/src/verify.ts";
import { generateSubject, keySetOf, NOW, randomProfile, seeded, testKey } from "./rig";

describe("the verifier on the sweep's own attestations (prepareGrade)", () => {
  it("verifies 150 generated endpoints, free and payable, and refuses each for the terms of another", () => {
    const key = testKey();
    const keys = keySetOf(key);
    const rubric = loadRubric();
    const rand = seeded(404);
    const issuedAt = new Date("2026-12-05T04:00:02.000Z");
    const at = new Date("2026-12-05T05:00:00.000Z");
    const verdicts = new Set<string>();
    for (let i = 0; i < 150; i++) {
      const subject = generateSubject(`ep_s${i}`, randomProfile(rand), rand);
      const terms: EndpointTerms = {
        listingId: `ls_${i % 7}`,
        endpointId: subject.endpointId,
        method: i % 3 ? "GET" : "POST",
        path: `/v1/p${i}`,
        trustPath: `/v1/p${i}`,
        url: `https://api${i % 7}.example.com/v1/p${i}`,
        payment: i % 10 === 0 ? null : { scheme: "exact", network: "eip155:84532", asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e", payTo: i % 10 === 1 ? null : `0x${(i + 1).toString(16).padStart(40, "0")}`, amount: String(1000 * (i + 1)) },
      };
      const g = prepareGrade(rubric, terms, subject, new Date(NOW), { keyid: key.keyid, privateKey: key.privateKey }, issuedAt);
      const bundle = g.bundle.bytes.toString("utf8");
      const r = verifyAttestation({ envelope: JSON.parse(JSON.stringify(g.envelope)), bundle, keys, at, expect: { endpointId: terms.endpointId, url: terms.url, method: terms.method } });
      expect(r.code, `${i}: ${r.detail}`).toBe("ok");
      expect(r.recomputed).toMatchObject({ score: g.result.score, grade: g.result.grade, confidence: g.result.confidence, verdict: g.result.verdict });
      verdicts.add(g.result.verdict);
      if (terms.payment?.payTo) {
        const other = `0x${"9".repeat(40)}`;
        expect(verifyAttestation({ envelope: g.envelope, bundle, keys, at, expect: { payTo: other } }).code).toBe("endpoint_mismatch");
        expect(verifyAttestation({ envelope: g.envelope, bundle, keys, at, expect: { payTo: terms.payment.payTo.toUpperCase().replace("0X", "0x"), amount: terms.payment.amount } }).code).toBe("ok");
      }
      expect(verifyAttestation({ envelope: g.envelope, bundle, keys, at, expect: { url: `${terms.url}/other` } }).code).toBe("endpoint_mismatch");
    }
    expect(verdicts.size).toBeGreaterThanOrEqual(4);
  }, 600_000);
});
