/**
 * The rules of the house, as data, checked over the code's real import graph (docs/ARCHITECTURE.md
 * "Rooms"): every lib/ room has a band and imports only lower bands and the rooms it names; the
 * folders beside lib/ import what AREAS says; RULES holds the named nevers. A failure names the file
 * and line, the import as written, what it resolved to and the rule; the second half breaks each rule
 * in a small in-memory graph, so a rule that could never fire fails too.
 */
import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { HEADER_LINES, MEASURED_DIRS, commentChars, headerLines, parse, sources } from "../scripts/measure-house";

// ---------------------------------------------------------------------------------------------
// The rules, as data
// ---------------------------------------------------------------------------------------------

/**
 * Target patterns: a repository glob ("lib/net/**", "lib/db.ts", "app/**\/route.ts"), an npm
 * package ("npm:pg" matches pg and pg/…, "npm:*" any package), a node built-in ("node:fs" matches
 * node:fs and node:fs/promises, "node:*" any), or "<computed>" for an import whose specifier is
 * not a literal (the checker cannot follow it).
 */
type Pattern = string;

/** The bands of lib/, lowest first. A room imports the rooms of lower bands, and beyond that only what it names. */
const BANDS = ["base", "store", "edge", "pure", "chain", "domain", "views", "run"] as const;
type Band = (typeof BANDS)[number];

interface Room {
  /** A folder or a top-level file under lib/ (the longest declared path holds a file). */
  path: string;
  band: Band;
  /** What it owns, in a line (docs/ARCHITECTURE.md "Rooms" is the same table). */
  owns: string;
  /** Imports beyond its band: rooms ("lib/auth") or files ("lib/x402/assets.ts") of its own band or above. */
  also?: Pattern[];
}

/** Every folder and top-level file of lib/, with its band: a new room is one line here and one row in docs/ARCHITECTURE.md. */
const ROOMS: Room[] = [
  { path: "lib/errors.ts", band: "base", owns: "AppError and the one map from error code to HTTP status" },
  { path: "lib/env.ts", band: "base", owns: "the validated environment" },
  { path: "lib/amounts.ts", band: "base", owns: "the amount shapes the database constraints accept" },
  { path: "lib/format.ts", band: "base", owns: "pure display helpers", also: ["lib/x402/assets.ts"] },
  { path: "lib/evidence.ts", band: "base", owns: "the probe evidence types" },
  { path: "lib/listing-document", band: "base", owns: "the listing document's types, its ajv validation and size limits" },
  { path: "lib/seller-schema.ts", band: "base", owns: "the one compiler for sellers' JSON Schemas: options, bounded cache, hostile schemas refused" },
  { path: "lib/read-cache.ts", band: "base", owns: "the read-through cache of rows per process and database, trusted for a TTL" },
  { path: "lib/scheduler.ts", band: "base", owns: "the one scheduler every room's ticks run in" },
  { path: "lib/generated", band: "store", owns: "the Prisma client prisma generate writes (not committed)" },
  { path: "lib/db.ts", band: "store", owns: "the one lazily opened database handle (PGlite or a server)", also: ["lib/generated"] },
  { path: "lib/sql.ts", band: "store", owns: "raw SQL helpers and the PrismaLike client type", also: ["lib/db.ts", "lib/generated"] },
  { path: "lib/migrate.ts", band: "store", owns: "the migrator and the app role's grants", also: ["lib/db.ts"] },
  { path: "lib/net", band: "edge", owns: "the only outbound HTTP: the SSRF guard, the target check, pinned connections, bounded reads" },
  { path: "lib/http.ts", band: "edge", owns: "bounded request bodies, body parsing into AppError 400s, the same-origin guard" },
  { path: "lib/security-headers.ts", band: "edge", owns: "the site's CSP and the headers every answer carries" },
  { path: "lib/action-body-guard.ts", band: "edge", owns: "server actions' bodies refused from their headers", also: ["lib/http.ts", "lib/security-headers.ts"] },
  { path: "lib/ops-wire.ts", band: "edge", owns: "the ops API's wire types, a leaf the API and the worker both import", also: ["lib/net/types.ts"] },
  { path: "lib/x402", band: "edge", owns: "x402 challenge and Bazaar parsing, the asset table, the EIP-3009 constants" },
  { path: "lib/mpp", band: "edge", owns: "MPP challenge parsing", also: ["lib/x402"] },
  { path: "lib/probe", band: "edge", owns: "probing a listing's endpoints into evidence", also: ["lib/net", "lib/x402", "lib/mpp"] },
  { path: "lib/discovery", band: "edge", owns: "drafting a listing document from a URL", also: ["lib/net", "lib/x402", "lib/mpp", "lib/probe/request.ts", "lib/probe/bounded.ts"] },
  { path: "lib/screen", band: "pure", owns: "the pattern screen and the secret-value detector" },
  { path: "lib/scoring", band: "pure", owns: "the readiness engine, its rubric data, advice and the shared rank signals", also: ["lib/screen/secrets.ts"] },
  { path: "lib/rank/score", band: "pure", owns: "the rank maths: components, compute, browse keys, select", also: ["lib/scoring"] },
  { path: "lib/trust", band: "pure", owns: "the trust grade: the observation contract, the hash-pinned rubric and the engine" },
  { path: "lib/chain", band: "chain", owns: "production chain code: the x402 facilitator and its send queue, the local network's facts, RPC reads where an outage is unmeasured" },
  { path: "lib/auth", band: "domain", owns: "sessions, roles read fresh, Sign-In with Ethereum" },
  { path: "lib/apikeys", band: "domain", owns: "API keys for the machine surfaces and their scopes", also: ["lib/auth"] },
  { path: "lib/limits", band: "domain", owns: "per-actor rate limits, the seller caps, the sweep of ended windows and spent nonces", also: ["lib/auth"] },
  { path: "lib/queue", band: "domain", owns: "the analysis queue: enqueueing, leases, the reaper, the staleness and rubric sweeps" },
  { path: "lib/facts", band: "domain", owns: "the one facts reader of the ledger, the monitor and the quotes" },
  { path: "lib/ledger", band: "domain", owns: "the ledger's writers, confirming relayed payments on chain, its audit and tick" },
  { path: "lib/trust/observe", band: "domain", owns: "the trust grade's observations: free and paid checks, revisions, the reader" },
  { path: "lib/badges", band: "domain", owns: "signed SVG badges: statements, DSSE, rendering, verification, keys", also: ["lib/listings/visibility.ts"] },
  { path: "lib/rank", band: "domain", owns: "rank inputs, the rank sweep and its ticks", also: ["lib/facts"] },
  { path: "lib/listings", band: "domain", owns: "saving (the one writer), publishing, access, overlap, lifecycle", also: ["lib/auth", "lib/limits", "lib/queue", "lib/rank/sweep-ranks.ts"] },
  { path: "lib/analyses", band: "domain", owns: "scoring and storing a result; the owner's re-analysis and progress", also: ["lib/auth", "lib/facts", "lib/limits", "lib/listings", "lib/queue", "lib/trust/observe"] },
  { path: "lib/intake", band: "domain", owns: "the one intake use case and its two doors (the form's draft, the API)", also: ["lib/analyses/progress.ts", "lib/auth", "lib/limits", "lib/listings", "lib/queue"] },
  { path: "lib/ops", band: "domain", owns: "the ops API: the worker's bearer check and one handler per route", also: ["lib/analyses", "lib/listings", "lib/queue"] },
  { path: "lib/health", band: "domain", owns: "the health sweep and its ticks", also: ["lib/facts", "lib/ledger", "lib/listings", "lib/trust/observe"] },
  { path: "lib/router", band: "domain", owns: "the paying relay: a buyer's call and payment forwarded, recorded and confirmed", also: ["lib/apikeys", "lib/ledger", "lib/listings/visibility.ts"] },
  { path: "lib/facilitator", band: "domain", owns: "who may use the built-in facilitator: callers, rate limits, daily gas, the bazaar receipts", also: ["lib/apikeys", "lib/intake", "lib/limits"] },
  { path: "lib/canary", band: "domain", owns: "the canary: paid runs through the router, samples, budget, verification", also: ["lib/ledger", "lib/rank", "lib/router", "lib/trust/observe", "lib/listings/visibility.ts", "lib/queue/config.ts"] },
  { path: "lib/attest", band: "domain", owns: "signed endpoint attestations, evidence bundles, the stored grades and their sweep", also: ["lib/badges", "lib/trust/observe", "lib/listings/visibility.ts"] },
  { path: "lib/moderation", band: "domain", owns: "the moderators' levers", also: ["lib/auth", "lib/canary", "lib/listings", "lib/rank"] },
  { path: "lib/catalog", band: "views", owns: "the public view and the catalog's read models" },
  { path: "lib/surfaces", band: "views", owns: "read models and server actions per surface", also: ["lib/catalog"] },
  { path: "lib/catalog-monitor", band: "run", owns: "the catalog-monitor: the worker loop and its probes, no database" },
  { path: "lib/jobs", band: "run", owns: "the processes' glue: which ticks the web process and the sweep workers run, the in-process worker", also: ["lib/catalog-monitor"] },
];

