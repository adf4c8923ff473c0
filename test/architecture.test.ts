/**
 * The rules of the house, as data, checked over the code's real import graph (docs/ARCHITECTURE.md
 * "Rooms"). Every non-test .ts/.tsx file under the folders in SCANNED is parsed with the TypeScript
 * parser; `import … from`, `export … from`, `import x = require(…)`, dynamic `import(…)`, `require(…)`
 * and type-level `import("…")` specifiers are resolved ("@/…" from the repository root, "./…" and
 * "../…" from the importing file, node built-ins as node:*, anything else as an npm package) and
 * every edge is checked against ROOMS (which lib/ room may import which) and RULES (what must never
 * be imported, directly or through anything reached, and who may speak HTTP to the outside).
 *
 * A failure names the file and line, the import as written, what it resolved to and the rule it
 * breaks. The second half of the file runs the same checker over a small in-memory graph that
 * breaks each rule, so a rule that could never fire would fail here too.
 */
import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// ---------------------------------------------------------------------------------------------
// The rules, as data
// ---------------------------------------------------------------------------------------------

/** The folders whose non-test sources make the graph (e2e/ is Playwright's, prisma/ holds no code). */
const SCANNED = ["lib", "app", "components", "scripts", "bench", "demo", "sellers", "test"];

/**
 * Target patterns: a repository glob ("lib/net/**", "lib/db.ts", "app/**\/route.ts"), an npm
 * package ("npm:pg" matches pg and pg/…, "npm:*" any package), a node built-in ("node:fs" matches
 * node:fs and node:fs/promises, "node:*" any), or "<computed>" for an import whose specifier is
 * not a literal (the checker cannot follow it).
 */
type Pattern = string;

/** Everything that holds or opens the database: our handle and helpers, the Prisma client, drivers. */
const DATABASE: Pattern[] = [
  "lib/db.ts",
  "lib/sql.ts",
  "lib/migrate.ts",
  "lib/generated/**",
  "npm:@prisma/client",
  "npm:@prisma/adapter-pg",
  "npm:pg",
  "npm:@electric-sql/pglite",
  "npm:pglite-prisma-adapter",
];

/** Small shared modules any room that is not pure or a leaf may use. */
const FOUNDATION: Pattern[] = ["lib/errors.ts", "lib/env.ts", "lib/amounts.ts", "lib/format.ts"];

/** The queue's rooms register their ticks with the scheduler (moving to lib/scheduler.ts: both are named). */
const SCHEDULER: Pattern[] = ["lib/scheduler.ts"];

interface Room {
  /** A folder or a top-level file under lib/. */
  path: string;
  /** What it owns, in a line (docs/ARCHITECTURE.md "Rooms" says it at length). */
  owns: string;
  /** The other lib/ rooms (or single files in them) it may import; its own files are always allowed. */
  may: Pattern[];
}

/**
 * The room map: every folder and top-level file of lib/ is declared here, with the lib/ rooms it
 * may import. A new room is declared here (and in docs/ARCHITECTURE.md) before it can be imported.
 * Imports leaving lib/ are governed by RULES below.
 */
