#!/usr/bin/env node
/**
 * tollgate-verify: checks an endpoint attestation against its evidence bundle and the published keys,
 * optionally its inclusion proof against the chain; exits 0 only when everything matches, otherwise
 * with the refusal's code (verifier/README.md). Each input is a file path or an http(s) URL.
 */
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { verifyInclusion } from "./inclusion.ts";
import { EXIT, verifyAttestation, type Expect, type Report } from "./verify.ts";

const USAGE = `usage: tollgate-verify --attestation <file|url> --bundle <file|url> --keys <file|url>
                       [--receipts <file|url>] [--proof <file|url> [--rpc <url>] [--contract <0x…>]] [--at <ISO time>] [--json]
                       [--expect-endpoint <id>] [--expect-url <url>] [--expect-method <M>]
                       [--expect-pay-to <0x…>] [--expect-network <caip2>] [--expect-asset <0x…>] [--expect-amount <base units>]
       tollgate-verify --from <origin> --endpoint <id> [--with-receipts] [same options]
  --from fills --attestation <origin>/api/endpoints/<id>/attestation, --bundle …/evidence and
  --keys <origin>/.well-known/tollgate-badge-keys.json unless given; --with-receipts also fetches
  …/evidence/receipts and checks every receipt against the bundle's root.`;

const FLAGS = ["attestation", "bundle", "keys", "receipts", "proof", "rpc", "contract", "at", "from", "endpoint", "expect-endpoint", "expect-url", "expect-method", "expect-pay-to", "expect-network", "expect-asset", "expect-amount"];

export function parseArgs(argv: string[]): { opts: Record<string, string>; json: boolean } | string {
  const opts: Record<string, string> = {};
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") json = true;
    else if (a === "--with-receipts") opts["with-receipts"] = "1";
    else if (a === "--help" || a === "-h") return USAGE;
    else if (a.startsWith("--") && FLAGS.includes(a.slice(2).split("=")[0])) {
      const [name, inline] = a.slice(2).split(/=(.*)/s);
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") return `--${name} needs a value\n${USAGE}`;
      opts[name] = v;
    } else return `unknown argument ${a}\n${USAGE}`;
  }
  if (opts.from) {
    if (!opts.endpoint) return `--from needs --endpoint <id>\n${USAGE}`;
    const base = opts.from.replace(/\/+$/, "");
    const id = encodeURIComponent(opts.endpoint);
    opts.attestation ??= `${base}/api/endpoints/${id}/attestation`;
    opts.bundle ??= `${base}/api/endpoints/${id}/evidence`;
    opts.keys ??= `${base}/.well-known/tollgate-badge-keys.json`;
  }
  for (const k of ["attestation", "bundle", "keys"]) if (!opts[k]) return `--${k} is required\n${USAGE}`;
  if (opts.at !== undefined && !Number.isFinite(Date.parse(opts.at))) return `--at must be an ISO 8601 time`;
  if (opts.rpc && !opts.proof && !opts.from) return `--rpc needs --proof (or --from)`;
  if (opts["with-receipts"] && !opts.from) return `--with-receipts needs --from (or name the file with --receipts)`;
  return { opts, json };
}

async function load(where: string, what: string, asText = false): Promise<unknown> {
  let text: string;
  if (/^https?:\/\//.test(where)) {
    const res = await fetch(where, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(20_000) });
    if (!res.ok) throw new Error(`${what}: GET ${where} answered ${res.status}`);
    text = await res.text();
  } else text = await readFile(where, "utf8");
  if (asText) return text;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}: ${where} is not JSON (${(e as Error).message})`);
  }
}

export async function run(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const parsed = parseArgs(argv);
  if (typeof parsed === "string") {
    out(parsed + "\n");
    return parsed === USAGE ? 0 : EXIT.usage;
  }
  const { opts, json } = parsed;
  const failInput = (e: unknown) => {
    out(json ? JSON.stringify({ ok: false, code: "input", detail: (e as Error).message }) + "\n" : `FAIL input: ${(e as Error).message}\n`);
    return EXIT.input;
  };
  let envelope: unknown, keys: unknown, bundle: unknown, proof: unknown, receipts: unknown;
  try {
    [envelope, keys] = await Promise.all([load(opts.attestation, "attestation"), load(opts.keys, "keys")]);
    let bundleAt = opts.bundle;
    let proofAt = opts.proof;
    let receiptsAt = opts.receipts;
    if (opts.from) {
      // The route's answer names its bundle by hash: fetch exactly that one (and its proof), not the latest.
      const base = opts.from.replace(/\/+$/, "");
      const named = (envelope as { evidence?: { sha256?: unknown; url?: unknown } } | null)?.evidence;
      const sha = typeof named?.sha256 === "string" && /^[0-9a-f]{64}$/.test(named.sha256) ? named.sha256 : null;
      if (!argv.some((a) => a.startsWith("--bundle")) && sha && typeof named?.url === "string" && named.url.startsWith("/")) bundleAt = base + named.url;
      if (opts.rpc && !proofAt) proofAt = `${base}/api/endpoints/${encodeURIComponent(opts.endpoint)}/evidence/proof${sha ? `?sha256=${sha}` : ""}`;
      if (opts["with-receipts"] && !receiptsAt) receiptsAt = `${base}/api/endpoints/${encodeURIComponent(opts.endpoint)}/evidence/receipts${sha ? `?sha256=${sha}` : ""}`;
    }
    [bundle, proof, receipts] = await Promise.all([load(bundleAt, "bundle", true), proofAt ? load(proofAt, "proof") : null, receiptsAt ? load(receiptsAt, "receipts", true) : undefined]);
  } catch (e) {
    return failInput(e);
  }
  const expect: Expect = { endpointId: opts["expect-endpoint"], url: opts["expect-url"], method: opts["expect-method"], payTo: opts["expect-pay-to"], network: opts["expect-network"], asset: opts["expect-asset"], amount: opts["expect-amount"] };
  const report: Report = verifyAttestation({ envelope, bundle, receipts, keys, at: opts.at ? new Date(opts.at) : undefined, expect });
  let code = report.code;
  let detail = report.detail;
  if (report.ok && proof !== null) {
    const inc = await verifyInclusion(proof, report.statement!.evidence.sha256, { rpc: opts.rpc, contract: opts.contract });
    report.checks.push(...inc.checks);
    if (!inc.ok) {
      code = inc.code;
      detail = inc.detail;
    } else detail += `; ${inc.detail}`;
  }
  if (json) out(JSON.stringify({ ok: code === "ok", code, exit: EXIT[code], detail, checks: report.checks, recomputed: report.recomputed ?? null }, null, 2) + "\n");
  else {
    for (const c of report.checks) out(`${c.status === "pass" ? "ok  " : c.status === "fail" ? "FAIL" : "skip"} ${c.name}: ${c.detail}\n`);
    out(code === "ok" ? `VERIFIED ${detail}\n` : `REFUSED ${code} (exit ${EXIT[code]}): ${detail}\n`);
  }
  return EXIT[code];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run(process.argv.slice(2)).then(
    (exit) => (process.exitCode = exit),
    (e) => {
      process.stderr.write(`tollgate-verify: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    },
  );
}
