/** Parses an x402 challenge into findings (docs/spec/trust-rubric.md C1–C5, S4); it never throws. */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { PaymentRequiredV1Schema, PaymentRequiredV2Schema } from "@x402/core/schemas";
import { getAddress, isAddress } from "viem";
import type { ChallengeEvidence, ChallengeKind, Finding, NormalisedRequirement } from "@/lib/evidence";
import { canonicalUsdc, findAsset, assetsOnNetwork, isCaip2, toCaip2, type DeclaredToken } from "./assets";
import { checkBazaarV1, checkBazaarV2, type BazaarFacts } from "./bazaar";
import { bodyText, firstDifference, getHeader, isObject, pointer, type HeaderBag } from "./json";
import { findSecretAsks } from "./secret-asks";

export interface X402Response {
  status: number;
  headers: HeaderBag;
  body: Uint8Array | string | null;
}

export interface ParseX402Options {
  declaredTokens?: readonly DeclaredToken[];
}

export interface X402ParseResult extends ChallengeEvidence {
  kind: ChallengeKind;
  source: "header" | "body" | "both" | null;
  header: unknown;
  body: unknown;
  bazaar: BazaarFacts | null;
  findings: Finding[];
}

export const KNOWN_SCHEMES = ["exact", "upto", "batch-settlement", "auth-capture"] as const;

export const MIN_TIMEOUT_S = 30;
export const MAX_TIMEOUT_S = 3600;

const finding = (check: string, severity: Finding["severity"], code: string, message: string, ptr?: string): Finding =>
  ptr === undefined ? { check, severity, code, message } : { check, severity, code, message, pointer: ptr };