const ROOMS: Room[] = [
  // Leaves and foundations.
  { path: "lib/amounts.ts", owns: "the amount shapes the database constraints accept", may: [] },
  // Network names fall back to the asset table (data only).
  { path: "lib/format.ts", owns: "pure display helpers", may: ["lib/x402/assets.ts"] },
  { path: "lib/errors.ts", owns: "AppError, the closed set of error codes and their HTTP statuses", may: [] },
  { path: "lib/env.ts", owns: "the validated environment", may: [] },
  { path: "lib/evidence.ts", owns: "probe evidence types, below the probe and the parsers", may: [] },
  // lib/env.ts: the configured public origin the cross-origin guard compares Origin with.
  { path: "lib/http.ts", owns: "bounded request-body reads (413 past a route's limit), body parsing into AppError 400s, the cookie routes' same-origin guard", may: ["lib/errors.ts", "lib/env.ts", "lib/listing-document/unstorable.ts"] },
  // node:http: it wraps the server's "request" event to refuse a server action's body before Next.js reads it.
  { path: "lib/action-body-guard.ts", owns: "server actions' bodies refused from their headers (413, 411) before Next.js reads them", may: ["lib/http.ts", "lib/security-headers.ts"] },
  { path: "lib/security-headers.ts", owns: "the site's CSP (page nonces, API answers) and the headers every answer carries", may: [] },
  { path: "lib/generated", owns: "the Prisma client `prisma generate` writes (not committed)", may: [] },
  { path: "lib/db.ts", owns: "the one lazily opened database handle (PGlite or a server)", may: ["lib/env.ts", "lib/generated/**"] },
  { path: "lib/sql.ts", owns: "raw SQL helpers and the PrismaLike client type", may: ["lib/db.ts", "lib/generated/**"] },
  { path: "lib/migrate.ts", owns: "the migrator (committed SQL in order, under an advisory lock)", may: ["lib/db.ts"] },
  { path: "lib/scheduler.ts", owns: "the one scheduler, once it moves out of lib/jobs", may: [] },
  { path: "lib/listing-document", owns: "the listing document's types and its ajv validation", may: [] },
  { path: "lib/ajv-logger.ts", owns: "Ajv's logger for sellers' schemas (unknown formats not logged)", may: [] },

  // Outbound HTTP and what reads its answers.
  { path: "lib/net", owns: "the only outbound HTTP: the SSRF guard, pinned connections, bounded reads", may: [] },
  { path: "lib/x402", owns: "x402 challenge and Bazaar parsing", may: ["lib/evidence.ts", "lib/listing-document/**", "lib/ajv-logger.ts"] },
  { path: "lib/mpp", owns: "MPP challenge parsing", may: ["lib/evidence.ts", "lib/x402/**"] },
  {
    path: "lib/probe",
    owns: "probing a listing's endpoints into evidence",
    may: ["lib/net/**", "lib/x402/**", "lib/mpp/**", "lib/evidence.ts", "lib/listing-document/**"],
  },
  {
    path: "lib/discovery",
    owns: "drafting a listing document from a URL",
    // The probe's unpaid-request helper and bound: a draft's endpoint calls are the probe's first evidence.
    may: ["lib/net/**", "lib/x402/**", "lib/mpp/**", "lib/evidence.ts", "lib/listing-document/**", "lib/format.ts", "lib/probe/request.ts", "lib/probe/bounded.ts"],
  },

  // Pure maths.
  {
    path: "lib/scoring",
    owns: "the readiness engine, its rubric data and the shared rank signals (pure)",
    // lib/screen/secrets.ts: E5's secret detector (readiness/1.1.0), the one the trust screen uses.
    may: ["lib/rank/score/**", "lib/amounts.ts", "lib/format.ts", "lib/listing-document/**", "lib/evidence.ts", "lib/screen/secrets.ts"],
  },
  {
    path: "lib/trust",
    owns: "the trust grade (docs/spec/trust-rubric.md): the observation contract, the hash-pinned rubric data and the pure engine (its producers, lib/trust/observe, are their own room)",
    may: [],
  },
  {
    path: "lib/rank/score",
    owns: "the rank maths: components, compute, browse keys, select (pure)",
    may: ["lib/scoring/**", "lib/amounts.ts", "lib/format.ts", "lib/listing-document/**", "lib/evidence.ts"],
  },

  // The analysis pipeline.
  {
    path: "lib/queue",
    owns: "queue storage, leases, the reaper and the staleness and rubric sweeps",
    // lib/net: enqueueing refuses a URL by the guard's pure (no DNS) checks. lib/ops/protocol.ts: a
    // leased row is the wire's lease fields plus the submitter (types only).
    may: [...FOUNDATION, ...DATABASE, ...SCHEDULER, "lib/net/**", "lib/scoring/**", "lib/ops/protocol.ts"],
  },
  {
    path: "lib/ops",
    owns: "the ops API: wire types (protocol.ts), worker auth, handlers",
    may: [...FOUNDATION, ...DATABASE, "lib/analyses/**", "lib/queue/**", "lib/listings/**", "lib/listing-document/**", "lib/evidence.ts"],
  },
  {
    path: "lib/worker",
    owns: "the catalog-monitor: the worker loop and its probes, no database",
    may: [...FOUNDATION, "lib/ops/protocol.ts", "lib/probe/**", "lib/discovery/**", "lib/net/**", "lib/x402/**", "lib/mpp/**", "lib/evidence.ts", "lib/listing-document/**"],
  },
  {
    path: "lib/jobs",
    owns: "the web process's glue: the scheduler's start-up and the in-process worker",
    may: [...FOUNDATION, ...SCHEDULER, "lib/queue/**", "lib/monitor/**", "lib/rank/**", "lib/ledger/**", "lib/limits/**", "lib/canary/**", "lib/ops/**", "lib/worker/**", "lib/attest/**"],
  },
  {
    path: "lib/analyses",
    owns: "score and store a result; the owner's submit, reanalyse and progress",
    // lib/intake: the API's submit is the intake's "queue" door; a completion writes the drafted listing through it.
    may: [...FOUNDATION, ...DATABASE, "lib/auth/**", "lib/intake/**", "lib/limits/**", "lib/listings/**", "lib/queue/**", "lib/facts/**", "lib/scoring/**", "lib/evidence.ts", "lib/listing-document/**", "lib/trust/observe/**"],
  },
  {
    path: "lib/facts",
    owns: "the facts the rank and readiness read from the ledger, set-based SQL",
    may: [...FOUNDATION, ...DATABASE, "lib/rank/score/**", "lib/scoring/**", "lib/evidence.ts"],
  },
  {
    path: "lib/rank",
    owns: "rank inputs and the rank sweep and its ticks",
    // lib/chain/rpc.ts: the wash check reads the token's Transfer logs (./wash.ts).
    may: [...FOUNDATION, ...DATABASE, ...SCHEDULER, "lib/rank/score/**", "lib/facts/**", "lib/scoring/**", "lib/chain/rpc.ts"],
  },
  {
    path: "lib/monitor",
    owns: "the health sweep (probes in the server process) and its ticks",
    may: [...FOUNDATION, ...DATABASE, ...SCHEDULER, "lib/probe/**", "lib/listings/**", "lib/scoring/**", "lib/facts/**", "lib/ledger/**", "lib/evidence.ts", "lib/listing-document/**", "lib/trust/observe/**"],
  },
  {
    path: "lib/chain",
    owns: "the chain: a local anvil node, the test USDC and its compiled artefact, the x402 facilitator, and RPC reads where an outage is unmeasured",
    // lib/x402/eip3009.ts: the test USDC implements the production EIP-3009 types.
    may: [...FOUNDATION, "lib/x402/eip3009.ts"],
  },
  {
    path: "lib/facilitator",
    owns: "who may use the built-in facilitator: its callers (API key scope, named tokens), their rate limits and daily gas budget",
    // lib/http.ts: the body is read bounded; lib/apikeys: a seller's facilitator:settle key; lib/limits: per caller and per payer.
    may: [...FOUNDATION, ...DATABASE, "lib/chain/**", "lib/apikeys/**", "lib/limits/**", "lib/http.ts"],
  },
  {
    path: "lib/ledger",
    owns: "writers of the settlement ledger, health samples and quotes; confirming relayed payments on chain, and its tick",
    // lib/x402/assets.ts and eip3009.ts: a settlement is bound to the listed asset and its EIP-3009 events.
    may: [...FOUNDATION, ...DATABASE, ...SCHEDULER, "lib/scoring/**", "lib/chain/rpc.ts", "lib/x402/assets.ts", "lib/x402/eip3009.ts"],
  },
  {
    path: "lib/router",
    owns: "the paying relay: forwards a buyer's call and payment to the seller, records and confirms the attempt",
    // lib/chain: whose failure an unsettled payment is takes the chain's word (lib/router/buyer-side.ts, lib/router/blame.ts).
    // lib/http.ts: the buyer's body is read bounded, like every route's.
    // lib/x402/assets.ts and eip3009.ts: the signature is checked in the asset table's EIP-712 domain.
    may: [...FOUNDATION, ...DATABASE, "lib/auth/**", "lib/apikeys/**", "lib/ledger/**", "lib/net/**", "lib/chain/**", "lib/http.ts", "lib/x402/assets.ts", "lib/x402/eip3009.ts"],
  },
  {
    path: "lib/canary",
    owns: "the canary: the house wallet pays each listed endpoint through the router, its samples, budget, runs and ticks, and the verification status they decide",
    // lib/router: every canary payment is a relayed call (house); lib/ledger and lib/chain: its row is confirmed and read on chain; lib/rank: a finished run re-ranks at once.
    // lib/trust/observe: a completed sample's paid observations are written in its transaction.
    may: [...FOUNDATION, ...DATABASE, ...SCHEDULER, "lib/router/**", "lib/ledger/**", "lib/chain/**", "lib/rank/**", "lib/trust/observe/**", "lib/ajv-logger.ts"],
  },
  // The trust grade (docs/TRUST.md). lib/trust holds the contract between the engine and the producers (observation.ts, imports nothing).
  { path: "lib/trust", owns: "the trust grade: the observation contract between its engine and its producers", may: [] },
  {
    path: "lib/trust/observe",
    owns: "the trust grade's observations: free checks from probes, paid checks from canary samples, endpoint revisions, the reader",
    // lib/screen: S2, S3, S4; lib/x402/assets.ts and lib/chain/rpc.ts: C3's asset table and its one eth_call.
    may: [...FOUNDATION, ...DATABASE, "lib/trust/observation.ts", "lib/screen/**", "lib/evidence.ts", "lib/x402/assets.ts", "lib/chain/rpc.ts"],
  },
  {
    path: "lib/attest",
    owns: "signed endpoint attestations and evidence bundles (docs/ATTESTATIONS.md): the bundle, the stored grades, the trust scoring sweep and its tick, the attestation guard",
    // lib/trust: the engine, the rubric and the observations' reader; lib/badges: canonical JSON, DSSE and the keyring; lib/chain: the daily root.
    may: [...FOUNDATION, ...DATABASE, ...SCHEDULER, "lib/trust/**", "lib/badges/**", "lib/chain/**"],
  },
  { path: "lib/screen", owns: "the pattern screen (injection, phishing, malware, secret asks) and the secret-value detector, pure", may: [] },
  { path: "lib/moderation", owns: "the moderators' levers", may: [...FOUNDATION, ...DATABASE, "lib/auth/**", "lib/listings/**", "lib/rank/**", "lib/canary/**"] },

  // Listings and the people who own them.
  {
    path: "lib/listings",
    owns: "saving, publishing and loading listings; who may act on one",
    // lib/rank/sweep-ranks.ts: a save that resets verification re-ranks the listing at once.
    may: [...FOUNDATION, ...DATABASE, "lib/auth/**", "lib/limits/**", "lib/listing-document/**", "lib/queue/**", "lib/evidence.ts", "lib/rank/sweep-ranks.ts"],
  },
  {
    path: "lib/intake",
    owns: "the one intake use case: validate the target once, draft, one writer, enqueue",
    may: [...FOUNDATION, ...DATABASE, "lib/net/**", "lib/discovery/**", "lib/limits/**", "lib/listings/**", "lib/queue/**", "lib/listing-document/**", "lib/auth/**", "lib/evidence.ts"],
  },
  { path: "lib/auth", owns: "sessions, roles read fresh, Sign-In with Ethereum", may: [...FOUNDATION, ...DATABASE] },
  {
    path: "lib/limits",
    owns: "per-actor rate limits (fixed windows in Postgres), the seller caps, and the sweep of ended windows and spent nonces",
    // lib/auth: roles (moderators are not capped) and the nonce sweep its tick runs.
    may: [...FOUNDATION, ...DATABASE, ...SCHEDULER, "lib/auth/**"],
  },
  { path: "lib/apikeys", owns: "API keys for the machine surfaces", may: [...FOUNDATION, ...DATABASE, "lib/auth/**"] },

  // What the surfaces read.
  // lib/facts: the listing page's activity is the one facts reader's (docs/RANK.md "One facts reader").
  // lib/trust: the trust grade's read model (lib/catalog/trust.ts) reads the observations and scores them with the pure engine.
  // lib/attest/read.ts: the stored grades and their daily points, read instead of scoring at view time.
  // lib/x402/assets.ts: the call snippets name the token an endpoint is priced in, and its EIP-712 domain.
  // lib/listing-document/unstorable.ts: a search query that cannot be stored as text is a 400, not a database error.
  { path: "lib/catalog", owns: "the public view and the catalog's read models", may: [...FOUNDATION, ...DATABASE, "lib/auth/**", "lib/rank/score/**", "lib/facts/**", "lib/trust/**", "lib/x402/assets.ts", "lib/listing-document/unstorable.ts", "lib/attest/read.ts"] },
  // lib/http.ts: the verify route's body is read bounded, like every route's.
  { path: "lib/badges", owns: "signed SVG badges: statements, DSSE, rendering, verification", may: [...FOUNDATION, ...DATABASE, "lib/net/**", "lib/http.ts"] },
  {
    path: "lib/surfaces",
    owns: "read models and server actions per surface (seller, admin, catalog, sign-in)",
    may: [
      ...FOUNDATION,
      ...DATABASE,
      "lib/auth/**",
      "lib/analyses/**",
      "lib/catalog/**",
      "lib/discovery/**",
      "lib/intake/**",
      "lib/listings/**",
      "lib/listing-document/**",
      "lib/moderation/**",
      "lib/queue/**",
      "lib/rank/**",
      "lib/scoring/**",
      "lib/evidence.ts",
      // The asset table: the moderator's ledger reads amounts in their asset's decimals.
      "lib/x402/assets.ts",
      // The canary's budget left, on the moderator's listing page; its price ceiling and what awaits approval, on the desk.
      "lib/canary/budget.ts",
      "lib/canary/price-ceiling.ts",
    ],
  },
];

