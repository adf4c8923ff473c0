/** The logic of `npm run badge:verify` (docs/BADGES.md "With the CLI"), I/O injected. Exit: 0 valid, 1 invalid, 2 usage, 3 superseded. */
import type { SafeFetchOptions, SafeFetchResult } from "../net";
import { WELL_KNOWN_KEYS_PATH, parsePublicKeySet, type PublicKeySet } from "./keys";
import { MAX_INPUT_BYTES, verifyBadge, type ResultStatusAnswer, type VerifyResult } from "./verify";

export const USAGE =
  "usage: npm run badge:verify -- <file.svg|envelope.json|url> [--keys <url|file>] [--base <catalog origin>] [--allow-host host:port]... [--now <ISO time>]";

export interface CliDeps {
  readFile: (path: string) => Promise<string>;
  safeFetch: (url: string, opts?: SafeFetchOptions) => Promise<SafeFetchResult>;
  now: () => Date;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

interface Args {
  input: string;
  keys?: string;
  base?: string;
  allowHosts: string[];
  now?: Date;
}

function parseArgs(argv: string[]): Args | string {
  const rest: string[] = [];
  const allowHosts: string[] = [];
  let keys: string | undefined;
  let base: string | undefined;
  let now: Date | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new Error(`${a} needs a value`);
      return v;
    };
    try {
      if (a === "--keys") keys = value();
      else if (a === "--base") base = value().replace(/\/+$/, "");
      else if (a === "--allow-host") allowHosts.push(value());
      else if (a === "--now") {
        const v = value();
        now = new Date(v);
        if (!Number.isFinite(now.getTime())) return `--now: not a time: ${v}`;
      } else if (a === "--help" || a === "-h") return "help";
      else if (a.startsWith("--")) return `unknown option ${a}`;
      else rest.push(a);
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (rest.length !== 1) return rest.length === 0 ? "missing the badge to verify" : `expected one input, got ${rest.length}`;
  if (!keys && !base) return "give --keys <url|file> or --base <catalog origin> to find the published keys";
  if (base) {
    try {
      const u = new URL(base);
      if (u.pathname !== "/" || u.search || u.hash) return "--base must be an origin, e.g. https://tollgate.dev";
    } catch {
      return `--base is not a URL: ${base}`;
    }
  }
  return { input: rest[0], keys, base, allowHosts, now };
}

const isUrl = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s);

type Loaded = { ok: true; text: string } | { ok: false; message: string; status?: number };

async function load(source: string, args: Args, deps: CliDeps, opts: { allowQuery?: boolean } = {}): Promise<Loaded> {
  if (!isUrl(source)) {
    try {
      return { ok: true, text: await deps.readFile(source) };
    } catch (e) {
      return { ok: false, message: `cannot read ${source}: ${(e as Error).message}` };
    }
  }
  const r = await deps.safeFetch(source, { allowHosts: args.allowHosts, allowQuery: opts.allowQuery, maxBodyBytes: MAX_INPUT_BYTES, bodyOverflow: "error", deadlineMs: 10_000 });
  if (!r.ok) return { ok: false, message: `fetch ${source} refused or failed: ${"refusal" in r ? r.refusal : r.error} (${r.detail})` };
  if (r.status < 200 || r.status > 299) return { ok: false, message: `fetch ${source}: HTTP ${r.status}`, status: r.status };
  return { ok: true, text: Buffer.from(r.body).toString("utf8") };
}

export interface Verdict {
  valid: boolean;
  verdict: VerifyResult["verdict"];
  reason?: string;
  currentResultId?: string | null;
  keyid?: string;
  statement?: unknown;
  checks: VerifyResult["checks"];
  notes: string[];
}

export async function runBadgeVerify(argv: string[], deps: CliDeps): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === "string") {
    if (args !== "help") deps.stderr(`badge:verify: ${args}`);
    deps.stderr(USAGE);
    return args === "help" ? 0 : 2;
  }
  const notes: string[] = [];

  const keySource = args.keys ?? `${args.base}${WELL_KNOWN_KEYS_PATH}`;
  const keyText = await load(keySource, args, deps);
  if (!keyText.ok) {
    deps.stderr(`badge:verify: ${keyText.message}`);
    return 2;
  }
  const keySet = parsePublicKeySet(keyText.text);
  if (!keySet.ok) {
    deps.stderr(`badge:verify: key set from ${keySource}: ${keySet.message}`);
    return 2;
  }
  notes.push(`keys from ${keySource} (${keySet.keySet.keys.length})`);

  const input = await load(args.input, args, deps);
  if (!input.ok) {
    deps.stderr(`badge:verify: ${input.message}`);
    return 2;
  }

  const result = await verifyBadge(input.text, {
    keys: keySet.keySet as PublicKeySet,
    now: args.now ?? deps.now(),
    resultStatus: args.base ? (resultId, listingId) => statusFromCatalog(args, deps, resultId, listingId) : undefined,
  });
  if (!args.base) notes.push("result status not checked (no --base)");

  const verdict: Verdict = result.ok
    ? { valid: true, verdict: result.verdict, keyid: result.keyid, statement: result.statement, checks: result.checks, notes }
    : result.verdict === "superseded"
      ? { valid: false, verdict: result.verdict, reason: result.reason, currentResultId: result.currentResultId, keyid: result.keyid, statement: result.statement, checks: result.checks, notes }
      : { valid: false, verdict: result.verdict, reason: result.reason, checks: result.checks, notes };
  deps.stdout(JSON.stringify(verdict, null, 2));
  return result.ok ? 0 : result.verdict === "superseded" ? 3 : 1;
}

/** GET <base>/api/badges/status; a 404 is "not checked", said out loud, never "valid". */
async function statusFromCatalog(args: Args, deps: CliDeps, resultId: string, listingId: string): Promise<ResultStatusAnswer> {
  const url = `${args.base}/api/badges/status?${new URLSearchParams({ result: resultId, listing: listingId })}`;
  const r = await load(url, args, deps, { allowQuery: true });
  if (!r.ok) {
    if (r.status === 404) return { unchecked: `${url} answered 404` };
    throw new Error(r.message);
  }
  let body: unknown;
  try {
    body = JSON.parse(r.text);
  } catch {
    throw new Error(`${url} did not answer JSON`);
  }
  const status = (body as { status?: unknown } | null)?.status;
  if (status === "superseded") {
    const current = (body as { currentResultId?: unknown }).currentResultId;
    return { status, currentResultId: typeof current === "string" ? current : null };
  }
  if (status === "current" || status === "revoked" || status === "unknown") return status;
  throw new Error(`${url} answered an unexpected status ${JSON.stringify(status)}`);
}
