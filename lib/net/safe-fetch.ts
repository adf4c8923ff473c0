import { promises as dns } from "node:dns";
import net from "node:net";
import tls from "node:tls";
import { performance } from "node:perf_hooks";
import { Agent, errors, request, type buildConnector } from "undici";
import { decideAddress, type AddressRuleOptions } from "./address-rules";
import { acquireConnectionSlot } from "./connection-limits";
import { pooledAgent } from "./pinned-pool";
import { readBody } from "./read-body";
import { contentTypeMatches, sniffType } from "./sniff";
import { normaliseHostname, validateTarget } from "./validate-target";
import type {
  RedirectRecord,
  RefusalCode,
  Resolver,
  SafeFetchFailure,
  SafeFetchOptions,
  SafeFetchRefusal,
  SafeFetchResult,
  SafeFetchStage,
  TlsInfo,
} from "./types";

/**
 * Every request's own Agent is destroyed with this one error once its answer is read. Without it undici makes a
 * new error per destroy and the socket reads its stack (source-mapped where the process runs from source): a
 * twentieth of the probe's CPU (docs/BENCHMARKS.md "bench:probe"). Its stack is read once, here, and nothing
 * waits on a destroyed Agent's requests by then.
 */
const AGENT_DONE = new errors.ClientDestroyedError();
void AGENT_DONE.stack;

export { classifyAddress } from "./classify-address";

/** `pool: true` keeps the connection for the next request to the same checked addresses (./pinned-pool.ts). */
export type PooledSafeFetchOptions = SafeFetchOptions & { pool?: boolean };

const NEVER_ABORTED = new AbortController().signal;
export { validateTarget } from "./validate-target";

/**
 * The only outbound HTTP: validate, resolve, refuse unless every answer is public, dial the checked IP itself;
 * redirects by hand. Never throws (docs/SSRF.md).
 */

const DEFAULTS = {
  deadlineMs: 10_000, // R1
  maxBodyBytes: 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  maxRedirects: 3,
  queueTimeoutMs: 60_000,
};

const ALLOWED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const OWNED_HEADERS = new Set([
  "host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer",
  "proxy-connection", "proxy-authorization", "expect", "http2-settings",
]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = "TollgateProbe/0.1 (+https://tollgate.dev/docs/ssrf)";

export const defaultResolver: Resolver = async (host) => {
  const answers = await dns.lookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

interface HopFacts {
  tls: TlsInfo | null;
  address: string | null;
}

function tlsFacts(socket: tls.TLSSocket): TlsInfo {
  const cert = socket.getPeerCertificate();
  const hasCert = cert && Object.keys(cert).length > 0 && typeof cert.valid_to === "string";
  const notAfter = hasCert ? Date.parse(cert.valid_to) : NaN;
  const info: TlsInfo = {
    valid: socket.authorized === true,
    daysToExpiry: Number.isFinite(notAfter) ? Math.floor((notAfter - Date.now()) / 86_400_000) : null,
  };
  if (!socket.authorized && socket.authorizationError) info.authorizationError = String(socket.authorizationError);
  if (hasCert) info.validTo = cert.valid_to;
  const protocol = socket.getProtocol();
  if (protocol) info.protocol = protocol;
  return info;
}

/** Never a name: a rebinding answer has nothing to act on. */
function pinnedConnector(
  addresses: string[],
  hostname: string,
  opts: { requireValidTls: boolean; ca?: string | string[]; signal: AbortSignal },
  facts: HopFacts,
): buildConnector.connector {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  const isIpHost = net.isIP(bare) !== 0;
  return (connectOpts, callback) => {
    const port = Number(connectOpts.port) || (connectOpts.protocol === "https:" ? 443 : 80);
    const https = connectOpts.protocol === "https:";
    let settled = false;
    const finish = (err: Error | null, socket: net.Socket | null) => {
      if (settled) return;
      settled = true;
      opts.signal.removeEventListener("abort", onAbort);
      if (err) callback(err, null);
      else callback(null, socket as net.Socket);
    };
    let current: net.Socket | null = null;
    const onAbort = () => {
      current?.destroy();
      finish(new Error("aborted before connect"), null);
    };
    if (opts.signal.aborted) return finish(new Error("aborted before connect"), null);
    opts.signal.addEventListener("abort", onAbort, { once: true });

    const attempt = (i: number, lastErr?: Error) => {
      if (i >= addresses.length) return finish(lastErr ?? new Error("no address to connect to"), null);
      const address = addresses[i];
      let socket: net.Socket;
      const onConnected = () => {
        if (socket.remoteAddress && normaliseIp(socket.remoteAddress) !== normaliseIp(address)) {
          socket.destroy();
          return finish(new Error(`connected to ${socket.remoteAddress}, not the pinned ${address}`), null);
        }
        facts.address = socket.remoteAddress ?? address;
        if (https) facts.tls = tlsFacts(socket as tls.TLSSocket);
        socket.off("error", onError);
        finish(null, socket);
      };
      const onError = (err: Error & { code?: string }) => {
        socket.destroy();
        const tcp = ["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ETIMEDOUT"].includes(err.code ?? "");
        if (tcp && i + 1 < addresses.length) return attempt(i + 1, err);
        finish(err, null);
      };
      if (https) {
        socket = tls.connect({
          host: address,
          port,
          servername: isIpHost ? undefined : bare,
          ALPNProtocols: ["http/1.1"],
          rejectUnauthorized: opts.requireValidTls,
          ca: opts.ca ? (Array.isArray(opts.ca) ? [...tls.rootCertificates, ...opts.ca] : [...tls.rootCertificates, opts.ca]) : undefined,
          checkServerIdentity: (_host, cert) => tls.checkServerIdentity(bare, cert),
        });
        socket.once("secureConnect", onConnected);
      } else {
        socket = net.connect({ host: address, port });
        socket.once("connect", onConnected);
      }
      current = socket;
      socket.once("error", onError);
    };
    attempt(0);
  };
}

function normaliseIp(ip: string): string {
  return ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "").toLowerCase();
}

function joinHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e?.code === "string") return e.code;
  if (typeof e?.cause?.code === "string") return e.cause.code;
  return "";
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== err.message ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH|ERR_TLS)/;

