/**
 * validity-corpus/v1: the validity-check's case corpus (docs/spec/products.md "Validity-check corpus
 * pin"). Each case is a request (endpoint and body) with its evaluation instant pinned (the server
 * time the case is computed at), a provenance label, and the expected answer, which comes from the
 * independent implementation in test/validity-reference.ts, never from the service's code.
 *
 * The pin is the SHA-256 (hex) of the corpus's canonical serialisation: RFC 8785 JSON of the corpus
 * object without its sha256 member (lib/badges/canonical-json.ts), UTF-8.
 *
 * `npx tsx test/validity-corpus.ts` rebuilds test/validity-corpus.json from the cases below;
 * sellers/validity-check/corpus.test.ts fails if the file, its pin, the reference or the service
 * disagree.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { refExpected, type Endpoint } from "./validity-reference";

export const CORPUS_ID = "validity-corpus/v1";
export const CORPUS_FILE = path.join(__dirname, "validity-corpus.json");

export interface CorpusCase {
  id: string;
  /** "synthetic" (built for the corpus) or "published-example" (the bazaar example the service publishes). */
  provenance: "synthetic" | "published-example";
  endpoint: Endpoint;
  /** The server time the case is computed at (unix seconds): the instant when the body states none. */
  instant_unix: number;
  /** Absent: the request has no body. */
  body?: unknown;
  expected: { status: number; body: Record<string, unknown> };
}

export interface Corpus {
  id: string;
  criteria_id: string;
  criteria_revision: string;
  canonicalization: string;
  cases: CorpusCase[];
  sha256: string;
}

const T = 1796212700; // 2026-12-02T11:58:20Z
const BASE = "eip155:8453";
const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const PAY = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const C = { scheme: "upto", network: BASE, payTo: PAY, asset: USDC, max_amount_required: "1000000" };
const drop = (k: string) => Object.fromEntries(Object.entries(C).filter(([key]) => key !== k));

type Input = Omit<CorpusCase, "expected">;
const U = (id: string, body: unknown, instant = T): Input => ({ id: `upto/${id}`, provenance: "synthetic", endpoint: "POST /upto", instant_unix: instant, body });
const V = (id: string, body: unknown, instant = T): Input => ({ id: `validity/${id}`, provenance: "synthetic", endpoint: "POST /validity", instant_unix: instant, body });
const P = (id: string, body: unknown, instant = T): Input => ({ id: `precheck/${id}`, provenance: "synthetic", endpoint: "POST /precheck", instant_unix: instant, body });
const evm = (valid_before: unknown, extra: Record<string, unknown> = {}) => ({ payload: { rail: "evm", valid_before }, ...extra });
const svm = (last: unknown, current: unknown, extra: Record<string, unknown> = {}) => ({ payload: { rail: "svm", last_valid_block_height: last, current_block_height: current }, ...extra });