interface Area {
  /** A top-level folder outside lib/. */
  path: string;
  owns: string;
  /** What it may import besides itself, npm packages and node built-ins. */
  may: Pattern[];
  /** Other areas that may import it (so a new area opens itself in its own line). */
  usedBy?: string[];
}

/** The folders beside lib/: lib/ never imports any of them. Each may import itself, npm:* and node:* as well. */
const AREAS: Area[] = [
  // The dev chain reaches the app only through the demo faucet, which answers 404 outside demo mode (docs/CHAIN.md).
  { path: "app", owns: "routes only: pages, route handlers, layouts", may: ["lib/**", "components/**", "public/**", "devchain/faucet.ts", "devchain/local-chain.ts"] },
  { path: "components", owns: "presentation", may: ["lib/**", "public/**"] },
  { path: "sellers", owns: "the market's other side: fixture, paid and market sellers, the seed products", may: ["lib/**"] },
  { path: "test", owns: "the test rigs", may: ["lib/**", "app/**", "sellers/**"] },
  { path: "demo", owns: "the demo's seed and market", may: ["lib/**", "test/**", "sellers/**"] },
  { path: "scripts", owns: "the command lines", may: ["lib/**", "demo/**", "sellers/**"] },
  // verifier/: bench/verify.ts measures the standalone verifier ("the standalone verifier" below).
  // clients/: bench/guard.ts measures the buyer's guard ("the buyer's guard" below).
  { path: "bench", owns: "the benchmarks", may: ["lib/**", "test/**", "sellers/**", "verifier/**", "clients/**"] },
  { path: "clients", owns: "packages a buyer installs: the guard (clients/guard), each its own package importing nothing of the app", may: [] },
  { path: "devchain", owns: "the dev chain: anvil, the local chain's setup, the compiler, the test USDC, the stand-in, the faucet", may: ["lib/**"], usedBy: ["sellers", "test", "demo", "scripts", "bench"] },
];

/** The folders whose non-test sources make the graph (e2e/ is Playwright's, prisma/ holds no code). */
const SCANNED = ["lib", ...AREAS.map((a) => a.path)];

const roomGlob = (p: string) => (/\.tsx?$/.test(p) ? p : `${p}/**`);
const bandRooms = (band: Band) => ROOMS.filter((r) => r.band === band).map((r) => roomGlob(r.path));

/** Everything that holds or opens the database: the store band's rooms, the Prisma client, the drivers. */
const DATABASE: Pattern[] = [...bandRooms("store"), "npm:@prisma/client", "npm:@prisma/adapter-pg", "npm:pg", "npm:@electric-sql/pglite", "npm:pglite-prisma-adapter"];

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
const WORKER = ["lib/catalog-monitor/**"];
const NO_IO: Pattern[] = ["lib/net/**", "npm:undici", "npm:next", "npm:next-auth", "node:fs", "node:net", "node:http", "node:https", "node:dns", "node:tls", "node:child_process"];
/** Test rigs and sellers serve, and test the door: the outbound rule leaves them out. */
const SERVERS = ["test", "sellers"];