interface ImportRule {
  kind: "imports";
  id: string;
  /** The rule in words: the failure message quotes it. */
  says: string;
  /** The importing files it governs (globs), minus `unless`. */
  from: Pattern[];
  unless?: Pattern[];
  /** Every import must match one of these. */
  only?: Pattern[];
  /** No import may match any of these. */
  never?: Pattern[];
  /** `never` also holds for every file the governed files reach through the repository's own files. */
  transitive?: boolean;
  /** Single files excused, each with its reason. A listed file must still need its exception. */
  except?: Record<string, string>;
}

interface OutboundRule {
  kind: "outbound";
  id: string;
  says: string;
  from: Pattern[];
  unless?: Pattern[];
  /** "use client" files here may call fetch with a same-origin path literal ("/api/…"). */
  clientSameOrigin: Pattern[];
  except?: Record<string, string>;
}

type Rule = ImportRule | OutboundRule;

const PURE_ROOMS = ["lib/scoring/**", "lib/rank/score/**"];

const RULES: Rule[] = [
  {
    kind: "imports",
    id: "pure-maths",
    says:
      "lib/scoring and lib/rank/score are pure: they import only each other, lib/amounts.ts, lib/format.ts, " +
      "lib/listing-document, lib/evidence.ts, lib/screen/secrets.ts (E5's pure secret detector), node built-ins without I/O and zod/ajv",
    from: PURE_ROOMS,
    // No exception for the two CLIs (lib/scoring/readiness/cli.ts, lib/rank/score/cli.ts): they take
    // text and return text; scripts/score.ts and scripts/rank.ts read the files.
    only: [
      ...PURE_ROOMS,
      "lib/amounts.ts",
      "lib/format.ts",
      "lib/listing-document/**",
      "lib/evidence.ts",
      "lib/screen/secrets.ts",
      "node:crypto",
      "node:path",
      "node:util",
      "node:assert",
      "node:url",
      "node:buffer",
      "npm:zod",
      "npm:ajv",
      "npm:ajv-formats",
    ],
  },
  {
    kind: "imports",
    id: "pure-maths-reach",
    says: "nothing the pure maths reaches touches the database, the network, the file system or Next",
    from: PURE_ROOMS,
    never: [...DATABASE, "lib/net/**", "npm:undici", "npm:next", "npm:next-auth", "node:fs", "node:net", "node:http", "node:https", "node:dns", "node:tls", "node:child_process"],
    transitive: true,
  },
  {
    kind: "imports",
    id: "worker-no-database",
    says:
      "the catalog-monitor (lib/worker) holds no database credentials: nothing it reaches imports the database, " +
      "lib/queue, lib/analyses, lib/facts, lib/rank, lib/listings or the ops handlers; it talks through lib/ops/protocol.ts",
    from: ["lib/worker/**"],
    never: [...DATABASE, "lib/queue/**", "lib/analyses/**", "lib/facts/**", "lib/rank/**", "lib/listings/**", "lib/ops/handlers.ts", "lib/ops/auth.ts"],
    transitive: true,
  },
  {
    kind: "imports",
    id: "one-outbound-door",
    says: "undici is lib/net's: outbound HTTP goes through lib/net (safeFetch) and its SSRF guard",
    from: ["lib/**", "app/**", "components/**", "scripts/**", "bench/**", "demo/**"],
    unless: ["lib/net/**"],
    never: ["npm:undici"],
  },
  {
    kind: "outbound",
    id: "one-outbound-door",
    says: "lib/net is the only outbound door: no global fetch and no node:http/https request or get outside it",
    from: ["lib/**", "app/**", "components/**", "scripts/**", "bench/**", "demo/**"],
    // test/ rigs and sellers/ (fixture servers) are not governed: they serve, and test the door.
    unless: ["lib/net/**"],
    clientSameOrigin: ["app/**", "components/**"],
    except: {
      "lib/worker/run-worker.ts":
        "httpOpsClient talks to our own ops API (TOLLGATE_API_URL, bearer token), never to a stranger's URL",
      "scripts/demo.ts": "waits for the demo server it started to answer on its own URL",
      "demo/market.ts": "the market's buyers call the demo's own router (the routerOrigin it is given), as any buyer's agent would",
      "bench/badge.ts": "drives the badge stand-in server it forked on 127.0.0.1",
      "bench/router.ts": "is the buyer (@x402/fetch) of the paid seller it forked and the router it serves, both on 127.0.0.1",
      "bench/canary.ts": "is the bare buyer (@x402/fetch) of the router it serves on 127.0.0.1, beside the canary it measures",
      "bench/load.ts": "is the many buyers of the production server it started on 127.0.0.1 (its own origin, never a stranger's URL)",
      "lib/chain/anvil.ts": "asks the anvil node it started on 127.0.0.1 whether its RPC answers yet",
    },
  },
  {
    kind: "imports",
    id: "lib-below-the-rest",
    says: "lib/ is the domain: it never imports app/, components/, scripts/, bench/, test/, demo/, sellers/ or e2e/",
    from: ["lib/**"],
    never: ["app/**", "components/**", "scripts/**", "bench/**", "test/**", "demo/**", "sellers/**", "e2e/**"],
  },
  {
    kind: "imports",
    id: "evidence-below-probe",
    says: "lib/evidence.ts and the parsers (lib/x402, lib/mpp) sit below the probe: nothing they reach imports lib/probe",
    from: ["lib/evidence.ts", "lib/x402/**", "lib/mpp/**"],
    never: ["lib/probe/**"],
    transitive: true,
  },
  {
    kind: "imports",
    id: "thin-routes",
    says: "app/ routes, pages and layouts are thin: the database is reached through lib/ read models, never imported here",
    from: ["app/**/route.ts", "app/**/page.tsx", "app/**/layout.tsx"],
    never: DATABASE,
  },
  {
    kind: "imports",
    id: "components-no-database",
    says: "components/ never import the database: server-only data comes through app/",
    from: ["components/**"],
    never: DATABASE,
  },
  {
    kind: "imports",
    id: "no-computed-imports",
    says: "an import the checker cannot follow (a computed specifier) would hide an edge",
    from: ["lib/**", "app/**", "components/**"],
    never: ["<computed>"],
  },
  {
    kind: "imports",
    id: "app-imports",
    says: "app/ imports lib/, components/ and public/",
    from: ["app/**"],
    only: ["app/**", "lib/**", "components/**", "public/**", "npm:*", "node:*"],
  },
  {
    kind: "imports",
    id: "components-imports",
    says: "components/ import lib/ and public/",
    from: ["components/**"],
    only: ["components/**", "lib/**", "public/**", "npm:*", "node:*"],
  },
  {
    kind: "imports",
    id: "sellers-imports",
    says: "sellers/ are fixture servers: they import lib/ (never the database) and themselves",
    from: ["sellers/**"],
    only: ["sellers/**", "lib/**", "npm:*", "node:*"],
    never: DATABASE,
  },
  {
    kind: "imports",
    id: "demo-imports",
    says: "demo/ seeds through lib/, the test rigs and the fixture sellers",
    from: ["demo/**"],
    only: ["demo/**", "lib/**", "test/**", "sellers/**", "npm:*", "node:*"],
  },
  {
    kind: "imports",
    id: "scripts-imports",
    says: "scripts/ are command lines over lib/, the demo seed and the fixture sellers",
    from: ["scripts/**"],
    only: ["scripts/**", "lib/**", "demo/**", "sellers/**", "npm:*", "node:*"],
  },
  {
    kind: "imports",
    id: "bench-imports",
    says: "bench/ measures lib/ with the test rigs and the fixture sellers",
    from: ["bench/**"],
    // verifier/: bench/verify.ts measures the standalone verifier ("the standalone verifier" below).
    only: ["bench/**", "lib/**", "test/**", "sellers/**", "verifier/**", "npm:*", "node:*"],
  },
  {
    kind: "imports",
    id: "test-rig-imports",
    says: "test/ rigs drive lib/, app/ routes and the fixture sellers",
    from: ["test/**"],
    only: ["test/**", "lib/**", "app/**", "sellers/**", "npm:*", "node:*"],
  },
  {
    kind: "imports",
    id: "trust-pure",
    says:
      "lib/trust (the observation contract, the rubric and the engine; not its producers in lib/trust/observe) is pure: " +
      "it imports nothing outside lib/trust but ajv and node:crypto (the rubric's pin)",
    from: ["lib/trust/**"],
    unless: ["lib/trust/observe/**"],
    only: ["lib/trust/**", "npm:ajv", "node:crypto"],
  },
  {
    kind: "imports",
    id: "trust-apart",
    says: "the trust grade never enters readiness or rank (docs/TRUST.md): nothing lib/scoring, lib/rank or lib/facts reaches imports lib/trust",
    from: ["lib/scoring/**", "lib/rank/**", "lib/facts/**"],
    never: ["lib/trust/**"],
    transitive: true,
  },
  {
    kind: "imports",
    id: "trust-pure-reach",
    says: "nothing the trust engine reaches touches the database, the network, the file system, Next or its producers (lib/trust/observe)",
    from: ["lib/trust/**"],
    unless: ["lib/trust/observe/**"],
    never: [...DATABASE, "lib/trust/observe/**", "lib/net/**", "npm:undici", "npm:next", "npm:next-auth", "node:fs", "node:net", "node:http", "node:https", "node:dns", "node:tls", "node:child_process"],
    transitive: true,
  },
];