export const CASE_INPUTS: Input[] = [
  // upto: malformed, one named code each (and the edges of the ceiling)
  U("no-body", undefined),
  U("body-array", [C]),
  U("challenge-missing", {}),
  U("challenge-string", { challenge: "upto" }),
  U("scheme-missing", { challenge: drop("scheme") }),
  U("scheme-exact", { challenge: { ...C, scheme: "exact" } }),
  U("network-missing", { challenge: drop("network") }),
  U("network-empty", { challenge: { ...C, network: "" } }),
  U("payto-missing", { challenge: drop("payTo") }),
  U("asset-missing", { challenge: drop("asset") }),
  U("ceiling-missing", { challenge: drop("max_amount_required") }),
  U("ceiling-over-cap", { challenge: { ...C, max_amount_required: "1000000000000000001" } }),
  U("ceiling-over-cap-long", { challenge: { ...C, max_amount_required: "99999999999999999999" } }),
  U("ceiling-negative", { challenge: { ...C, max_amount_required: -1 } }),
  U("ceiling-fraction", { challenge: { ...C, max_amount_required: "0.5" } }),
  U("ceiling-unsafe-number", { challenge: { ...C, max_amount_required: 9007199254740992 } }),
  U("decimals-19", { challenge: { ...C, asset_decimals: 19 } }),
  U("decimals-string", { challenge: { ...C, asset_decimals: "6" } }),
  U("flag-allowance-string", { challenge: { ...C, permit2_allowance_sufficient: "yes" } }),
  U("flag-sponsor-number", { challenge: { ...C, facilitator_sponsors_approval: 0 } }),
  U("several-broken-first-wins", { challenge: { scheme: "exact", max_amount_required: "x" } }),
  // upto: statements
  U("minimal-nothing-establishable", { challenge: C }),
  U("decimals-6", { challenge: { ...C, asset_decimals: 6 } }),
  U("decimals-6-small", { challenge: { ...C, max_amount_required: "5", asset_decimals: 6 } }),
  U("decimals-0", { challenge: { ...C, max_amount_required: "42", asset_decimals: 0 } }),
  U("decimals-18-at-cap", { challenge: { ...C, max_amount_required: "1000000000000000000", asset_decimals: 18 } }),
  U("leading-zeros-kept", { challenge: { ...C, max_amount_required: "000120", asset_decimals: 2 } }),
  U("zero-ceiling", { challenge: { ...C, max_amount_required: "0", asset_decimals: 6 } }),
  U("number-ceiling", { challenge: { ...C, max_amount_required: 250000, asset_decimals: 6 } }),
  U("allowance-sufficient", { challenge: { ...C, asset_decimals: 6, permit2_allowance_sufficient: true, facilitator_sponsors_approval: false } }),
  U("sponsored", { challenge: { ...C, asset_decimals: 6, permit2_allowance_sufficient: false, facilitator_sponsors_approval: true } }),
  U("approval-required", { challenge: { ...C, asset_decimals: 6, permit2_allowance_sufficient: false, facilitator_sponsors_approval: false } }),
  U("allowance-false-only", { challenge: { ...C, permit2_allowance_sufficient: false } }),
  U("solana-no-machinery", { challenge: { ...C, network: SOLANA, asset_decimals: 6, permit2_allowance_sufficient: true } }),
  U("unknown-network-no-machinery", { challenge: { ...C, network: "base", asset_decimals: 6 } }),
  U("extra-fields-ignored", { challenge: { ...C, asset_decimals: 6, maxTimeoutSeconds: 60, extra: { name: "USD Coin" } }, caller: WALLET }),
  // validity: malformed
  V("no-body", undefined),
  V("payload-missing", { evaluation_at_unix: T }),
  V("payload-null", { payload: null }),
  V("rail-missing", { payload: { valid_before: T } }),
  V("rail-unsupported", { payload: { rail: "btc", valid_before: T } }),
  V("evaluation-at-negative", evm(T, { evaluation_at_unix: -1 })),
  V("evaluation-at-string", evm(T, { evaluation_at_unix: "now" })),
  V("evaluation-at-in-payload-fraction", { payload: { rail: "evm", valid_before: T, evaluation_at_unix: 1.5 } }),
  V("evm-valid-before-missing", { payload: { rail: "evm" } }),
  V("evm-valid-before-string", evm(String(T + 100))),
  V("evm-valid-before-fraction", evm(T + 0.5)),
  V("svm-last-height-missing", { payload: { rail: "svm", current_block_height: 10 } }),
  V("svm-current-height-missing", { payload: { rail: "svm", last_valid_block_height: 10 } }),
  V("svm-height-string", svm("300", 100)),
  V("svm-height-fraction", svm(300, 100.5)),
  // validity: EVM thresholds at the stated instant
  V("evm-stale-past", evm(T - 30, { evaluation_at_unix: T })),
  V("evm-stale-zero", evm(T, { evaluation_at_unix: T })),
  V("evm-tight-one", evm(T + 1, { evaluation_at_unix: T })),
  V("evm-tight-sixty", evm(T + 60, { evaluation_at_unix: T })),
  V("evm-ok-sixty-one", evm(T + 61, { evaluation_at_unix: T })),
  V("evm-ok-hour", evm(T + 3600, { evaluation_at_unix: T })),
  V("evm-server-time", evm(T + 45), T),
  V("evm-instant-in-payload", { payload: { rail: "evm", valid_before: T + 90, evaluation_at_unix: T + 40 } }),
  V("evm-body-instant-wins", { payload: { rail: "evm", valid_before: T + 90, evaluation_at_unix: T + 40 }, evaluation_at_unix: T }),
  V("evm-instant-zero", evm(61, { evaluation_at_unix: 0 })),
  // validity: SVM thresholds in slots
  V("svm-stale-negative", svm(100, 103)),
  V("svm-stale-zero", svm(100, 100)),
  V("svm-tight-one", svm(101, 100)),
  V("svm-tight-150", svm(250, 100)),
  V("svm-ok-151", svm(251, 100)),
  V("svm-ok-many", svm(1_000_000, 100, { evaluation_at_unix: T })),
  V("svm-seconds-never-decide", svm(252, 100)),
  // pre-check
  P("no-body", undefined),
  P("op-missing", { challenge: C }),
  P("op-unsupported", { op: "price", challenge: C }),
  P("caller-malformed", { op: "upto", challenge: C, caller: "alice" }),
  P("upto-refused", { op: "upto", challenge: { ...C, max_amount_required: "1e6" } }),
  P("validity-refused", { op: "validity", payload: { rail: "svm", last_valid_block_height: 5 } }),
  P("upto-assessable-evm", { op: "upto", challenge: { ...C, asset_decimals: 6 }, caller: WALLET }),
  P("upto-assessable-svm-no-decimals", { op: "upto", challenge: { ...C, network: SOLANA } }),
  P("validity-assessable-stated", { op: "validity", ...evm(T + 10, { evaluation_at_unix: T }) }),
  P("validity-assessable-server", { op: "validity", ...svm(10, 5) }),
  // the examples the paid routes publish
  {
    id: "upto/published-example",
    provenance: "published-example",
    endpoint: "POST /upto",
    instant_unix: T,
    body: { challenge: { ...C, asset_decimals: 6, permit2_allowance_sufficient: false, facilitator_sponsors_approval: true } },
  },
  { id: "validity/published-example", provenance: "published-example", endpoint: "POST /validity", instant_unix: 0, body: evm(1796212800, { evaluation_at_unix: T }) },
];

const CANONICALIZATION = "RFC 8785 JSON of the corpus object without its sha256 member, UTF-8; sha256 is the SHA-256 of those bytes, hex";

export function corpusPin(corpus: Omit<Corpus, "sha256"> | Corpus): string {
  const rest = Object.fromEntries(Object.entries(corpus).filter(([k]) => k !== "sha256"));
  return createHash("sha256").update(canonicalJson(rest), "utf8").digest("hex");
}

/** The corpus, with every expected answer from the reference implementation. */
export function buildCorpus(): Corpus {
  const cases: CorpusCase[] = CASE_INPUTS.map(({ body, ...c }) => ({ ...c, ...(body === undefined ? {} : { body }), expected: refExpected(c.endpoint, body, c.instant_unix) }));
  const unpinned = { id: CORPUS_ID, criteria_id: "payer-preflight/v1", criteria_revision: "1.0.0", canonicalization: CANONICALIZATION, cases };
  return { ...unpinned, sha256: corpusPin(unpinned) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  const corpus = buildCorpus();
  writeFileSync(CORPUS_FILE, JSON.stringify(corpus, null, 2) + "\n");
  console.log(`${CORPUS_ID}: ${corpus.cases.length} cases, sha256 ${corpus.sha256}`);
}