function classifyError(err: unknown, https: boolean): SafeFetchFailure["error"] {
  const code = errorCode(err);
  if ((err as Error)?.name === "HTTPParserError" || (err as { cause?: Error })?.cause?.name === "HTTPParserError") return "protocol_error";
  if (code === "UND_ERR_HEADERS_OVERFLOW") return "headers_too_large";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT") return "timeout";
  if (TLS_CODE.test(code) || (https && /ssl|tls|certificate|handshake/i.test(errorMessage(err)))) return "tls_failed";
  if (code.startsWith("HPE_") || code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH" || code === "UND_ERR_INVALID_ARG_RESPONSE") return "protocol_error";
  if (code.startsWith("UND_ERR_SOCKET") || code.startsWith("E")) return "connection_failed";
  return "connection_failed";
}

export async function safeFetch(input: string, opts: PooledSafeFetchOptions = {}): Promise<SafeFetchResult> {
  // Taken before the deadline starts: our queue is never the seller's slowness.
  let pre: ReturnType<typeof validateTarget>;
  try {
    pre = validateTarget(input, { allowHosts: opts.allowHosts, allowQuery: opts.allowQuery, httpsPorts: opts.httpsPorts, allowListOnly: opts.allowListOnly, addressPolicy: opts.addressPolicy, denyRanges: opts.denyRanges, allowRanges: opts.allowRanges, ownAddresses: opts.ownAddresses });
  } catch (err) {
    return { ok: false, error: "internal_error", detail: errorMessage(err), url: input };
  }
  if (!pre.ok) return runWithDeadline(input, opts);
  const host = normaliseHostname(pre.url.hostname);
  const slot = await acquireConnectionSlot(host, opts.signal, positive(opts.queueTimeoutMs, DEFAULTS.queueTimeoutMs));
  if (!slot.ok) {
    if (slot.kind === "aborted") return { ok: false, error: "aborted", detail: slot.detail, url: input };
    return { ok: false, refusal: "connection_limit", detail: slot.detail, url: input, stage: "connect" };
  }
  try {
    return await runWithDeadline(input, opts);
  } finally {
    slot.release();
  }
}

async function runWithDeadline(input: string, opts: PooledSafeFetchOptions): Promise<SafeFetchResult> {
  const started = performance.now();
  const deadlineMs = positive(opts.deadlineMs, DEFAULTS.deadlineMs);
  const controller = new AbortController();
  let abortedBy: "timeout" | "aborted" | null = null;
  const timer = setTimeout(() => {
    abortedBy ??= "timeout";
    controller.abort(new Error(`deadline of ${deadlineMs} ms passed`));
  }, deadlineMs);
  const onCallerAbort = () => {
    abortedBy ??= "aborted";
    controller.abort(new Error("aborted by caller"));
  };
  if (opts.signal?.aborted) onCallerAbort();
  else opts.signal?.addEventListener("abort", onCallerAbort, { once: true });
  try {
    return await run(input, opts, controller.signal, () => abortedBy, started, deadlineMs);
  } catch (err) {
    return { ok: false, error: "internal_error", detail: errorMessage(err), url: input };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onCallerAbort);
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback;
}

async function run(
  input: string,
  opts: PooledSafeFetchOptions,
  signal: AbortSignal,
  abortedBy: () => "timeout" | "aborted" | null,
  started: number,
  deadlineMs: number,
): Promise<SafeFetchResult> {
  const maxBodyBytes = positive(opts.maxBodyBytes, DEFAULTS.maxBodyBytes);
  const maxHeaderBytes = positive(opts.maxHeaderBytes, DEFAULTS.maxHeaderBytes);
  const maxRedirects = Math.max(0, Math.min(10, Math.floor(opts.maxRedirects ?? DEFAULTS.maxRedirects)));
  const ruleOpts: AddressRuleOptions = { addressPolicy: opts.addressPolicy, denyRanges: opts.denyRanges, allowRanges: opts.allowRanges, ownAddresses: opts.ownAddresses };
  const resolver = opts.resolver ?? defaultResolver;
  const validateOpts = { allowHosts: opts.allowHosts, allowQuery: opts.allowQuery, httpsPorts: opts.httpsPorts, allowListOnly: opts.allowListOnly, ...ruleOpts };

  const refuse = (refusal: RefusalCode, detail: string, url: string, stage: SafeFetchStage, extra: Partial<SafeFetchRefusal> = {}): SafeFetchRefusal => ({
    ok: false, refusal, detail, url, stage, ...extra,
  });

  let method = (opts.method ?? "GET").toUpperCase();
  if (!ALLOWED_METHODS.has(method)) return refuse("method_not_allowed", `method ${method} is not allowed`, input, "validate");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    const lower = name.toLowerCase();
    if (OWNED_HEADERS.has(lower) || lower.startsWith("proxy-")) return refuse("header_not_allowed", `header ${lower} is set by the guard`, input, "validate");
    // eslint-disable-next-line no-control-regex
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower) || /[\r\n\u0000]/.test(String(value))) {
      return refuse("header_not_allowed", `header ${JSON.stringify(name)} has an invalid name or value`, input, "validate");
    }
    headers[lower] = value;
  }
  headers["user-agent"] ??= USER_AGENT;
  headers["accept-encoding"] ??= "gzip, deflate, br";
  let body: string | Uint8Array | undefined = opts.body;

  const first = validateTarget(input, validateOpts);
  if (!first.ok) return refuse(first.refusal, first.detail, input, "validate");
  const origin = first.url.href;
  let current = first.url;
  let allowListed = first.allowListed;
  let ipLiteral = first.ipLiteral;
  const redirects: RedirectRecord[] = [];
  const hopRefused = (cause: RefusalCode, detail: string): SafeFetchRefusal => {
    const last = redirects[redirects.length - 1];
    if (last) Object.assign(last, { followed: false, reason: cause });
    return refuse("redirect_forbidden", detail, origin, "redirect", { cause, redirects });
  };
  const timedOut = (): SafeFetchFailure["error"] => (abortedBy() === "aborted" ? "aborted" : "timeout");

  for (let hop = 0; ; hop++) {
    const stage: SafeFetchStage = hop === 0 ? "resolve" : "redirect";
    const hostname = normaliseHostname(current.hostname);

    let addresses: string[];
    if (ipLiteral !== null) addresses = [ipLiteral];
    else {
      let answers: Array<{ address: string; family: 4 | 6 }>;
      try {
        answers = await raceAbort(resolver(hostname), signal);
      } catch (err) {
        if (signal.aborted) return { ok: false, error: timedOut(), detail: `resolving ${hostname}: ${errorMessage(signal.reason)}`, url: origin, redirects: hop ? redirects : undefined, resolverError: "ETIMEOUT" };
        const detail = `resolving ${hostname} failed: ${errorCode(err) || errorMessage(err)}`;
        return hop === 0 ? refuse("dns_failed", detail, origin, stage, { resolverError: errorCode(err) || "unknown" }) : hopRefused("dns_failed", detail);
      }
      if (!Array.isArray(answers) || answers.length === 0) {
        const detail = `${hostname} resolved to no address`;
        return hop === 0 ? refuse("dns_failed", detail, origin, stage, { resolverError: "ENODATA" }) : hopRefused("dns_failed", detail);
      }
      addresses = [];
      for (const answer of answers) {
        const address = String(answer?.address ?? "");
        const verdict = decideAddress(address, allowListed, ruleOpts);
        if (!verdict.allowed) {
          const detail = `${hostname} resolved to ${address} (${verdict.range})`;
          return hop === 0 ? refuse("address_forbidden", detail, origin, stage) : hopRefused("address_forbidden", detail);
        }
        if (!addresses.includes(address)) addresses.push(address);
      }
    }

    let facts: HopFacts = { tls: null, address: null };
    let agent: Agent;
    let closeAgent: () => void;
    const tlsOpts = { requireValidTls: opts.requireValidTls === true, ca: opts.ca };
    if (opts.pool) {
      const pooled = pooledAgent(
        { protocol: current.protocol, hostname, port: current.port, addresses, ...tlsOpts, maxHeaderBytes },
        (f) => pinnedConnector(addresses, hostname, { ...tlsOpts, signal: NEVER_ABORTED }, f),
      );
      agent = pooled.agent;
      facts = pooled.facts;
      closeAgent = () => undefined;
    } else {
      const own = new Agent({
        connect: pinnedConnector(addresses, hostname, { ...tlsOpts, signal }, facts),
        maxHeaderSize: maxHeaderBytes,
        headersTimeout: deadlineMs,
        bodyTimeout: deadlineMs,
        connections: 1,
        pipelining: 1,
      });
      agent = own;
      closeAgent = () => void own.destroy(AGENT_DONE).catch(() => undefined);
    }

    const hopStart = performance.now();
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(current.href, { dispatcher: agent, method: method as "GET", headers, body, signal, headersTimeout: deadlineMs, bodyTimeout: deadlineMs });
    } catch (err) {
      closeAgent();
      const https = current.protocol === "https:";
      const error = signal.aborted ? timedOut() : classifyError(err, https);
      return {
        ok: false, error, detail: signal.aborted ? errorMessage(signal.reason) : `${errorCode(err) || "error"}: ${errorMessage(err)}`,
        url: origin, address: facts.address ?? undefined, tls: facts.tls, redirects: hop ? redirects : undefined,
      };
    }
    const ttfbMs = performance.now() - hopStart;
    const status = response.statusCode;
    const resHeaders = joinHeaders(response.headers as Record<string, string | string[] | undefined>);
    const address = facts.address ?? addresses[0];
    const location = resHeaders["location"];

    if (REDIRECT_STATUSES.has(status) && location !== undefined) {
      const next = checkRedirect(location, current, validateOpts, opts.allowQuery === true);
      if (!next.ok) {
        redirects.push({ from: current.href, to: next.to, status, followed: false, reason: next.cause });
        discard(response.body);
        closeAgent();
        return refuse("redirect_forbidden", `redirect from ${current.href} to ${next.to}: ${next.detail}`, origin, "redirect", { cause: next.cause, redirects });
      }
      const offHost = hostKey(next.url) !== hostKey(current);
      if (!offHost && redirects.length >= maxRedirects) {
        redirects.push({ from: current.href, to: next.url.href, status, followed: false, reason: "redirect_limit" });
        discard(response.body);
        closeAgent();
        return refuse("redirect_limit", `more than ${maxRedirects} redirects`, origin, "redirect", { redirects });
      }
      if (!offHost) {
        redirects.push({ from: current.href, to: next.url.href, status, followed: true });
        discard(response.body);
        closeAgent();
        if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
          if (method !== "HEAD") method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        current = next.url;
        allowListed = next.allowListed;
        ipLiteral = next.ipLiteral;
        continue;
      }
      redirects.push({ from: current.href, to: next.url.href, status, followed: false, reason: "redirect_off_host" });
    }

    const read = await readBody(response.body, resHeaders["content-encoding"], maxBodyBytes);
    closeAgent();
    // A pooled connection is free only once undici has seen the body end.
    if (opts.pool) await new Promise((r) => setImmediate(r));
    const afterHead = { ttfbMs, status, headers: resHeaders, address, tls: facts.tls, redirects };
    if (!read.ok) {
      if (signal.aborted) return { ok: false, error: timedOut(), detail: `reading the body: ${errorMessage(signal.reason)}`, url: origin, ...afterHead };
      const declared = Number(resHeaders["content-length"]);
      if (read.kind === "stream_failed" && Number.isFinite(declared) && read.wireBytes < declared) {
        return { ok: false, error: "protocol_error", detail: `content-length said ${declared} bytes, the connection closed after ${read.wireBytes} (${read.detail})`, url: origin, ...afterHead };
      }
      const error = read.kind === "stream_failed" ? classifyError(read.error, current.protocol === "https:") : "protocol_error";
      return { ok: false, error, detail: read.detail, url: origin, ...afterHead };
    }
    if (read.truncated && opts.bodyOverflow === "error") {
      return { ok: false, error: "body_too_large", detail: `body passed ${maxBodyBytes} bytes (after decoding)`, url: origin, ...afterHead };
    }
    const contentType = resHeaders["content-type"] ?? null;
    const sniffedType = sniffType(read.bytes, read.truncated);
    return {
      ok: true,
      url: origin,
      finalUrl: current.href,
      status,
      headers: resHeaders,
      body: read.bytes,
      bodyTruncated: read.truncated,
      contentType,
      sniffedType,
      contentTypeMatches: contentTypeMatches(contentType, sniffedType),
      ttfbMs,
      totalMs: performance.now() - started,
      tls: facts.tls,
      redirects,
      address,
    };
  }
}