/** The named nevers and the areas' own rules; the bands are checked from ROOMS. */
const RULES: Rule[] = [
  {
    kind: "imports",
    id: "pure-maths",
    says:
      "lib/scoring and lib/rank/score are pure: they import only each other, lib/amounts.ts, lib/format.ts, " +
      "lib/listing-document, lib/evidence.ts, lib/screen/secrets.ts (E5's pure secret detector), node built-ins without I/O and zod/ajv",
    from: PURE_ROOMS,
    only: [...PURE_ROOMS, "lib/amounts.ts", "lib/format.ts", "lib/listing-document/**", "lib/evidence.ts", "lib/screen/secrets.ts", "node:crypto", "node:path", "node:util", "node:assert", "node:url", "node:buffer", "npm:zod", "npm:ajv", "npm:ajv-formats"],
  },
  {
    kind: "imports",
    id: "pure-maths-reach",
    says: "nothing the pure maths reaches touches the database, the network, the file system or Next",
    from: PURE_ROOMS,
    never: [...DATABASE, ...NO_IO],
    transitive: true,
  },
  {
    kind: "imports",
    id: "worker-no-database",
    says:
      "the catalog-monitor (lib/catalog-monitor) holds no database credentials: nothing it reaches imports the database, " +
      "lib/queue, lib/analyses, lib/facts, lib/rank, lib/listings or the ops handlers; it talks through lib/ops-wire.ts",
    from: WORKER,
    never: [...DATABASE, "lib/queue/**", "lib/analyses/**", "lib/facts/**", "lib/rank/**", "lib/listings/**", "lib/ops/**"],
    transitive: true,
  },
  {
    kind: "imports",
    id: "one-outbound-door",
    says: "undici is lib/net's: outbound HTTP goes through lib/net (safeFetch) and its SSRF guard",
    from: SCANNED.filter((d) => !SERVERS.includes(d)).map((d) => `${d}/**`),
    unless: ["lib/net/**"],
    never: ["npm:undici"],
  },
  {
    kind: "outbound",
    id: "one-outbound-door",
    says: "lib/net is the only outbound door: no global fetch and no node:http/https request or get outside it",
    from: SCANNED.filter((d) => !SERVERS.includes(d)).map((d) => `${d}/**`),
    unless: ["lib/net/**"],
    clientSameOrigin: ["app/**", "components/**"],
    except: {
      "lib/catalog-monitor/run-worker.ts": "httpOpsClient talks to our own ops API (TOLLGATE_API_URL, bearer token), never to a stranger's URL",
      "scripts/demo.ts": "waits for the demo server it started to answer on its own URL",
      "demo/market.ts": "the market's buyers call the demo's own router (the routerOrigin it is given), as any buyer's agent would",
      "clients/guard/src/guard.ts": "the guard runs in the buyer's process and asks the Tollgate origin the buyer configured, with the buyer's fetch when given",
      "bench/badge.ts": "drives the badge stand-in server it forked on 127.0.0.1",
      "bench/router.ts": "is the buyer (@x402/fetch) of the paid seller it forked and the router it serves, both on 127.0.0.1",
      "bench/listed.ts": "is the buyer (@x402/fetch) of the paid seller it serves on 127.0.0.1, which settles through the facilitator routes it also serves there",
      "bench/canary.ts": "is the bare buyer (@x402/fetch) of the router it serves on 127.0.0.1, beside the canary it measures",
      "bench/load.ts": "is the many buyers of the production server it started on 127.0.0.1 (its own origin, never a stranger's URL)",
      "bench/probe.ts": "is the bare client, the probe's measured floor, of the fixture server it forked on 127.0.0.1",
      "bench/select/buyers.ts": "is bench:select's buyers (@x402/fetch) paying through the router it serves on 127.0.0.1",
      "devchain/anvil.ts": "asks the anvil node it started on 127.0.0.1 whether its RPC answers yet",
    },
  },
  {
    kind: "imports",
    id: "lib-below-the-rest",
    says: `lib/ is the domain: it never imports ${AREAS.map((a) => `${a.path}/`).join(", ")} or e2e/`,
    from: ["lib/**"],
    never: [...AREAS.map((a) => `${a.path}/**`), "e2e/**"],
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
    id: "devchain-no-database",
    says: "devchain/ is the dev chain: it imports lib/ helpers and types, never the database",
    from: ["devchain/**"],
    never: DATABASE,
  },
  {
    kind: "imports",
    id: "sellers-no-database",
    says: "sellers/ are the market's servers: they import lib/ types and helpers, never the database",
    from: ["sellers/**"],
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
    never: [...DATABASE, "lib/trust/observe/**", ...NO_IO],
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

/** A room's `also` entry names a room ("lib/auth": all of it), a file, or a glob. */
const names = (entry: Pattern, p: string) => p === entry || p.startsWith(`${entry}/`) || globMatch(entry, p);
const rank = (b: Band) => BANDS.indexOf(b);

/** The room table's own consistency: every lib/ entry is a room, and every `also` reaches beyond its band to a declared room. */
function checkRoomMap(rooms: Room[], libEntries: string[]): Violation[] {
  const out: Violation[] = [];
  const declared = new Set(rooms.map((r) => r.path));
  for (const entry of libEntries) {
    if (!declared.has(entry)) {
      out.push({ rule: "room-map", file: entry, line: 0, message: 'is not a declared room: add it to ROOMS with its band and what it owns, and a row to docs/ARCHITECTURE.md "Rooms"' });
    }
  }
  for (const r of rooms) {
    if (!BANDS.includes(r.band)) out.push({ rule: "room-map", file: r.path, line: 0, message: `has band "${r.band}", which is none of ${BANDS.join(", ")}` });
    for (const a of r.also ?? []) {
      const target = roomOf(rooms, a.replace(/\/\*\*$/, ""));
      if (!target) out.push({ rule: "room-map", file: r.path, line: 0, message: `names "${a}", which is no declared room` });
      else if (target === r) out.push({ rule: "room-map", file: r.path, line: 0, message: `names "${a}", its own room` });
      else if (rank(target.band) < rank(r.band)) out.push({ rule: "room-map", file: r.path, line: 0, message: `names "${a}" of band ${target.band}, below its own (${r.band}): a lower band needs no naming` });
    }
  }
  return out;
}

/** The one band rule: lib/ → lib/ edges go to a lower band, or to what the importing room names. */
function checkBands(graph: Graph, rooms: Room[]): Violation[] {
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
      const target = roomOf(rooms, e.to.path);
      if (!target || target === room || rank(target.band) < rank(room.band)) continue;
      if ((room.also ?? []).some((a) => names(a, (e.to as { path: string }).path))) continue;
      const lower = BANDS.slice(0, rank(room.band));
      out.push({
        rule: "bands",
        file,
        line: e.line,
        message:
          `imports ${quote(e)} (${e.to.path}, room ${target.path}, band ${target.band}): room ${room.path} (band ${room.band}) imports only lower bands ` +
          `(${lower.join(", ") || "none"}) and what it names (${(room.also ?? []).join(", ") || "nothing"})`,
      });
    }
  }
  return out;
}