// ---------------------------------------------------------------------------------------------
// The checker
// ---------------------------------------------------------------------------------------------

interface ImportRef {
  /** As written; null for a computed import(…) or require(…). */
  spec: string | null;
  line: number;
}

interface OutboundUse {
  line: number;
  what: string;
  /** A call whose first argument is a same-origin path literal ("/api/…"). */
  sameOrigin: boolean;
}

interface Scanned {
  imports: ImportRef[];
  outbound: OutboundUse[];
  useClient: boolean;
}

const HTTP_MODULES = new Set(["node:http", "node:https", "http", "https"]);
const HTTP_CLIENT_FUNCTIONS = new Set(["request", "get"]);

function isSameOriginPath(arg: ts.Expression | undefined): boolean {
  // "/api/x/" + id: the string starts where its left-most operand does.
  while (arg && ts.isBinaryExpression(arg) && arg.operatorToken.kind === ts.SyntaxKind.PlusToken) arg = arg.left;
  let text: string | undefined;
  if (arg && ts.isStringLiteralLike(arg)) text = arg.text;
  else if (arg && ts.isTemplateExpression(arg)) text = arg.head.text;
  return !!text && text.startsWith("/") && !text.startsWith("//");
}

/** True when this `fetch` identifier is a use of the global fetch (not a property name, a type or a declaration). */
function isGlobalFetch(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) {
    return ts.isIdentifier(p.expression) && ["globalThis", "window", "self"].includes(p.expression.text);
  }
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isPropertySignature(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isMethodSignature(p) ||
      ts.isGetAccessorDeclaration(p) ||
      ts.isSetAccessorDeclaration(p) ||
      ts.isVariableDeclaration(p) ||
      ts.isParameter(p) ||
      ts.isFunctionDeclaration(p)) &&
    p.name === id
  ) {
    return false;
  }
  if (ts.isBindingElement(p)) return false;
  if (ts.isTypeQueryNode(p) || ts.isQualifiedName(p) || ts.isTypeReferenceNode(p)) return false;
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p)) return false;
  return true;
}

/** Parses one source file into its import specifiers and its outbound HTTP uses. */
function scanSource(file: string, text: string): Scanned {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const lineOf = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const imports: ImportRef[] = [];
  const outbound: OutboundUse[] = [];
  const httpBindings = new Set<string>();

  let useClient = false;
  for (const st of sf.statements) {
    if (!ts.isExpressionStatement(st) || !ts.isStringLiteral(st.expression)) break;
    if (st.expression.text === "use client") useClient = true;
  }

  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const spec = n.moduleSpecifier.text;
      imports.push({ spec, line: lineOf(n) });
      const clause = n.importClause;
      if (HTTP_MODULES.has(spec) && clause && !clause.isTypeOnly) {
        if (clause.name) httpBindings.add(clause.name.text);
        const nb = clause.namedBindings;
        if (nb && ts.isNamespaceImport(nb)) httpBindings.add(nb.name.text);
        if (nb && ts.isNamedImports(nb)) {
          for (const el of nb.elements) {
            const imported = (el.propertyName ?? el.name).text;
            if (!el.isTypeOnly && HTTP_CLIENT_FUNCTIONS.has(imported)) {
              outbound.push({ line: lineOf(el), what: `${imported} from "${spec}"`, sameOrigin: false });
            }
          }
        }
      }
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      imports.push({ spec: n.moduleSpecifier.text, line: lineOf(n) });
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      imports.push({ spec: ts.isStringLiteralLike(e) ? e.text : null, line: lineOf(n) });
    } else if (ts.isCallExpression(n)) {
      const isImport = n.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(n.expression) && n.expression.text === "require";
      if (isImport || isRequire) {
        const arg = n.arguments[0];
        imports.push({ spec: arg && ts.isStringLiteralLike(arg) ? arg.text : null, line: lineOf(n) });
      }
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      imports.push({ spec: n.argument.literal.text, line: lineOf(n) });
    } else if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && httpBindings.has(n.expression.text) && HTTP_CLIENT_FUNCTIONS.has(n.name.text)) {
      outbound.push({ line: lineOf(n), what: `${n.expression.text}.${n.name.text} (node:http/https)`, sameOrigin: false });
    }
    if (ts.isIdentifier(n) && n.text === "fetch" && isGlobalFetch(n)) {
      const expr: ts.Node = ts.isPropertyAccessExpression(n.parent) ? n.parent : n;
      const call = ts.isCallExpression(expr.parent) && expr.parent.expression === expr ? expr.parent : undefined;
      outbound.push({ line: lineOf(n), what: call ? "fetch(…)" : "the global fetch", sameOrigin: !!call && isSameOriginPath(call.arguments[0]) });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { imports, outbound, useClient };
}

type Target = { kind: "repo"; path: string } | { kind: "npm"; name: string } | { kind: "node"; name: string } | { kind: "computed" };

interface Edge extends ImportRef {
  to: Target;
}

interface FileNode {
  path: string;
  imports: Edge[];
  outbound: OutboundUse[];
  useClient: boolean;
}

type Graph = Map<string, FileNode>;

const BUILTINS = new Set(builtinModules);

/** Resolves a specifier as the bundler does: "@/x" from the root, "./x" from the file; `isFile` says what exists. */
function resolve(spec: string | null, from: string, isFile: (p: string) => boolean): Target {
  if (spec === null) return { kind: "computed" };
  let base: string;
  if (spec.startsWith("@/")) base = path.posix.normalize(spec.slice(2));
  else if (spec.startsWith("./") || spec.startsWith("../")) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  else if (spec.startsWith("node:")) return { kind: "node", name: spec };
  else if (BUILTINS.has(spec.split("/")[0])) return { kind: "node", name: `node:${spec}` };
  else return { kind: "npm", name: spec };
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
  return { kind: "repo", path: candidates.find(isFile) ?? base };
}

