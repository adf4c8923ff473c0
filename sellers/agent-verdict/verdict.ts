/**
 * The verdict envelope (docs/spec/products.md "Agent verdict service: output"): per-criterion results
 * with evidence, counts, the grade, the verdict, the deliverable's digest, the program's identity,
 * the provenance roots and the signature block. A pure function of the prepared request and the
 * program: no clock, no randomness, so the same request always yields the same bytes and roots.
 * The deliverable itself appears nowhere in it, only its digest.
 */
import { EVALUATION_ERROR, MENU, registryDescriptor, runCheck, type CheckName, type Result } from "./checks";
import { digestOf, hashCanonical, sha256Hex, type DeliverableDigest } from "./digest";
import { BANDS, countResults, gradeOf, GRADE_RULES, VERDICT_RULE, verdictOf, WITHHELD_RULE, type Counts, type Grade, type Verdict } from "./grade";
import { MAX_DELIVERABLE_BYTES, PRODUCT_ID, PRODUCT_VERSION, WARRANTY_SCOPE } from "./product";
import { MAX_DEPTH, MAX_WEIGHT, type PreparedRequest } from "./request";
import type { ReceiptSigner } from "./signer";

export const STATEMENT_KIND = "AGENT_VERDICT_STATEMENT_V1";
export const UNSIGNED = "UNSIGNED_SIGNER_NOT_COMMISSIONED";

export interface CriterionResult {
  index: number;
  id: string;
  requirement?: string;
  check: CheckName;
  result: Result;
  weight: number;
  points: number;
  evidence: { rule: string; reason: string; detail?: string; deliverableSha256: string };
}

export interface VerdictOutput {
  verdict: Verdict;
  criteria: CriterionResult[];
  counts: Counts;
  grade: Grade;
  deliverableDigest: DeliverableDigest;
  jobRefSha256?: string;
  warrantyScope: string;
  program: { id: string; version: string; programRoot: string; registryRoot: string };
  uncertainty: string;
  provenance: {
    basis: "BUYER_SUPPLIED_INPUT_AND_ARBITER_AUTHORED_CODE";
    thirdPartyData: false;
    networkAccess: false;
    inputRoot: string;
    programRoot: string;
    outputRoot: string;
  };
  signature: SignatureBlock;
}

export interface Statement {
  statementKind: string;
  productId: string;
  productVersion: string;
  programRoot: string;
  inputRoot: string;
  outputRoot: string;
  verdict: Verdict;
}

export interface SignatureBlock {
  state: "SIGNED" | typeof UNSIGNED;
  statementKind: string;
  programRoot: string;
  inputRoot: string;
  verdictRoot: string;
  keyRef: string | null;
  algorithm: "Ed25519" | null;
  signature: string | null;
  verify: { statement: Statement; method: string; keys: string | null };
}

export const REGISTRY_ROOT = hashCanonical(registryDescriptor());

/** Everything that decides an answer, hashed: a change to any of it is a new programRoot. */
export const PROGRAM_DESCRIPTOR = {
  productId: PRODUCT_ID,
  productVersion: PRODUCT_VERSION,
  registryRoot: REGISTRY_ROOT,
  evaluationErrorReason: EVALUATION_ERROR,
  grading: { bands: BANDS, rules: GRADE_RULES, withheld: WITHHELD_RULE },
  verdictRule: VERDICT_RULE,
  deliverableBytes: "text: its UTF-8 bytes; json: the UTF-8 bytes of its RFC 8785 canonical JSON; bytes: the standard padded base64 decoded",
  limits: { maxDeliverableBytes: MAX_DELIVERABLE_BYTES, maxDepth: MAX_DEPTH, maxWeight: MAX_WEIGHT, defaultWeight: 1 },
  roots: "SHA-256 (lowercase hex) of RFC 8785 canonical JSON; inputRoot over the request, outputRoot over the output without provenance and signature, verdictRoot over the statement",
  statementKind: STATEMENT_KIND,
  signature: "Ed25519 over the UTF-8 bytes of the statement's canonical JSON, base64url",
};
export const PROGRAM_ROOT = hashCanonical(PROGRAM_DESCRIPTOR);