export function parseX402(response: X402Response, options: ParseX402Options = {}): X402ParseResult {
  const findings: Finding[] = [];
  const headerRaw = getHeader(response.headers, "payment-required");

  // --- read the header (v2) ---
  let header: unknown = undefined;
  if (headerRaw !== null) {
    const trimmed = headerRaw.trim();
    try {
      header = decodePaymentRequiredHeader(trimmed);
      if (!isObject(header)) {
        findings.push(finding("C1", "fail", "header_not_object", "The PAYMENT-REQUIRED header decodes to JSON that is not an object."));
        header = undefined;
      }
    } catch (e) {
      const notJson = e instanceof SyntaxError;
      findings.push(notJson
        ? finding("C1", "fail", "header_not_json", "The PAYMENT-REQUIRED header is base64 but does not decode to JSON.")
        : finding("C1", "fail", "header_not_base64", "The PAYMENT-REQUIRED header is not valid base64."));
    }
  }

  // --- read the body: any JSON object carrying x402Version (v1, or v2 echoed) ---
  let body: unknown = undefined;
  const text = bodyText(response.body).trim();
  if (text.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObject(parsed) && "x402Version" in parsed) body = parsed;
    } catch {
    }
  }

  const source: X402ParseResult["source"] = header !== undefined && body !== undefined ? "both" : header !== undefined ? "header" : body !== undefined ? "body" : null;
  const primary = (header ?? body) as Record<string, unknown> | undefined;
  const empty: X402ParseResult = { kind: "none", valid: false, source, header, body, bazaar: null, findings, requirements: [], x402: undefined, bazaarReading: null };
  if (!primary) {
    return headerRaw !== null ? { ...empty, kind: "x402-v2" } : empty;
  }

  // --- C1: x402Version, resource, a non-empty accepts ---
  const version = primary.x402Version;
  let kind: ChallengeKind;
  if (version === 2) kind = "x402-v2";
  else if (version === 1) kind = "x402-v1";
  else {
    findings.push(version === undefined
      ? finding("C1", "fail", "version_missing", "The challenge has no x402Version.", "/x402Version")
      : finding("C1", "fail", "version_unsupported", `x402Version ${JSON.stringify(version)} is not 1 or 2.`, "/x402Version"));
    kind = header !== undefined ? "x402-v2" : "x402-v1";
  }
  if (source === "body" && kind === "x402-v2") {
    findings.push(finding("C1", "warn", "v2_in_body_only", "A v2 challenge should travel in the PAYMENT-REQUIRED header; it was found only in the body."));
  }
  if (source === "header" && kind === "x402-v1") {
    findings.push(finding("C1", "warn", "v1_in_header", "The PAYMENT-REQUIRED header carries an x402Version 1 object; v1 challenges are read from the body."));
  }
  const accepts = primary.accepts;
  if (!Array.isArray(accepts)) findings.push(finding("C1", "fail", "accepts_missing", "The challenge has no `accepts` list.", "/accepts"));
  else if (accepts.length === 0) findings.push(finding("C1", "fail", "accepts_empty", "The `accepts` list is empty: there is no way to pay.", "/accepts"));
  if (kind === "x402-v2") {
    const r = primary.resource;
    if (!isObject(r) || typeof r.url !== "string" || r.url === "") findings.push(finding("C1", "fail", "resource_missing", "The challenge has no `resource.url`.", "/resource"));
  }
  const list: unknown[] = Array.isArray(accepts) ? accepts : [];

  // --- C2: each requirement well-formed; C3: asset real ---
  const requirements: NormalisedRequirement[] = [];
  list.forEach((req, i) => {
    const at = (field: string) => pointer("accepts", i, field);
    if (!isObject(req)) {
      findings.push(finding("C2", "fail", "requirement_not_object", `accepts[${i}] is not an object.`, pointer("accepts", i)));
      return;
    }
    if (kind === "x402-v1" && (typeof req.resource !== "string" || req.resource === "")) {
      findings.push(finding("C1", "fail", "resource_missing", `accepts[${i}] has no \`resource\` (v1 carries it on each requirement).`, at("resource")));
    }
    const n = checkRequirement(req, i, kind, findings, options.declaredTokens ?? []);
    requirements.push(n);
  });

  // --- the library's own schema, for anything the checks above missed ---
  const schema = kind === "x402-v1" ? PaymentRequiredV1Schema : PaymentRequiredV2Schema;
  const parsed = schema.safeParse(primary);
  if (!parsed.success) {
    const covered = new Set(findings.filter((f) => f.pointer).map((f) => f.pointer!));
    for (const issue of parsed.error.issues) {
      const ptr = pointer(...issue.path);
      if (issue.path[0] === "x402Version") continue;
      if ([...covered].some((c) => ptr === c || ptr.startsWith(c + "/") || c.startsWith(ptr + "/") || c === ptr)) continue;
      const check = issue.path[0] === "accepts" && issue.path.length > 2 ? "C2" : "C1";
      findings.push(finding(check, "fail", "schema_violation", `${ptr || "(root)"}: ${issue.message} (x402 ${kind === "x402-v1" ? "v1" : "v2"} schema).`, ptr || "/"));
      covered.add(ptr);
    }
  }

  // --- C4: header and body agree (na when only one is present) ---
  if (source === "both") {
    const diff = firstDifference(header, body);
    if (diff !== null) findings.push(finding("C4", "fail", "header_body_disagree", `The PAYMENT-REQUIRED header and the body decode to different challenges (first difference at ${diff}).`, diff));
    else findings.push(finding("C4", "pass", "ok", "The header and the body decode to the same challenge."));
  } else {
    findings.push(finding("C4", "info", "not_applicable", source === "header" ? "Only the header carries the challenge; nothing to compare." : "Only the body carries the challenge; nothing to compare."));
  }

  // --- C5: bazaar discovery ---
  const bz = kind === "x402-v1" ? checkBazaarV1(list) : checkBazaarV2(primary);
  findings.push(...bz.findings);

  // --- S4: an exactly echoed body is scanned once.
  const bodyIsEcho = source === "both" && !findings.some((f) => f.code === "header_body_disagree");
  findings.push(...findSecretAsks([
    ...(header !== undefined ? [{ json: header, label: "PAYMENT-REQUIRED header" }] : []),
    ...(body !== undefined && !bodyIsEcho ? [{ json: body, label: "402 body" }] : []),
  ]));

  const c3Measured = requirements.length > findings.filter((f) => f.code === "asset_unverified").length;
  addPasses(findings, c3Measured ? ["C1", "C2", "C3", "C5", "S4"] : ["C1", "C2", "C5", "S4"]);
  const valid = !findings.some((f) => (f.check === "C1" || f.check === "C2") && f.severity === "fail");
  return { kind, valid, source, header, body, x402: primary, requirements, bazaar: bz.facts, bazaarReading: bz.facts.present ? bz.facts.reading : null, findings };
}