function buildGraph(sources: Map<string, string>, isFile: (p: string) => boolean): Graph {
  const graph: Graph = new Map();
  for (const [file, text] of sources) {
    const s = scanSource(file, text);
    graph.set(file, { path: file, imports: s.imports.map((i) => ({ ...i, to: resolve(i.spec, file, isFile) })), outbound: s.outbound, useClient: s.useClient });
  }
  return graph;
}

function globRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      if (glob[i + 2] === "/") {
        re += "(?:.*/)?";
        i += 2;
      } else {
        re += ".*";
        i += 1;
      }
    } else if (c === "*") re += "[^/]*";
    else re += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

const globCache = new Map<string, RegExp>();
function globMatch(glob: string, p: string): boolean {
  let re = globCache.get(glob);
  if (!re) globCache.set(glob, (re = globRegExp(glob)));
  return re.test(p);
}

function matches(pattern: Pattern, t: Target): boolean {
  if (pattern === "<computed>") return t.kind === "computed";
  if (pattern.startsWith("npm:")) {
    const pkg = pattern.slice(4);
    return t.kind === "npm" && (pkg === "*" || t.name === pkg || t.name.startsWith(`${pkg}/`));
  }
  if (pattern.startsWith("node:")) {
    return t.kind === "node" && (pattern === "node:*" || t.name === pattern || t.name.startsWith(`${pattern}/`));
  }
  return t.kind === "repo" && globMatch(pattern, t.path);
}

function targetText(t: Target): string {
  if (t.kind === "repo") return t.path;
  if (t.kind === "npm") return `npm:${t.name}`;
  if (t.kind === "node") return t.name;
  return "not followable";
}

interface Violation {
  rule: string;
  file: string;
  line: number;
  message: string;
}

const formatViolation = (v: Violation) => `${v.file}:${v.line}: ${v.message} [${v.rule}]`;

function governs(rule: { from: Pattern[]; unless?: Pattern[] }, file: string): boolean {
  return rule.from.some((g) => globMatch(g, file)) && !(rule.unless ?? []).some((g) => globMatch(g, file));
}

function quote(e: Edge): string {
  return e.spec === null ? "import(<expression>)" : `"${e.spec}"`;
}

function checkImportRule(graph: Graph, rule: ImportRule): Violation[] {
  const out: Violation[] = [];
  const except = rule.except ?? {};
  const starts = [...graph.keys()].filter((f) => governs(rule, f) && !(f in except));
  for (const file of starts) {
    for (const e of graph.get(file)!.imports) {
      if (rule.only && !rule.only.some((m) => matches(m, e.to))) {
        out.push({ rule: rule.id, file, line: e.line, message: `imports ${quote(e)} (${targetText(e.to)}), outside what it may import: ${rule.says}` });
      }
      if (rule.never && !rule.transitive && rule.never.some((m) => matches(m, e.to))) {
        out.push({ rule: rule.id, file, line: e.line, message: `imports ${quote(e)} (${targetText(e.to)}): ${rule.says}` });
      }
    }
  }
  if (rule.never && rule.transitive) {
    // One walk from every governed file at once; each offending edge is reported once, with a chain that reaches it.
    const chainTo = new Map<string, string[]>(starts.map((f) => [f, [f]]));
    const queue = [...starts];
    while (queue.length) {
      const file = queue.shift()!;
      const chain = chainTo.get(file)!;
      for (const e of graph.get(file)?.imports ?? []) {
        if (rule.never.some((m) => matches(m, e.to))) {
          const via = chain.length > 1 ? ` (reached from ${chain.join(" → ")})` : "";
          out.push({ rule: rule.id, file, line: e.line, message: `imports ${quote(e)} (${targetText(e.to)})${via}: ${rule.says}` });
        } else if (e.to.kind === "repo" && graph.has(e.to.path) && !chainTo.has(e.to.path)) {
          chainTo.set(e.to.path, [...chain, e.to.path]);
          queue.push(e.to.path);
        }
      }
    }
  }
  return out;
}

function checkOutboundRule(graph: Graph, rule: OutboundRule): Violation[] {
  const out: Violation[] = [];
  const except = rule.except ?? {};
  for (const [file, node] of graph) {
    if (!governs(rule, file) || file in except) continue;
    const client = node.useClient && rule.clientSameOrigin.some((g) => globMatch(g, file));
    for (const use of node.outbound) {
      if (client && use.sameOrigin) continue;
      out.push({ rule: rule.id, file, line: use.line, message: `uses ${use.what}: ${rule.says}` });
    }
  }
  return out;
}

function roomOf(rooms: Room[], file: string): Room | undefined {
  let best: Room | undefined;
  for (const r of rooms) {
    if ((file === r.path || file.startsWith(`${r.path}/`)) && (!best || r.path.length > best.path.length)) best = r;
  }
  return best;
}

/** The room table's own consistency: every lib/ folder and top-level file is a room, every `may` names one. */
function checkRoomMap(rooms: Room[], libEntries: string[]): Violation[] {
  const out: Violation[] = [];
  const declared = new Set(rooms.map((r) => r.path));
  for (const entry of libEntries) {
    if (!declared.has(entry)) {
      out.push({ rule: "room-map", file: entry, line: 0, message: "is not a declared room: add it to ROOMS with what it owns and what it may import, and to docs/ARCHITECTURE.md \"Rooms\"" });
    }
  }
  for (const r of rooms) {
    for (const m of r.may) {
      if (!m.startsWith("lib/")) continue;
      const inRoom = rooms.some((o) => m === o.path || m === `${o.path}/**` || m.startsWith(`${o.path}/`));
      if (!inRoom) out.push({ rule: "room-map", file: r.path, line: 0, message: `may import "${m}", which is no declared room` });
    }
  }
  return out;
}

/** lib/ → lib/ edges against the room table. */
function checkRooms(graph: Graph, rooms: Room[]): Violation[] {
  const out: Violation[] = [];
  for (const [file, node] of graph) {
    if (!file.startsWith("lib/")) continue;
    const room = roomOf(rooms, file);
    if (!room) {
      out.push({ rule: "room-map", file, line: 0, message: "lies in no declared room: add its folder to ROOMS" });
      continue;
    }
    for (const e of node.imports) {
      if (e.to.kind !== "repo" || !e.to.path.startsWith("lib/")) continue;
      if (roomOf(rooms, e.to.path) === room) continue;
      if (!room.may.some((m) => matches(m, e.to))) {
        out.push({
          rule: "rooms",
          file,
          line: e.line,
          message: `imports ${quote(e)} (${e.to.path}), which room ${room.path} may not import (it may import: ${room.may.join(", ") || "nothing of lib/"})`,
        });
      }
    }
  }
  return out;
}

function check(graph: Graph, rooms: Room[], rules: Rule[], libEntries: string[]): Violation[] {
  const out = [...checkRoomMap(rooms, libEntries), ...checkRooms(graph, rooms)];
  for (const rule of rules) out.push(...(rule.kind === "imports" ? checkImportRule(graph, rule) : checkOutboundRule(graph, rule)));
  return out;
}

/** The top-level entries of lib/ that must be rooms (folders, and non-test source files). */
function libEntriesOf(paths: string[]): string[] {
  const entries = new Set<string>();
  for (const p of paths) {
    const parts = p.split("/");
    if (parts[0] !== "lib" || parts.length < 2) continue;
    entries.add(parts.length > 2 ? `lib/${parts[1]}` : p);
  }
  return [...entries].sort();
}

// ---------------------------------------------------------------------------------------------
// The repository
// ---------------------------------------------------------------------------------------------

const ROOT = path.resolve(__dirname, "..");
const isTest = (name: string) => /\.(test|spec)\.tsx?$/.test(name);

function repoSources(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = `${rel}/${d.name}`;
      if (d.isDirectory()) {
        if (d.name === "node_modules" || p === "lib/generated") continue;
        walk(p);
      } else if (/\.tsx?$/.test(d.name) && !d.name.endsWith(".d.ts") && !isTest(d.name)) {
        out.set(p, fs.readFileSync(path.join(ROOT, p), "utf8"));
      }
    }
  };
  for (const dir of SCANNED) walk(dir);
  return out;
}