/** Every `also` a room names is an import it makes (a name no edge needs is dropped). */
function unusedAlso(graph: Graph, rooms: Room[]): Violation[] {
  const used = new Set<string>();
  for (const [file, node] of graph) {
    const room = file.startsWith("lib/") ? roomOf(rooms, file) : undefined;
    if (!room) continue;
    for (const e of node.imports) {
      if (e.to.kind !== "repo") continue;
      for (const a of room.also ?? []) if (names(a, e.to.path)) used.add(`${room.path} ${a}`);
    }
  }
  return rooms.flatMap((r) =>
    (r.also ?? []).filter((a) => !used.has(`${r.path} ${a}`)).map((a) => ({ rule: "room-map", file: r.path, line: 0, message: `names "${a}", which none of its files imports` })),
  );
}

/** The folders beside lib/: each imports itself, npm packages, node built-ins, what it may, and the areas that name it in usedBy. */
function checkAreas(graph: Graph, areas: Area[]): Violation[] {
  const out: Violation[] = [];
  const areaOf = (p: string) => areas.find((a) => p.startsWith(`${a.path}/`));
  for (const [file, node] of graph) {
    const area = areaOf(file);
    if (!area) continue;
    for (const e of node.imports) {
      if (e.to.kind === "npm" || e.to.kind === "node") continue;
      if (e.to.kind === "repo") {
        const p = e.to.path;
        if (p.startsWith(`${area.path}/`) || area.may.some((m) => globMatch(m, p)) || areaOf(p)?.usedBy?.includes(area.path)) continue;
      }
      out.push({
        rule: "areas",
        file,
        line: e.line,
        message: `imports ${quote(e)} (${targetText(e.to)}): ${area.path}/ (${area.owns}) imports only itself, npm packages, node built-ins and ${area.may.join(", ") || "nothing else"}`,
      });
    }
  }
  return out;
}

function check(graph: Graph, rooms: Room[], rules: Rule[], libEntries: string[], areas: Area[] = AREAS): Violation[] {
  const out = [...checkRoomMap(rooms, libEntries), ...checkBands(graph, rooms), ...checkAreas(graph, areas)];
  for (const rule of rules) out.push(...(rule.kind === "imports" ? checkImportRule(graph, rule) : checkOutboundRule(graph, rule)));
  return out;
}

/** The rooms table of docs/ARCHITECTURE.md: `| \`room\` | band | owns | imports beyond its band |`. */
function docsRooms(markdown: string): Map<string, { band: string; also: string[] }> {
  const out = new Map<string, { band: string; also: string[] }>();
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Rooms")) ?? "";
  for (const line of section.split("\n")) {
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    const room = /^`(lib\/[^`]+)`$/.exec(cells[0] ?? "");
    if (cells.length !== 4 || !room) continue;
    out.set(room[1], { band: cells[1], also: [...cells[3].matchAll(/`([^`]+)`/g)].map((m) => m[1]) });
  }
  return out;
}