function discard(body: { on(event: "error", fn: () => void): unknown; destroy(): unknown }): void {
  body.on("error", () => undefined);
  body.destroy();
}

function hostKey(url: URL): string {
  return `${normaliseHostname(url.hostname)}:${url.port}`;
}

type RedirectCheck =
  | { ok: true; url: URL; allowListed: boolean; ipLiteral: string | null }
  | { ok: false; to: string; cause: RefusalCode; detail: string };

/** "//@host" hides an empty userinfo, so the header itself is checked too. */
function checkRedirect(location: string, base: URL, validateOpts: Parameters<typeof validateTarget>[1], allowQuery: boolean): RedirectCheck {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(location) || location.trim() !== location) {
    return { ok: false, to: location, cause: "ambiguous_url", detail: "Location holds a backslash, whitespace or control character" };
  }
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    return { ok: false, to: location, cause: "invalid_url", detail: "Location does not parse" };
  }
  if (/^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/?#]*@/i.test(location)) {
    return { ok: false, to: next.href, cause: "credentials_in_url", detail: "Location carries credentials" };
  }
  const beforeHash = location.split("#", 1)[0];
  if (!allowQuery && beforeHash.includes("?")) {
    return { ok: false, to: next.href, cause: "query_not_allowed", detail: "Location carries a query string" };
  }
  next.hash = "";
  const href = next.href.replace(/#$/, "");
  const verdict = validateTarget(href, validateOpts);
  if (!verdict.ok) return { ok: false, to: href, cause: verdict.refusal, detail: verdict.detail };
  return { ok: true, url: verdict.url, allowListed: verdict.allowListed, ipLiteral: verdict.ipLiteral };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