function checkRequirement(req: Record<string, unknown>, i: number, kind: ChallengeKind, findings: Finding[], declared: readonly DeclaredToken[]): NormalisedRequirement {
  const at = (field: string) => pointer("accepts", i, field);
  const v1 = kind === "x402-v1";

  const scheme = typeof req.scheme === "string" ? req.scheme : "";
  if (!scheme) findings.push(finding("C2", "fail", "scheme_missing", `accepts[${i}] has no scheme.`, at("scheme")));
  else if (!(KNOWN_SCHEMES as readonly string[]).includes(scheme)) findings.push(finding("C2", "fail", "scheme_unknown", `accepts[${i}] uses scheme "${scheme}", which is not one x402 defines (${KNOWN_SCHEMES.join(", ")}).`, at("scheme")));

  const rawNetwork = typeof req.network === "string" ? req.network : "";
  let network = rawNetwork;
  if (!rawNetwork) findings.push(finding("C2", "fail", "network_missing", `accepts[${i}] has no network.`, at("network")));
  else if (v1) {
    const mapped = toCaip2(rawNetwork);
    if (mapped) network = mapped;
    else findings.push(finding("C2", "fail", "network_unknown", `accepts[${i}] names network "${rawNetwork}", which is neither CAIP-2 nor a known x402 v1 name.`, at("network")));
  } else if (!isCaip2(rawNetwork)) {
    const hint = toCaip2(rawNetwork);
    findings.push(finding("C2", "fail", "network_not_caip2", `accepts[${i}] network "${rawNetwork}" is not a CAIP-2 id${hint ? ` (v2 expects "${hint}")` : ""}.`, at("network")));
  }

  const amountField = v1 ? "maxAmountRequired" : "amount";
  const rawAmount = req[amountField];
  const amount = typeof rawAmount === "string" ? rawAmount : rawAmount === undefined ? "" : String(rawAmount);
  if (rawAmount === undefined) findings.push(finding("C2", "fail", "amount_missing", `accepts[${i}] has no ${amountField}.`, at(amountField)));
  else if (typeof rawAmount !== "string" || !/^\d+$/.test(rawAmount)) findings.push(finding("C2", "fail", "amount_not_integer", `accepts[${i}].${amountField} must be an integer string of atomic units; got ${JSON.stringify(rawAmount)}.`, at(amountField)));

  const payTo = typeof req.payTo === "string" ? req.payTo : "";
  const evm = network.startsWith("eip155:");
  if (!payTo) findings.push(finding("C2", "fail", "payto_missing", `accepts[${i}] has no payTo.`, at("payTo")));
  else if (evm) {
    if (!isAddress(payTo, { strict: false })) findings.push(finding("C2", "fail", "payto_invalid", `accepts[${i}].payTo "${payTo}" is not an EVM address.`, at("payTo")));
    // viem's isAddress accepts all-lowercase; C2 asks for checksummed.
    else if (payTo !== getAddress(payTo)) {
      findings.push(finding("C2", "fail", "payto_not_checksummed", `accepts[${i}].payTo is not EIP-55 checksummed; expected ${getAddress(payTo)}.`, at("payTo")));
    }
  } else if (network.startsWith("solana:") && !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(payTo)) {
    findings.push(finding("C2", "fail", "payto_invalid", `accepts[${i}].payTo "${payTo}" is not a Solana address (base58).`, at("payTo")));
  }

  const timeout = req.maxTimeoutSeconds;
  if (timeout === undefined) findings.push(finding("C2", "fail", "timeout_missing", `accepts[${i}] has no maxTimeoutSeconds.`, at("maxTimeoutSeconds")));
  else if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < MIN_TIMEOUT_S || timeout > MAX_TIMEOUT_S) {
    findings.push(finding("C2", "fail", "timeout_out_of_range", `accepts[${i}].maxTimeoutSeconds is ${JSON.stringify(timeout)}; it should be ${MIN_TIMEOUT_S}–${MAX_TIMEOUT_S} seconds.`, at("maxTimeoutSeconds")));
  }

  const asset = typeof req.asset === "string" ? req.asset : "";
  const extra = isObject(req.extra) ? req.extra : null;
  if (!asset) findings.push(finding("C2", "fail", "asset_missing", `accepts[${i}] has no asset.`, at("asset")));
  else if (evm && !isAddress(asset, { strict: false })) {
    findings.push(finding("C2", "fail", "asset_not_address", `accepts[${i}].asset ${JSON.stringify(asset)} is not a token contract address; on ${network} the asset is the contract${canonicalHint(network)}.`, at("asset")));
  } else if (network.startsWith("solana:") && !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(asset)) {
    findings.push(finding("C2", "fail", "asset_not_address", `accepts[${i}].asset ${JSON.stringify(asset)} is not an SPL mint address (base58)${canonicalHint(network)}.`, at("asset")));
  } else if (network && (isCaip2(network))) checkAsset(network, asset, extra, scheme, i, findings, declared);

  return {
    scheme,
    network,
    amount,
    asset,
    payTo,
    maxTimeoutSeconds: typeof timeout === "number" ? timeout : null,
    extra,
  };
}