/** Where docs/ARCHITECTURE.md's table and ROOMS differ: a room missing on either side, another band, other names. */
function docsDrift(rooms: Room[], docs: Map<string, { band: string; also: string[] }>): string[] {
  const out: string[] = [];
  for (const r of rooms) {
    const d = docs.get(r.path);
    if (!d) out.push(`${r.path}: no row in docs/ARCHITECTURE.md "Rooms"`);
    else {
      if (d.band !== r.band) out.push(`${r.path}: band ${r.band} here, ${d.band} in docs/ARCHITECTURE.md`);
      const here = [...(r.also ?? [])].sort().join(", ");
      const there = [...d.also].sort().join(", ");
      if (here !== there) out.push(`${r.path}: names ${here || "nothing"} here, ${there || "nothing"} in docs/ARCHITECTURE.md`);
    }
  }
  for (const p of docs.keys()) if (!rooms.some((r) => r.path === p)) out.push(`${p}: a row in docs/ARCHITECTURE.md but no room`);
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

  it("needs every name a room lists beyond its band", () => {
    expect(unusedAlso(graph, ROOMS).map(formatViolation)).toEqual([]);
  });

  it("is the table docs/ARCHITECTURE.md shows (room, band, imports beyond its band)", () => {
    expect(docsDrift(ROOMS, docsRooms(fs.readFileSync(path.join(ROOT, "docs/ARCHITECTURE.md"), "utf8")))).toEqual([]);
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
  "lib/ops-wire.ts": `import type { Evidence } from "@/lib/evidence"; export type Lease = { evidence: Evidence };`,
  "lib/ops/handlers.ts": `import { rows } from "@/lib/sql"; import type { Lease } from "@/lib/ops-wire"; export const claim = rows;`,
  "lib/catalog-monitor/probes.ts": `import { probe } from "@/lib/probe"; import { draft } from "@/lib/discovery/import"; import type { Lease } from "@/lib/ops-wire"; export const p = { probe, draft };`,
  "lib/catalog-monitor/run-worker.ts": `import { p } from "./probes"; export interface O { fetch?: typeof fetch } export const client = (o: O) => o.fetch ?? fetch;`,
  "lib/catalog/browse.ts": `import { db } from "@/lib/db"; import { compute } from "@/lib/rank/score/compute"; export const browse = { db, compute };`,
  "app/catalog/page.tsx": `import { browse } from "@/lib/catalog/browse"; import { Tile } from "@/components/tile"; export default function P() { return null; }`,
  "app/api/x/route.ts": `import { AppError } from "@/lib/errors"; export const GET = () => new AppError();`,
  "components/tile.tsx": `"use client"; import type { Evidence } from "@/lib/evidence"; export function Tile() { void fetch("/api/analyses/" + 1); void fetch(\`/api/listings/\${2}\`); return null; }`,
  "sellers/server.ts": `import { createServer, request } from "node:http"; import type { ListingDocument } from "@/lib/listing-document/document"; export const s = createServer; void fetch("http://127.0.0.1");`,
  "test/db.ts": `import { db } from "@/lib/db"; import { GET } from "@/app/api/x/route"; export const t = { db, GET };`,
  "demo/seed.ts": `import { db } from "@/lib/db"; import { t } from "@/test/db"; import { s } from "@/sellers/server"; export const seed = { db, t, s };`,
  "scripts/demo.ts": `import { seed } from "@/demo/seed"; async function wait(u: string) { await fetch(u); } void wait; void seed;`,
};

function ruleSays(id: string, kind: Rule["kind"] = "imports"): string {
  return RULES.find((r) => r.id === id && r.kind === kind)!.says;
}

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
    expect(direct).toContain(`lib/scoring/readiness/cli.ts:1: imports "node:fs" (node:fs), outside what it may import: ${ruleSays("pure-maths")} [pure-maths]`);
    expect(direct.some((v) => v.startsWith(`lib/scoring/readiness/cli.ts:1: imports "@/lib/db" (lib/db.ts)`) && v.endsWith("[pure-maths]"))).toBe(true);
    expect(direct.some((v) => v.startsWith(`lib/scoring/readiness/cli.ts:1: imports "node:fs" (node:fs):`) && v.endsWith("[pure-maths-reach]"))).toBe(true);

    const reached = breaking({ "lib/listing-document/document.ts": `import { rows } from "@/lib/sql"; export type ListingDocument = { name: string }; export const r = rows;` });
    expect(reached).toContain(
      `lib/listing-document/document.ts:1: imports "@/lib/sql" (lib/sql.ts) (reached from lib/scoring/readiness/engine.ts → lib/listing-document/document.ts): ` +
        `${ruleSays("pure-maths-reach")} [pure-maths-reach]`,
    );
    expect(reached.some((v) => v.endsWith("[bands]") && v.startsWith("lib/listing-document/document.ts:1"))).toBe(true);
  });

  it("worker-no-database: the catalog-monitor reaches no database, queue, analyses, facts, rank, listings or ops handlers", () => {
    const direct = breaking({ "lib/catalog-monitor/lease.ts": `import { claim } from "@/lib/ops/handlers"; import { x } from "@/lib/queue/lease"; export const l = { claim, x };`, "lib/queue/lease.ts": `export const x = 1;` });
    expect(direct.filter((v) => v.endsWith("[worker-no-database]"))).toEqual([
      `lib/catalog-monitor/lease.ts:1: imports "@/lib/ops/handlers" (lib/ops/handlers.ts): ${ruleSays("worker-no-database")} [worker-no-database]`,
      `lib/catalog-monitor/lease.ts:1: imports "@/lib/queue/lease" (lib/queue/lease.ts): ${ruleSays("worker-no-database")} [worker-no-database]`,
    ]);
    const reached = breaking({ "lib/discovery/import.ts": `import { safeFetch } from "@/lib/net"; import type { PrismaClient } from "@/lib/generated/prisma/client"; export const draft = safeFetch;` });
    expect(reached.some((v) => v.startsWith(`lib/discovery/import.ts:1: imports "@/lib/generated/prisma/client" (lib/generated/prisma/client) (reached from lib/catalog-monitor/probes.ts → lib/discovery/import.ts)`) && v.endsWith("[worker-no-database]"))).toBe(true);
  });

  it("one-outbound-door: no undici, global fetch or node:http client outside lib/net, bar the listed exceptions", () => {
    const found = breaking({
      "lib/catalog/feeds.ts": `export const get = (u: string) => fetch(u);`,
      "lib/badges/fetch-keys.ts": `import { request } from "undici"; export const r = request;`,
      "lib/catalog-monitor/helper.ts": `export const f = () => globalThis.fetch("https://stranger.example");`,
      "components/evil.tsx": `"use client"; export const x = () => fetch("https://stranger.example/api");`,
      "components/server.tsx": `export const x = () => fetch("/api/x");`,
      "app/api/y/route.ts": `import * as http from "node:https"; export const GET = () => http.get("https://x");`,
      "bench/score.ts": `import { request as r } from "node:http"; export const b = r;`,
    });
    const door = found.filter((v) => v.endsWith("[one-outbound-door]"));
    expect(door.map((v) => v.split(":").slice(0, 2).join(":"))).toEqual([
      "lib/badges/fetch-keys.ts:1",
      "lib/catalog/feeds.ts:1",
      "lib/catalog-monitor/helper.ts:1",
      "components/evil.tsx:1",
      "components/server.tsx:1",
      "app/api/y/route.ts:1",
      "bench/score.ts:1",
    ]);
    expect(door).toContain(`lib/catalog/feeds.ts:1: uses fetch(…): ${ruleSays("one-outbound-door", "outbound")} [one-outbound-door]`);
    expect(door).toContain(`app/api/y/route.ts:1: uses http.get (node:http/https): ${ruleSays("one-outbound-door", "outbound")} [one-outbound-door]`);
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
    expect(found.some((v) => v.startsWith("lib/x402/deep.ts:1") && v.endsWith("[bands]"))).toBe(true);
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
    expect(rulesHit("sellers/db.ts")).toEqual(["[sellers-no-database]"]);
    expect(rulesHit("demo/page.ts")).toEqual(["[areas]"]);
    expect(rulesHit("scripts/bench.ts")).toEqual(["[areas]"]);
    expect(rulesHit("bench/x.ts")).toEqual(["[areas]"]);
    expect(rulesHit("test/x.ts")).toEqual(["[areas]"]);
    expect(rulesHit("app/x/page.tsx")).toEqual(["[areas]"]);
    expect(rulesHit("components/x.tsx")).toEqual(["[areas]"]);
    expect(rulesHit("lib/catalog/dyn.ts")).toEqual(["[no-computed-imports]"]);
    expect(found).toContain(`sellers/db.ts:1: imports "../lib/db" (lib/db.ts): ${ruleSays("sellers-no-database")} [sellers-no-database]`);
    expect(found).toContain(`demo/page.ts:1: imports "@/app/catalog/page" (app/catalog/page.tsx): demo/ (the demo's seed and market) imports only itself, npm packages, node built-ins and lib/**, test/**, sellers/** [areas]`);
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

  it("bands and room-map: an undeclared room, an import up a band or across one unnamed, and a stray name all fail", () => {
    const found = breaking({
      "lib/newroom/a.ts": `export const a = 1;`,
      "lib/net/types.ts": `import { AppError } from "@/lib/errors"; export const e = AppError;`,
      "lib/net/probe-back.ts": `import { probe } from "@/lib/probe"; export const p = probe;`,
      "lib/scoring/queue.ts": `import { claim } from "@/lib/ops/handlers"; export const q = claim;`,
      "lib/catalog/ops.ts": `import { claim } from "@/lib/ops/handlers"; export const q = claim;`,
      "lib/rank/score/named.ts": `import { h } from "@/lib/scoring/signals"; export const n = h;`,
    });
    expect(found).toContain(`lib/newroom:0: is not a declared room: add it to ROOMS with its band and what it owns, and a row to docs/ARCHITECTURE.md "Rooms" [room-map]`);
    expect(found).toContain(`lib/newroom/a.ts:0: lies in no declared room: add its folder to ROOMS [room-map]`);
    // lib/net (edge) may use the base band; lib/rank/score names lib/scoring; lib/catalog (views) sits above lib/ops (domain).
    for (const ok of ["lib/net/types.ts", "lib/rank/score/named.ts", "lib/catalog/ops.ts"]) expect(found.filter((v) => v.startsWith(`${ok}:`))).toEqual([]);
    expect(found).toContain(
      `lib/net/probe-back.ts:1: imports "@/lib/probe" (lib/probe/index.ts, room lib/probe, band edge): room lib/net (band edge) imports only lower bands (base, store) and what it names (nothing) [bands]`,
    );
    expect(found.some((v) => v.startsWith(`lib/scoring/queue.ts:1: imports "@/lib/ops/handlers" (lib/ops/handlers.ts, room lib/ops, band domain): room lib/scoring (band pure)`) && v.endsWith("[bands]"))).toBe(true);

    const rooms: Room[] = [
      { path: "lib/a", band: "domain", owns: "", also: ["lib/b", "lib/c", "lib/a/x.ts"] },
      { path: "lib/c", band: "base", owns: "" },
      { path: "lib/d", band: "attic" as Band, owns: "" },
    ];
    expect(checkRoomMap(rooms, ["lib/a", "lib/c", "lib/d"]).map(formatViolation)).toEqual([
      `lib/a:0: names "lib/b", which is no declared room [room-map]`,
      `lib/a:0: names "lib/c" of band base, below its own (domain): a lower band needs no naming [room-map]`,
      `lib/a:0: names "lib/a/x.ts", its own room [room-map]`,
      `lib/d:0: has band "attic", which is none of ${BANDS.join(", ")} [room-map]`,
    ]);
  });

  it("a name beyond the band that no import needs is reported", () => {
    const sources = new Map(Object.entries({ ...CLEAN }));
    const graph = buildGraph(sources, (p) => sources.has(p));
    const rooms = ROOMS.map((r) => (r.path === "lib/mpp" ? { ...r, also: ["lib/x402"] } : r));
    expect(unusedAlso(graph, rooms).map(formatViolation)).toContain(`lib/mpp:0: names "lib/x402", which none of its files imports [room-map]`);
  });

  it("areas: a new folder beside lib/ is one line, opened to others by usedBy; lib/ never imports it", () => {
    const areas: Area[] = [...AREAS, { path: "devtools", owns: "a dev tool", may: ["lib/**"], usedBy: ["scripts"] }];
    const files = { ...CLEAN, "devtools/tool.ts": `import { AppError } from "@/lib/errors"; export const t = AppError;`, "scripts/tool.ts": `import { t } from "@/devtools/tool"; export const u = t;`, "bench/tool.ts": `import { t } from "@/devtools/tool"; export const u = t;` };
    const sources = new Map(Object.entries(files));
    const graph = buildGraph(sources, (p) => sources.has(p));
    const found = check(graph, ROOMS, RULES, libEntriesOf([...sources.keys()]), areas).map(formatViolation);
    expect(found.filter((v) => v.endsWith("[areas]")).map((v) => v.split(" (")[0])).toEqual([`bench/tool.ts:1: imports "@/devtools/tool"`]);
  });

  it("docs/ARCHITECTURE.md's rooms table is read, and a drift from ROOMS is named", () => {
    const md = [
      "## Rooms",
      "",
      "| room | band | owns | imports beyond its band |",
      "|---|---|---|---|",
      "| `lib/a` | domain | a | `lib/b` |",
      "| `lib/c` | base | c | — |",
      "| `lib/e` | run | e | — |",
      "",
      "## Decisions",
      "| `lib/z` | base | not the rooms table | — |",
    ].join("\n");
    const docs = docsRooms(md);
    expect([...docs.keys()]).toEqual(["lib/a", "lib/c", "lib/e"]);
    const rooms: Room[] = [
      { path: "lib/a", band: "domain", owns: "", also: ["lib/b", "lib/c/x.ts"] },
      { path: "lib/c", band: "store", owns: "" },
    ];
    expect(docsDrift(rooms, docs)).toEqual([
      "lib/a: names lib/b, lib/c/x.ts here, lib/b in docs/ARCHITECTURE.md",
      "lib/c: band store here, base in docs/ARCHITECTURE.md",
      "lib/e: a row in docs/ARCHITECTURE.md but no room",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// raw-sql-one-door: Prisma's unsafe raw calls only in lib/sql.ts (tests included; a text check)
// ---------------------------------------------------------------------------------------------

const RAW_SQL_DOOR = ["lib/sql.ts"];
const UNSAFE_RAW = /\$(query|execute)RawUnsafe\b/;

function rawSqlOutsideDoor(files: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    if (RAW_SQL_DOOR.includes(file)) continue;
    text.split("\n").forEach((line, i) => {
      if (UNSAFE_RAW.test(line)) out.push(`${file}:${i + 1}: raw SQL outside lib/sql.ts: use rows(), exec() or rowsWithSettings() [raw-sql-one-door]`);
    });
  }
  return out;
}

function everySource(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    if (!fs.existsSync(path.join(ROOT, rel))) return;
    for (const d of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = `${rel}/${d.name}`;
      if (d.isDirectory()) {
        if (d.name !== "node_modules" && p !== "lib/generated") walk(p);
      } else if (/\.tsx?$/.test(d.name) && !d.name.endsWith(".d.ts")) out.set(p, fs.readFileSync(path.join(ROOT, p), "utf8"));
    }
  };
  for (const dir of [...SCANNED, "e2e"]) walk(dir);
  return out;
}

describe("raw-sql-one-door", () => {
  it("no file but lib/sql.ts calls Prisma's unsafe raw queries, tests included", () => {
    const files = everySource();
    expect(files.has("lib/sql.ts") && UNSAFE_RAW.test(files.get("lib/sql.ts")!)).toBe(true);
    expect(rawSqlOutsideDoor(files)).toEqual([]);
  });

  it("fires on a call anywhere else, and not on lib/sql.ts", () => {
    const call = (kind: string) => `await prisma.$${kind}RawUnsafe("SELECT 1");`;
    const fake = new Map([
      ["lib/sql.ts", call("query")],
      ["lib/catalog/x.ts", `export async function f() {\n  ${call("execute")}\n}`],
      ["lib/queue/x.test.ts", call("query")],
      ["lib/catalog/y.ts", `import { rows } from "@/lib/sql"; export const g = () => rows(c, "SELECT 1");`],
    ]);
    expect(rawSqlOutsideDoor(fake).map((v) => v.split(" raw")[0])).toEqual(["lib/catalog/x.ts:2:", "lib/queue/x.test.ts:1:"]);
  });
});

describe("the dev chain", () => {
  it("lib/ never imports devchain/, app/ only the demo faucet's two files, devchain/ never the database", () => {
    const found = breaking({
      "lib/chain/facilitator.ts": `import { TEST_USDC_ABI } from "@/devchain/test-usdc"; export const a = TEST_USDC_ABI;`,
      "app/api/x/route.ts": `import { startAnvil } from "@/devchain/anvil"; export const GET = startAnvil;`,
      "app/api/faucet/route.ts": `import { faucetFund } from "@/devchain/faucet"; export const POST = faucetFund;`,
      "devchain/faucet.ts": `import { db } from "@/lib/db"; export const faucetFund = db;`,
    });
    expect(found.filter((v) => v.endsWith("[lib-below-the-rest]")).map((v) => v.split(" (")[0])).toEqual([`lib/chain/facilitator.ts:1: imports "@/devchain/test-usdc"`]);
    expect(found.filter((v) => v.endsWith("[areas]")).map((v) => v.split(" (")[0])).toEqual([`app/api/x/route.ts:1: imports "@/devchain/anvil"`]);
    expect(found.filter((v) => v.endsWith("[devchain-no-database]")).map((v) => v.split(" (")[0])).toEqual([`devchain/faucet.ts:1: imports "@/lib/db"`]);
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

// ---------------------------------------------------------------------------------------------
// The buyer's guard (clients/guard, docs/ATTESTATIONS.md "The guard"): its own package
// ---------------------------------------------------------------------------------------------

/** clients/ imports only its own package's files, node built-ins and the package's peer dependencies; nothing of the app imports it (bench/ may). */
function guardViolations(graph: Graph, dependencies: string[]): Violation[] {
  const out: Violation[] = [];
  for (const [file, node] of graph) {
    for (const e of node.imports) {
      const t = e.to;
      if (file.startsWith("clients/guard/")) {
        const ok = (t.kind === "repo" && t.path.startsWith("clients/guard/")) || t.kind === "node" || (t.kind === "npm" && dependencies.some((d) => t.name === d || t.name.startsWith(`${d}/`)));
        if (!ok) out.push({ rule: "guard-standalone", file, line: e.line, message: `imports ${quote(e)} (${targetText(t)}): the guard imports only clients/guard/, node built-ins and its peer dependencies (${dependencies.join(", ")})` });
      } else if (t.kind === "repo" && t.path.startsWith("clients/") && !file.startsWith("bench/")) {
        out.push({ rule: "guard-apart", file, line: e.line, message: `imports ${quote(e)} (${t.path}): nothing of the app imports the buyer's guard (tests and bench/ may)` });
      }
    }
  }
  return out;
}

describe("the buyer's guard", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "clients/guard/package.json"), "utf8"));
  const peers = Object.keys(pkg.peerDependencies ?? {});

  it("is its own package and imports nothing of the app; nothing of the app imports it", () => {
    expect(pkg).toMatchObject({ name: "@tollgate/guard", type: "module" });
    expect(pkg.dependencies ?? {}).toEqual({});
    const graph = buildGraph(repoSources(), isRepoFile);
    expect([...graph.keys()].filter((f) => f.startsWith("clients/guard/")).length).toBeGreaterThan(2);
    expect(guardViolations(graph, peers).map(formatViolation)).toEqual([]);
  });

  it("fails on a guard file reaching into the app or an undeclared package, and on an app file importing the guard", () => {
    const files: Record<string, string> = {
      "clients/guard/src/guard.ts": `import { x } from "./attestation.ts"; import type { PaymentRequirements } from "@x402/core/types"; import { verify } from "node:crypto"; export const g = { x, verify };`,
      "clients/guard/src/attestation.ts": `import { verifyAttestation } from "@/lib/attest/attestation"; import { keccak256 } from "viem"; export const x = { verifyAttestation, keccak256 };`,
      "app/mcp/preflight-tool.ts": `import { g } from "../../clients/guard/src/guard.ts"; export const t = g;`,
      "bench/guard.ts": `import { g } from "../clients/guard/src/guard.ts"; export const b = g;`,
    };
    const sources = new Map(Object.entries(files));
    const graph = buildGraph(sources, (p) => sources.has(p));
    expect(guardViolations(graph, ["@x402/core", "mppx"]).map((v) => `${v.file} ${v.rule} ${v.message.split(":")[0]}`)).toEqual([
      `clients/guard/src/attestation.ts guard-standalone imports "@/lib/attest/attestation" (lib/attest/attestation)`,
      `clients/guard/src/attestation.ts guard-standalone imports "viem" (npm`,
      `app/mcp/preflight-tool.ts guard-apart imports "../../clients/guard/src/guard.ts" (clients/guard/src/guard.ts)`,
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// client-no-database: a "use client" file is bundled for the browser; nothing it reaches may open
// the database (the bundler fails on pg's node built-ins, and a secret-bearing module must not ship)
// ---------------------------------------------------------------------------------------------

/** A "use server" module reached from a client file is a server-action reference, not bundled: the walk stops there. */
const USE_SERVER = /^(\s*(\/\/[^\n]*|\/\*[\s\S]*?\*\/))*\s*["']use server["']/;

function clientReachesDatabase(graph: Graph, sources: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, node] of graph) {
    if (!node.useClient) continue;
    const seen = new Set<string>([file]);
    const queue: Array<{ at: string; via: string[] }> = [{ at: file, via: [file] }];
    while (queue.length > 0) {
      const { at, via } = queue.shift()!;
      const lines = (sources.get(at) ?? "").split("\n");
      for (const e of graph.get(at)?.imports ?? []) {
        // A type-only import is erased before bundling.
        if (/^\s*(import|export) type\b/.test(lines[e.line - 1] ?? "")) continue;
        if (DATABASE.some((p) => matches(p, e.to))) {
          out.push(`${file}: reaches ${targetText(e.to)} through ${via.join(" → ")} [client-no-database]`);
          continue;
        }
        if (e.to.kind === "repo" && !seen.has(e.to.path) && graph.has(e.to.path) && !USE_SERVER.test(sources.get(e.to.path) ?? "")) {
          seen.add(e.to.path);
          queue.push({ at: e.to.path, via: [...via, e.to.path] });
        }
      }
    }
  }
  return out;
}

describe("client-no-database", () => {
  it("no \"use client\" file reaches the database, through any import", () => {
    const sources = repoSources();
    const graph = buildGraph(sources, isRepoFile);
    expect([...graph.values()].filter((n) => n.useClient).length).toBeGreaterThan(5);
    expect(clientReachesDatabase(graph, sources)).toEqual([]);
  });

  it("fires on a client component reaching lib/sql.ts two files away", () => {
    const files: Record<string, string> = {
      "components/x.tsx": `"use client";\nimport { W } from "@/lib/listings/words"; export const X = W;`,
      "lib/listings/words.ts": `import { rows } from "@/lib/sql"; export const W = rows;`,
      "lib/sql.ts": `export const rows = 1;`,
      "components/y.tsx": `import { rows } from "@/lib/sql"; export const Y = rows;`,
      "components/t.tsx": `"use client";\nimport type { Rows } from "@/lib/sql";\nexport type T = Rows;`,
      "components/z.tsx": `"use client";\nimport { act } from "@/lib/surfaces/actions"; export const Z = act;`,
      "lib/surfaces/actions.ts": `/** actions */\n"use server";\nimport { rows } from "@/lib/sql"; export const act = rows;`,
    };
    const sources = new Map(Object.entries(files));
    const graph = buildGraph(sources, (p) => sources.has(p));
    expect(clientReachesDatabase(graph, sources)).toEqual([`components/x.tsx: reaches lib/sql.ts through components/x.tsx → lib/listings/words.ts [client-no-database]`]);
  });
});

describe("less prose", () => {
  const ISSUE_IN_COMMENT = /(\/\/|\*).*(\bissue #?\d+\b|(?<![\w&/])#\d{2,3}\b(?!\w))/i;
  const generated = (text: string) => /Do not edit by hand/.test(text.slice(0, 400));

  it("every file header in lib/, app/ and components/ is at most six lines (a generated file keeps its licence)", () => {
    const long: string[] = [];
    for (const dir of MEASURED_DIRS) {
      for (const file of sources(dir)) {
        const sf = parse(file);
        if (!generated(sf.getFullText()) && headerLines(sf) > HEADER_LINES) long.push(`${file}: ${headerLines(sf)} lines`);
      }
    }
    expect(long).toEqual([]);
  });

  it("comments are under 10 % of the characters of lib/, app/ and components/ (npm run measure:house)", () => {
    let total = 0;
    let comments = 0;
    for (const dir of MEASURED_DIRS) {
      for (const file of sources(dir)) {
        const sf = parse(file);
        total += sf.getFullText().length;
        comments += commentChars(sf);
      }
    }
    expect(comments / total).toBeLessThan(0.1);
  });

  it("headerLines counts the comments before the first statement, after a directive too", () => {
    const sf = (text: string) => ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true);
    expect(headerLines(sf(`/**\n * one\n * two\n */\nexport const a = 1;\n// not the header\n`))).toBe(4);
    expect(headerLines(sf(`"use client";\nexport const a = 1;\n`))).toBe(0);
    expect(headerLines(sf(`// a\n// b\n\n/** c */\nimport x from "y";\n`))).toBe(3);
  });

  it("no issue numbers in code comments (the why lives in docs/, the history in git)", () => {
    const found: string[] = [];
    for (const dir of MEASURED_DIRS) {
      for (const file of sources(dir)) {
        const text = fs.readFileSync(path.join(process.cwd(), file), "utf8");
        text.split("\n").forEach((line, i) => {
          if (ISSUE_IN_COMMENT.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(found).toEqual([]);
    for (const hit of ["// see #32", " * (issue 29 item 5)", "/** the #20 fix */"]) expect(ISSUE_IN_COMMENT.test(hit)).toBe(true);
    for (const miss of ['const color = "#fff";', "// prisma/orm#27403", "// H3 and S5", "// see docs/ROUTER.md#binding"]) expect(ISSUE_IN_COMMENT.test(miss)).toBe(false);
  });
});
