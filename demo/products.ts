/**
 * The seed products' listing text as their sellers would finish it in the editor after the import:
 * a title, summary, description and category drafted from each product's own published documents
 * (docs/AGENT-VERDICT.md with its product document, docs/VALIDITY-CHECK.md with its criteria
 * document). The importer never writes such text (docs/SEED-IMPORT.md); the seller does, here.
 */
import type { ListingDocument } from "@/lib/listing-document/document";

type SellerEdit = Pick<ListingDocument, "title" | "shortDescription" | "description" | "category">;

/** The sellers' organisations: the names their products publish (Arbiter's headers and family title; the criteria's service). */
export const PRODUCT_SELLERS = {
  arbiter: "Arbiter",
  "validity-check": "Validity Check",
} as const;

export const PRODUCT_EDITS: Record<"002" | "003", SellerEdit> = {
  "002": {
    title: "Agent Verdict: did the work meet your criteria?",
    shortDescription: "Send an agent's finished work and your criteria; get PASS, FAIL or INCONCLUSIVE per criterion with evidence, in a signed verdict.",
    description:
      "Did the agent actually do what you paid it to do? Post its completed work (up to 44 KiB) and 1–64 criteria from the published menu. " +
      "Each criterion comes back PASS, FAIL or INCONCLUSIVE with the rule applied, a fixed reason code and the digest of the exact bytes judged; " +
      "an optional grade (A–F or 0–100, weighted) is withheld when too much is inconclusive. The verdict is signed with Ed25519, and the public keys " +
      "are published so anyone can check it. Priced per quote from $0.04, paid over x402.",
    category: "agent-verification",
  },
  "003": {
    title: "Validity Check: is this x402 payment safe to sign?",
    shortDescription: "Before you sign or submit an x402 payment: the most a challenge can charge you, or whether a payload is still valid, signed. $0.01 a check.",
    description:
      "A pre-flight check for agents that pay over x402. POST /upto reads a 402 challenge and returns a signed statement of the most it can charge; " +
      "POST /validity reads a signed payload and returns a signed analysis of whether it is still valid at a stated instant (OK, TIGHT or STALE, with what to do). " +
      "Each costs $0.01; POST /precheck tells you for free whether a body can be assessed. Every finding comes from the artefact as submitted, and what it " +
      "cannot establish is reported as such. It never signs, submits or broadcasts anything for you, and it does not probe sellers or verify settlements on chain.",
    category: "payments",
  },
};

/** The imported document with its seller's edits applied (everything else as imported). */
export function withSellerEdits(key: string, doc: ListingDocument): ListingDocument {
  const edit = PRODUCT_EDITS[key as keyof typeof PRODUCT_EDITS];
  return edit ? { ...doc, ...edit } : doc;
}

/**
 * The faulty fixture seller the demo lists (DEMO_FIXTURE_SELLERS), as its seller would title it: a
 * buyer sees a service name, not a test fixture's, and finds out it is faulty from the catalog's own
 * readiness and trust checks, as with any seller.
 */
export const FIXTURE_EDITS: Record<string, SellerEdit & Partial<Pick<ListingDocument, "networks">>> = {
  "no-challenge": {
    title: "Summly one-line summaries",
    shortDescription: "Summarise a short text into one sentence, paid per call.",
    description: "A one-sentence summary of up to 2,000 characters of text, paid per call in USDC over x402.",
    category: "text",
    // Listed on the demo's own chain, not the fixture's Base: a demo listing claims only what the demo runs.
    networks: ["eip155:31337"],
  },
};

/** A demo-listed fixture seller's document with its seller-facing words (everything else as served). */
export function withFixtureEdits(slug: string, doc: ListingDocument): ListingDocument {
  const edit = FIXTURE_EDITS[slug];
  if (!edit) return doc;
  const operations = edit.networks && doc.operations ? { ...doc.operations, networkRequirements: `Pay in test USDC on the demo's local chain (${edit.networks.join(", ")}).` } : doc.operations;
  return { ...doc, ...edit, operations };
}