function canonicalHint(network: string): string {
  const usdc = canonicalUsdc(network);
  return usdc ? ` (USDC there is ${usdc.address})` : "";
}

function checkAsset(network: string, asset: string, extra: Record<string, unknown> | null, scheme: string, i: number, findings: Finding[], declared: readonly DeclaredToken[]): void {
  const at = (field: string) => pointer("accepts", i, field);
  const known = findAsset(network, asset, declared);
  if (!known) {
    const onNetwork = assetsOnNetwork(network);
    if (onNetwork.length === 0) {
      // No table entry: unmeasured, never failed.
      findings.push(finding("C3", "info", "asset_unverified", `No asset table entry for network ${network}; the asset ${asset} was not verified.`, at("asset")));
    } else {
      findings.push(finding("C3", "fail", "asset_not_canonical", `accepts[${i}].asset ${asset} is not the canonical ${onNetwork.map((a) => `${a.symbol} (${a.address})`).join(" or ")} on ${network}, nor a declared token.`, at("asset")));
    }
    return;
  }
  const domains = known.domains ?? [];
  if (!network.startsWith("eip155:") || domains.length === 0) return;
  const name = extra?.name;
  const version = extra?.version;
  if (name === undefined && version === undefined) {
    const severity = scheme === "exact" ? "fail" : "warn";
    findings.push(finding("C3", severity, "eip712_domain_missing", `accepts[${i}].extra has no EIP-712 name and version; a payer cannot sign without them (expected "${domains[0].name}" / "${domains[0].version}").`, at("extra")));
    return;
  }
  if (!domains.some((d) => d.name === name)) {
    findings.push(finding("C3", "fail", "eip712_name_mismatch", `accepts[${i}].extra.name is ${JSON.stringify(name)}; the contract's EIP-712 name is ${domains.map((d) => `"${d.name}"`).join(" or ")}.`, pointer("accepts", i, "extra", "name")));
  }
  const versions = domains.map((d) => d.version).filter((v): v is string => v !== null);
  if (versions.length > 0 && !versions.includes(String(version))) {
    findings.push(finding("C3", "fail", "eip712_version_mismatch", `accepts[${i}].extra.version is ${JSON.stringify(version)}; the contract's EIP-712 version is "${versions[0]}".`, pointer("accepts", i, "extra", "version")));
  }
}

function addPasses(findings: Finding[], checks: string[]): void {
  for (const check of checks) {
    if (!findings.some((f) => f.check === check && f.severity === "fail")) {
      findings.push({ check, severity: "pass", code: "ok", message: `${check} passed.` });
    }
  }
}