function repoLibEntries(): string[] {
  return fs
    .readdirSync(path.join(ROOT, "lib"), { withFileTypes: true })
    .filter((d) => d.isDirectory() || (/\.tsx?$/.test(d.name) && !isTest(d.name)))
    .map((d) => `lib/${d.name}`)
    .sort();
}

const isRepoFile = (p: string) => {
  try {
    return fs.statSync(path.join(ROOT, p)).isFile();
  } catch {
    return false;
  }
};

describe("the rules of the house, on the code", () => {
  const graph = buildGraph(repoSources(), isRepoFile);

  it("reads the whole graph (every scanned folder has sources, and imports resolve to files)", () => {
    for (const dir of SCANNED) expect([...graph.keys()].some((f) => f.startsWith(`${dir}/`)), dir).toBe(true);
    expect(graph.size).toBeGreaterThan(150);
    const unresolved: string[] = [];
    for (const [file, node] of graph) {
      for (const e of node.imports) {
        // lib/generated is written by `prisma generate`; everything else must exist as written.
        if (e.to.kind === "repo" && !e.to.path.startsWith("lib/generated/") && !isRepoFile(e.to.path)) unresolved.push(`${file}:${e.line} ${e.spec}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it("keeps every rule (each failure names the file, the import and the rule it breaks)", () => {
    expect(check(graph, ROOMS, RULES, repoLibEntries()).map(formatViolation)).toEqual([]);
  });

  it("needs every exception it lists (a file that no longer breaks its rule loses its exception)", () => {
    for (const rule of RULES) {
      for (const file of Object.keys(rule.except ?? {})) {
        expect(graph.has(file), `${rule.id}: ${file} exists`).toBe(true);
        const strict = { ...rule, except: {} } as Rule;
        const hits = (strict.kind === "imports" ? checkImportRule(graph, strict) : checkOutboundRule(graph, strict)).filter((v) => v.file === file);
        expect(hits.length, `${rule.id}: ${file} still needs its exception`).toBeGreaterThan(0);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The checker can fail: a small in-memory graph breaking each rule
// ---------------------------------------------------------------------------------------------

function fakeCheck(files: Record<string, string>): Violation[] {
  const sources = new Map(Object.entries(files));
  const graph = buildGraph(sources, (p) => sources.has(p) || p.endsWith(".json"));
  return check(graph, ROOMS, RULES, libEntriesOf([...sources.keys()]));
}

/** A clean little house: each test below adds one file that breaks one rule. */
const CLEAN: Record<string, string> = {
  "lib/db.ts": `import { PrismaClient } from "@/lib/generated/prisma/client"; export const db = () => new PrismaClient();`,
  "lib/sql.ts": `import { db } from "./db"; export const rows = db;`,
  "lib/errors.ts": `export class AppError extends Error {}`,
  "lib/evidence.ts": `export type Evidence = { ok: boolean };`,
  "lib/listing-document/document.ts": `export type ListingDocument = { name: string };`,
  "lib/listing-document/validate.ts": `import Ajv from "ajv/dist/2020"; import type { ListingDocument } from "./document"; export const v = new Ajv();`,
  "lib/scoring/signals.ts": `import { createHash } from "node:crypto"; export const h = createHash;`,
  "lib/scoring/readiness/engine.ts": `import type { ListingDocument } from "@/lib/listing-document/document"; import { h } from "../signals"; export { h };`,
  "lib/rank/score/compute.ts": `import { h } from "@/lib/scoring/signals"; export const compute = h;`,
  "lib/net/safe-fetch.ts": `import { Agent, request } from "undici"; export const safeFetch = (u: string) => fetch(u);`,
  "lib/net/index.ts": `export { safeFetch } from "./safe-fetch";`,
  "lib/x402/parse.ts": `import type { Evidence } from "@/lib/evidence"; export const parse = (e: Evidence) => e;`,
  "lib/probe/index.ts": `import { safeFetch } from "@/lib/net"; import { parse } from "@/lib/x402/parse"; export const probe = { safeFetch, parse };`,
  "lib/discovery/import.ts": `import { safeFetch } from "@/lib/net"; export const draft = safeFetch;`,
  "lib/ops/protocol.ts": `import type { Evidence } from "@/lib/evidence"; export type Lease = { evidence: Evidence };`,
  "lib/ops/handlers.ts": `import { rows } from "@/lib/sql"; import type { Lease } from "./protocol"; export const claim = rows;`,
  "lib/worker/probes.ts": `import { probe } from "@/lib/probe"; import { draft } from "@/lib/discovery/import"; import type { Lease } from "@/lib/ops/protocol"; export const p = { probe, draft };`,
  "lib/worker/run-worker.ts": `import { p } from "./probes"; export interface O { fetch?: typeof fetch } export const client = (o: O) => o.fetch ?? fetch;`,
  "lib/catalog/browse.ts": `import { db } from "@/lib/db"; import { compute } from "@/lib/rank/score/compute"; export const browse = { db, compute };`,
  "app/catalog/page.tsx": `import { browse } from "@/lib/catalog/browse"; import { Tile } from "@/components/tile"; export default function P() { return null; }`,
  "app/api/x/route.ts": `import { AppError } from "@/lib/errors"; export const GET = () => new AppError();`,
  "components/tile.tsx": `"use client"; import type { Evidence } from "@/lib/evidence"; export function Tile() { void fetch("/api/analyses/" + 1); void fetch(\`/api/listings/\${2}\`); return null; }`,
  "sellers/server.ts": `import { createServer, request } from "node:http"; import type { ListingDocument } from "@/lib/listing-document/document"; export const s = createServer; void fetch("http://127.0.0.1");`,
  "test/db.ts": `import { db } from "@/lib/db"; import { GET } from "@/app/api/x/route"; export const t = { db, GET };`,
  "demo/seed.ts": `import { db } from "@/lib/db"; import { t } from "@/test/db"; import { s } from "@/sellers/server"; export const seed = { db, t, s };`,
  "scripts/demo.ts": `import { seed } from "@/demo/seed"; async function wait(u: string) { await fetch(u); } void wait; void seed;`,
};

function breaking(extra: Record<string, string>): string[] {
  return fakeCheck({ ...CLEAN, ...extra }).map(formatViolation);
}

describe("the checker", () => {
  it("finds nothing in the clean fake house", () => {
    expect(fakeCheck(CLEAN).map(formatViolation)).toEqual([]);
  });

  it("reads every import form, and only real uses of the global fetch", () => {
    const s = scanSource(
      "lib/a.ts",
      [
        `import a from "./a1";`,
        `import type { B } from "@/lib/b";`,
        `export { c } from "../c";`,
        `export * from "d";`,
        `import e = require("node:fs");`,
        `const f = await import("@/lib/f");`,
        `const g = require("g");`,
        `type H = typeof import("h");`,
        `const i = await import(name);`,
        `// fetch("https://in-a-comment")`,
        `const msg = "fetch(https://in-a-string)";`,
        `const o = { fetch: 1 }; o.fetch; client.fetch("x");`,
        `type T = { fetch?: typeof fetch };`,
        `const doFetch = o.fetch ?? fetch;`,
        `globalThis.fetch("https://x");`,
        `fetch("/api/same-origin");`,
      ].join("\n"),
    );
    expect(s.imports.map((i) => [i.spec, i.line])).toEqual([
      ["./a1", 1],
      ["@/lib/b", 2],
      ["../c", 3],
      ["d", 4],
      ["node:fs", 5],
      ["@/lib/f", 6],
      ["g", 7],
      ["h", 8],
      [null, 9],
    ]);
    expect(s.outbound).toEqual([
      { line: 14, what: "the global fetch", sameOrigin: false },
      { line: 15, what: "fetch(…)", sameOrigin: false },
      { line: 16, what: "fetch(…)", sameOrigin: true },
    ]);
    expect(s.useClient).toBe(false);
  });

  it("resolves @/ from the root, relative paths from the file, built-ins and packages", () => {
    const files = new Set(["lib/db.ts", "lib/net/index.ts", "app/x/page.tsx"]);
    const has = (p: string) => files.has(p);
    expect(resolve("@/lib/db", "app/x/page.tsx", has)).toEqual({ kind: "repo", path: "lib/db.ts" });
    expect(resolve("../../lib/net", "app/x/page.tsx", has)).toEqual({ kind: "repo", path: "lib/net/index.ts" });
    expect(resolve("./page", "app/x/route.ts", has)).toEqual({ kind: "repo", path: "app/x/page.tsx" });
    expect(resolve("fs/promises", "lib/a.ts", has)).toEqual({ kind: "node", name: "node:fs/promises" });
    expect(resolve("@prisma/client", "lib/a.ts", has)).toEqual({ kind: "npm", name: "@prisma/client" });
    expect(matches("npm:next", { kind: "npm", name: "next/cache" })).toBe(true);
    expect(matches("npm:next", { kind: "npm", name: "next-auth" })).toBe(false);
    expect(matches("node:fs", { kind: "node", name: "node:fs/promises" })).toBe(true);
    expect(matches("app/**/route.ts", { kind: "repo", path: "app/api/a/[id]/route.ts" })).toBe(true);
    expect(matches("lib/net/**", { kind: "repo", path: "lib/network.ts" })).toBe(false);
  });

  it("pure-maths: the scoring and rank maths import nothing with I/O, directly or through what they reach", () => {
    const direct = breaking({ "lib/scoring/readiness/cli.ts": `import { readFileSync } from "node:fs"; import { db } from "@/lib/db"; export const c = { readFileSync, db };` });
    expect(direct).toContain(`lib/scoring/readiness/cli.ts:1: imports "node:fs" (node:fs), outside what it may import: ${(RULES[0] as ImportRule).says} [pure-maths]`);
    expect(direct.some((v) => v.startsWith(`lib/scoring/readiness/cli.ts:1: imports "@/lib/db" (lib/db.ts)`) && v.endsWith("[pure-maths]"))).toBe(true);
    expect(direct.some((v) => v.startsWith(`lib/scoring/readiness/cli.ts:1: imports "node:fs" (node:fs):`) && v.endsWith("[pure-maths-reach]"))).toBe(true);

    const reached = breaking({ "lib/listing-document/document.ts": `import { rows } from "@/lib/sql"; export type ListingDocument = { name: string }; export const r = rows;` });
    expect(reached).toContain(
      `lib/listing-document/document.ts:1: imports "@/lib/sql" (lib/sql.ts) (reached from lib/scoring/readiness/engine.ts → lib/listing-document/document.ts): ` +
        `${(RULES[1] as ImportRule).says} [pure-maths-reach]`,
    );
    expect(reached.some((v) => v.endsWith("[rooms]") && v.startsWith("lib/listing-document/document.ts:1"))).toBe(true);
  });

  it("worker-no-database: the catalog-monitor reaches no database, queue, analyses, facts, rank, listings or ops handlers", () => {
    const direct = breaking({ "lib/worker/lease.ts": `import { claim } from "@/lib/ops/handlers"; import { x } from "@/lib/queue/lease"; export const l = { claim, x };`, "lib/queue/lease.ts": `export const x = 1;` });
    expect(direct.filter((v) => v.endsWith("[worker-no-database]"))).toEqual([
      `lib/worker/lease.ts:1: imports "@/lib/ops/handlers" (lib/ops/handlers.ts): ${(RULES[2] as ImportRule).says} [worker-no-database]`,
      `lib/worker/lease.ts:1: imports "@/lib/queue/lease" (lib/queue/lease.ts): ${(RULES[2] as ImportRule).says} [worker-no-database]`,
    ]);
    const reached = breaking({ "lib/discovery/import.ts": `import { safeFetch } from "@/lib/net"; import type { PrismaClient } from "@/lib/generated/prisma/client"; export const draft = safeFetch;` });
    expect(reached.some((v) => v.startsWith(`lib/discovery/import.ts:1: imports "@/lib/generated/prisma/client" (lib/generated/prisma/client) (reached from lib/worker/probes.ts → lib/discovery/import.ts)`) && v.endsWith("[worker-no-database]"))).toBe(true);
  });

  it("one-outbound-door: no undici, global fetch or node:http client outside lib/net, bar the listed exceptions", () => {
    const found = breaking({
      "lib/catalog/feeds.ts": `export const get = (u: string) => fetch(u);`,
      "lib/badges/fetch-keys.ts": `import { request } from "undici"; export const r = request;`,
      "lib/worker/helper.ts": `export const f = () => globalThis.fetch("https://stranger.example");`,
      "components/evil.tsx": `"use client"; export const x = () => fetch("https://stranger.example/api");`,
      "components/server.tsx": `export const x = () => fetch("/api/x");`,
      "app/api/y/route.ts": `import * as http from "node:https"; export const GET = () => http.get("https://x");`,
      "bench/probe.ts": `import { request as r } from "node:http"; export const b = r;`,
    });
    const door = found.filter((v) => v.endsWith("[one-outbound-door]"));
    expect(door.map((v) => v.split(":").slice(0, 2).join(":"))).toEqual([
      "lib/badges/fetch-keys.ts:1",
      "lib/catalog/feeds.ts:1",
      "lib/worker/helper.ts:1",
      "components/evil.tsx:1",
      "components/server.tsx:1",
      "app/api/y/route.ts:1",
      "bench/probe.ts:1",
    ]);
    expect(door).toContain(`lib/catalog/feeds.ts:1: uses fetch(…): ${(RULES[4] as OutboundRule).says} [one-outbound-door]`);
    expect(door).toContain(`app/api/y/route.ts:1: uses http.get (node:http/https): ${(RULES[4] as OutboundRule).says} [one-outbound-door]`);
  });

  it("lib-below-the-rest: lib/ never imports app/, components/, scripts/, bench/, test/, demo/, sellers/", () => {
    const found = breaking({ "lib/catalog/tile.ts": `import { Tile } from "@/components/tile"; import { t } from "../../test/db"; export const x = { Tile, t };` });
    expect(found.filter((v) => v.endsWith("[lib-below-the-rest]")).map((v) => v.split(" (")[0])).toEqual([
      `lib/catalog/tile.ts:1: imports "@/components/tile"`,
      `lib/catalog/tile.ts:1: imports "../../test/db"`,
    ]);
  });

  it("evidence-below-probe: the evidence types and the parsers never reach lib/probe", () => {
    const found = breaking({ "lib/x402/assets.ts": `export const a = 1;`, "lib/x402/parse.ts": `import { a } from "./assets"; export const parse = a;`, "lib/x402/deep.ts": `import { probe } from "@/lib/probe"; export const d = probe;` });
    expect(found.filter((v) => v.endsWith("[evidence-below-probe]")).map((v) => v.split(":").slice(0, 2).join(":"))).toEqual(["lib/x402/deep.ts:1"]);
    expect(found.some((v) => v.startsWith("lib/x402/deep.ts:1") && v.endsWith("[rooms]"))).toBe(true);
  });

  it("thin-routes and components-no-database: pages, routes, layouts and components never import the database", () => {
    const found = breaking({
      "app/api/x/route.ts": `import { db } from "@/lib/db"; export const GET = db;`,
      "app/signin/page.tsx": `import { PrismaClient } from "@prisma/client"; export default PrismaClient;`,
      "app/dashboard/layout.tsx": `import { rows } from "@/lib/sql"; export default rows;`,
      "app/dashboard/helpers.ts": `import { rows } from "@/lib/sql"; export default rows;`,
      "components/e.tsx": `import { rows } from "../lib/sql"; export const E = rows;`,
    });
    expect(found.filter((v) => v.endsWith("[thin-routes]")).map((v) => v.split(" (")[0])).toEqual([
      `app/api/x/route.ts:1: imports "@/lib/db"`,
      `app/signin/page.tsx:1: imports "@prisma/client"`,
      `app/dashboard/layout.tsx:1: imports "@/lib/sql"`,
    ]);
    expect(found.filter((v) => v.endsWith("[components-no-database]")).map((v) => v.split(" (")[0])).toEqual([`components/e.tsx:1: imports "../lib/sql"`]);
  });

  it("the areas: sellers without the database, demo/scripts/bench/test/app/components within their imports, no computed imports in lib", () => {
    const found = breaking({
      "sellers/db.ts": `import { db } from "../lib/db"; export const d = db;`,
      "demo/page.ts": `import P from "@/app/catalog/page"; export const p = P;`,
      "scripts/bench.ts": `import { x } from "@/bench/x"; export const y = x;`,
      "bench/x.ts": `import P from "@/app/catalog/page"; export const x = P;`,
      "test/x.ts": `import { seed } from "@/demo/seed"; export const y = seed;`,
      "app/x/page.tsx": `import { t } from "@/test/db"; export default t;`,
      "components/x.tsx": `import P from "@/app/catalog/page"; export const X = P;`,
      "lib/catalog/dyn.ts": `export const load = (m: string) => import(m);`,
    });
    const rulesHit = (file: string) => found.filter((v) => v.startsWith(`${file}:`)).map((v) => v.slice(v.lastIndexOf("[")));
    expect(rulesHit("sellers/db.ts")).toEqual(["[sellers-imports]"]);
    expect(rulesHit("demo/page.ts")).toEqual(["[demo-imports]"]);
    expect(rulesHit("scripts/bench.ts")).toEqual(["[scripts-imports]"]);
    expect(rulesHit("bench/x.ts")).toEqual(["[bench-imports]"]);
    expect(rulesHit("test/x.ts")).toEqual(["[test-rig-imports]"]);
    expect(rulesHit("app/x/page.tsx")).toEqual(["[app-imports]"]);
    expect(rulesHit("components/x.tsx")).toEqual(["[components-imports]"]);
    expect(rulesHit("lib/catalog/dyn.ts")).toEqual(["[no-computed-imports]"]);
    expect(found).toContain(`sellers/db.ts:1: imports "../lib/db" (lib/db.ts): ${(RULES.find((r) => r.id === "sellers-imports") as ImportRule).says} [sellers-imports]`);
  });

  it("trust-pure: the trust engine imports only lib/trust, ajv and node:crypto, and never reaches its producers", () => {
    const found = breaking({
      "lib/trust/engine/score.ts": `import { db } from "@/lib/db"; import { rows } from "@/lib/trust/observe/read"; import Ajv from "ajv/dist/2020"; import { createHash } from "node:crypto"; export const s = { db, rows, Ajv, createHash };`,
      "lib/trust/observe/read.ts": `import { rows } from "@/lib/sql"; export { rows };`,
    });
    const hits = found.filter((v) => v.endsWith("[trust-pure]")).map((v) => v.split(" (")[0]);
    expect(hits).toEqual([`lib/trust/engine/score.ts:1: imports "@/lib/db"`]);
    expect(found.some((v) => v.startsWith(`lib/trust/engine/score.ts:1: imports "@/lib/trust/observe/read"`) && v.endsWith("[trust-pure-reach]"))).toBe(true);
    expect(found.some((v) => v.startsWith("lib/trust/observe/read.ts:1") && v.endsWith("[trust-pure]"))).toBe(false);
  });

  it("trust-apart: readiness and rank never reach the trust grade", () => {
    const found = breaking({
      "lib/trust/engine/index.ts": `export const scoreSubject = 1;`,
      "lib/rank/score/compute.ts": `import { h } from "@/lib/scoring/signals"; import { scoreSubject } from "@/lib/trust/engine"; export const compute = { h, scoreSubject };`,
    });
    expect(found.filter((v) => v.endsWith("[trust-apart]")).map((v) => v.split(" (")[0])).toEqual([`lib/rank/score/compute.ts:1: imports "@/lib/trust/engine"`]);
  });

  it("rooms and room-map: an undeclared room, and an edge a room does not declare, both fail", () => {
    const found = breaking({
      "lib/newroom/a.ts": `export const a = 1;`,
      "lib/net/types.ts": `import { AppError } from "@/lib/errors"; export const e = AppError;`,
    });
    expect(found).toContain(`lib/newroom:0: is not a declared room: add it to ROOMS with what it owns and what it may import, and to docs/ARCHITECTURE.md "Rooms" [room-map]`);
    expect(found).toContain(`lib/newroom/a.ts:0: lies in no declared room: add its folder to ROOMS [room-map]`);
    expect(found).toContain(`lib/net/types.ts:1: imports "@/lib/errors" (lib/errors.ts), which room lib/net may not import (it may import: nothing of lib/) [rooms]`);
    expect(checkRoomMap([{ path: "lib/a", owns: "", may: ["lib/b/**"] }], ["lib/a"]).map(formatViolation)).toEqual([`lib/a:0: may import "lib/b/**", which is no declared room [room-map]`]);
  });
});

// ---------------------------------------------------------------------------------------------
// The standalone verifier (verifier/, docs/TRUST.md "Verifying a grade"): its own package
// ---------------------------------------------------------------------------------------------

/**
 * verifier/ imports only its own files, node built-ins and the packages its own package.json names;
 * nothing of the app imports it, bar tests (not scanned) and bench/ (which measures it).
 */
function verifierViolations(graph: Graph, dependencies: string[]): Violation[] {
  const out: Violation[] = [];
  for (const [file, node] of graph) {
    for (const e of node.imports) {
      const t = e.to;
      if (file.startsWith("verifier/")) {
        const ok = (t.kind === "repo" && t.path.startsWith("verifier/")) || t.kind === "node" || (t.kind === "npm" && dependencies.some((d) => t.name === d || t.name.startsWith(`${d}/`)));
        if (!ok) out.push({ rule: "verifier-standalone", file, line: e.line, message: `imports ${quote(e)} (${targetText(t)}): the verifier imports only verifier/, node built-ins and its package.json's dependencies (${dependencies.join(", ")})` });
      } else if (t.kind === "repo" && t.path.startsWith("verifier/") && !file.startsWith("bench/")) {
        out.push({ rule: "verifier-apart", file, line: e.line, message: `imports ${quote(e)} (${t.path}): nothing of the app imports the standalone verifier (tests and bench/ may)` });
      }
    }
  }
  return out;
}

function verifierSources(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = `${rel}/${d.name}`;
      if (d.isDirectory()) {
        if (d.name !== "node_modules") walk(p);
      } else if (/\.(tsx?|mjs|js)$/.test(d.name) && !d.name.endsWith(".d.ts")) out.set(p, fs.readFileSync(path.join(ROOT, p), "utf8"));
    }
  };
  walk("verifier");
  return out;
}

describe("the standalone verifier", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "verifier/package.json"), "utf8"));
  const dependencies = Object.keys(pkg.dependencies ?? {});

  it("is its own package (type module, a bin) and imports nothing of the app; nothing of the app imports it", () => {
    expect(pkg).toMatchObject({ name: "@tollgate/verifier", type: "module", bin: { "tollgate-verify": expect.any(String) } });
    expect(dependencies.sort()).toEqual(["tsx", "viem"]);
    const sources = new Map([...repoSources(), ...verifierSources()]);
    const graph = buildGraph(sources, isRepoFile);
    expect([...graph.keys()].filter((f) => f.startsWith("verifier/")).length).toBeGreaterThan(5);
    expect(verifierViolations(graph, dependencies).map(formatViolation)).toEqual([]);
  });

  it("fails on a verifier file reaching into the app, an undeclared package, and an app file importing the verifier", () => {
    const files: Record<string, string> = {
      "verifier/src/verify.ts": `import { x } from "./engine.ts"; import { keccak256 } from "viem"; import { createHash } from "node:crypto"; export const v = { x, keccak256, createHash };`,
      "verifier/src/engine.ts": `import { loadRubric } from "../../lib/trust/engine"; import { canonicalJson } from "@/lib/badges/canonical-json"; import Ajv from "ajv"; export const x = { loadRubric, canonicalJson, Ajv };`,
      "lib/catalog/trust.ts": `import { v } from "../../verifier/src/verify.ts"; export const t = v;`,
      "bench/verify.ts": `import { v } from "../verifier/src/verify.ts"; export const b = v;`,
    };
    const sources = new Map(Object.entries(files));
    const graph = buildGraph(sources, (p) => sources.has(p));
    expect(verifierViolations(graph, ["viem", "tsx"]).map((v) => `${v.file} ${v.rule} ${v.message.split(":")[0]}`)).toEqual([
      `verifier/src/engine.ts verifier-standalone imports "../../lib/trust/engine" (lib/trust/engine)`,
      `verifier/src/engine.ts verifier-standalone imports "@/lib/badges/canonical-json" (lib/badges/canonical-json)`,
      `verifier/src/engine.ts verifier-standalone imports "ajv" (npm`,
      `lib/catalog/trust.ts verifier-apart imports "../../verifier/src/verify.ts" (verifier/src/verify.ts)`,
    ]);
  });
});