const VERIFY_METHOD =
  "Recompute inputRoot as the SHA-256 of the RFC 8785 canonical JSON of your request, and outputRoot as the same hash of this output without its provenance and signature fields; check they equal the statement's. verdictRoot is the same hash of the statement. When state is SIGNED, verify the Ed25519 signature (base64url) over the UTF-8 bytes of the statement's canonical JSON with the published key whose keyRef is ed25519:<SHA-256 of the raw public key>. When UNSIGNED_SIGNER_NOT_COMMISSIONED, no key vouches for it: replay the request to reproduce it.";

function uncertaintyOf(c: Counts, d: DeliverableDigest): string {
  const statements = c.inconclusive > 0 ? ` ${c.inconclusive} of ${c.total} criteria are INCONCLUSIVE: a statement criterion is never machine-judged, and a check that cannot finish says so rather than guess.` : "";
  return (
    `Judged by ${c.total} deterministic ${c.total === 1 ? "criterion" : "criteria"} over the exact ${d.byteLength} bytes evaluated (${d.kind}).${statements}` +
    " A PASS means those bytes meet that criterion's documented rule and nothing more: the work was not run, nothing but your request was read (no network, no third-party data), and meaning, truth and quality beyond the criteria were not judged." +
    " JSON numbers are compared as IEEE-754 doubles after your request was parsed."
  );
}

export interface JudgeOptions {
  signer?: ReceiptSigner | null;
  /** Where the published receipt keys are (an absolute URL), named in the signature block. */
  keysUrl?: string | null;
}

export function judge(p: PreparedRequest, opts: JudgeOptions = {}): VerdictOutput {
  const d = p.deliverable;
  const criteria: CriterionResult[] = p.criteria.map((c) => {
    const o = runCheck(c.check, c.prepared, d);
    return {
      index: c.index,
      id: c.id,
      ...(c.requirement !== undefined ? { requirement: c.requirement } : {}),
      check: c.check,
      result: o.result,
      weight: c.weight,
      points: o.result === "PASS" ? c.weight : 0,
      evidence: { rule: MENU[c.check].rule, reason: o.reason, ...(o.detail !== undefined ? { detail: o.detail } : {}), deliverableSha256: d.sha256 },
    };
  });
  const counts = countResults(criteria);
  const verdict = verdictOf(counts);
  const deliverableDigest = digestOf(d);
  const body = {
    verdict,
    criteria,
    counts,
    grade: gradeOf(p.scale, counts),
    deliverableDigest,
    ...(p.jobRef !== undefined ? { jobRefSha256: sha256Hex(Buffer.from(p.jobRef, "utf8")) } : {}),
    warrantyScope: WARRANTY_SCOPE,
    program: { id: PRODUCT_ID, version: PRODUCT_VERSION, programRoot: PROGRAM_ROOT, registryRoot: REGISTRY_ROOT },
    uncertainty: uncertaintyOf(counts, deliverableDigest),
  };
  const outputRoot = hashCanonical(body);
  const statement: Statement = {
    statementKind: STATEMENT_KIND,
    productId: PRODUCT_ID,
    productVersion: PRODUCT_VERSION,
    programRoot: PROGRAM_ROOT,
    inputRoot: p.inputRoot,
    outputRoot,
    verdict,
  };
  const signer = opts.signer ?? null;
  const signature: SignatureBlock = {
    state: signer ? "SIGNED" : UNSIGNED,
    statementKind: STATEMENT_KIND,
    programRoot: PROGRAM_ROOT,
    inputRoot: p.inputRoot,
    verdictRoot: hashCanonical(statement),
    keyRef: signer ? signer.keyRef : null,
    algorithm: signer ? "Ed25519" : null,
    signature: signer ? signer.sign(statement) : null,
    verify: { statement, method: VERIFY_METHOD, keys: opts.keysUrl ?? null },
  };
  return {
    ...body,
    provenance: { basis: "BUYER_SUPPLIED_INPUT_AND_ARBITER_AUTHORED_CODE", thirdPartyData: false, networkAccess: false, inputRoot: p.inputRoot, programRoot: PROGRAM_ROOT, outputRoot },
    signature,
  };
}

/** The output minus provenance and signature: what outputRoot is the hash of. */
export function outputRootOf(out: Record<string, unknown>): string {
  const { provenance: _p, signature: _s, ...body } = out;
  return hashCanonical(body);
}
