/**
 * Types of the SSRF-guarded fetch (lib/net), the only outbound HTTP in the product.
 * The policy behind every code is written out in docs/SSRF.md.
 */

/**
 * Why a request was refused before (or instead of) being sent. Closed: add a code here, in
 * REFUSAL_CODES below and in docs/SSRF.md together.
 */
export type RefusalCode =
  | "invalid_url"
  | "ambiguous_url"
  | "scheme_not_allowed"
  | "credentials_in_url"
  | "query_not_allowed"
  | "fragment_not_allowed"
  | "host_forbidden"
  | "ip_literal_forbidden"
  | "port_not_allowed"
  | "method_not_allowed"
  | "header_not_allowed"
  | "dns_failed"
  | "address_forbidden"
  | "redirect_limit"
  | "redirect_off_host"
  | "redirect_forbidden"
  | "host_not_allowlisted"
  | "connection_limit";

/** Every refusal code with a one-line meaning (docs/SSRF.md carries the long form). */
export const REFUSAL_CODES: ReadonlyArray<{ code: RefusalCode; description: string }> = [
  { code: "invalid_url", description: "The string is not an absolute URL the WHATWG parser accepts, or its host is empty." },
  { code: "ambiguous_url", description: "The URL holds characters parsers disagree on (backslash, whitespace, tab, newline, other control characters)." },
  { code: "scheme_not_allowed", description: "Only https is allowed; plain http only for a host:port on allowHosts (file:, data:, gopher:, ftp:, javascript: … never)." },
  { code: "credentials_in_url", description: "The URL carries userinfo (user@, user:pass@, or an empty @) before the host." },
  { code: "query_not_allowed", description: "The URL carries a query string (even an empty '?') and allowQuery is not set." },
  { code: "fragment_not_allowed", description: "The submitted URL carries a fragment (even an empty '#')." },
  { code: "host_forbidden", description: "The host name is local by definition: localhost, *.localhost, *.local, *.internal, *.home.arpa, *.arpa, or a single label." },
  { code: "ip_literal_forbidden", description: "The host is an IP literal (in any encoding the parsers accept) inside a forbidden range." },
  { code: "port_not_allowed", description: "The port is not 443 (or one of httpsPorts) and the host:port is not on allowHosts." },
  { code: "method_not_allowed", description: "The method is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS." },
  { code: "header_not_allowed", description: "The caller set a header the guard owns (host, connection, content-length, transfer-encoding, proxy-*, …) or one with an invalid name or a CR/LF/NUL in its value." },
  { code: "dns_failed", description: "The host did not resolve, resolved to nothing, or resolution outlived the deadline's share." },
  { code: "address_forbidden", description: "At least one resolved A/AAAA answer is not public unicast (the detail names the address and range)." },
  { code: "redirect_limit", description: "The server asked for more redirects than maxRedirects (default 3)." },
  { code: "redirect_off_host", description: "A redirect pointed at another host; recorded and not followed (the 3xx is returned as the final response)." },
  { code: "redirect_forbidden", description: "A redirect target failed validation (scheme switch, credentials, query, forbidden host or address); `cause` names the check." },
  { code: "connection_limit", description: "No outbound connection slot (caps per target host and in total, TOLLGATE_NET_MAX_CONNECTIONS*; docs/SSRF.md): the wait queue was full, or the wait passed queueTimeoutMs. Nothing was resolved or sent." },
  { code: "host_not_allowlisted", description: "Allow-list-only mode (a sandboxed demo or staging deployment) is on and the host:port is not on allowHosts; refused before any DNS lookup." },
];

export type SniffedType =
  | "json"
  | "html"
  | "xml"
  | "svg"
  | "png"
  | "jpeg"
  | "gif"
  | "webp"
  | "ico"
  | "text"
  | "binary"
  | "empty";

/** Decides whether an IP address may be connected to. The default is classifyAddress. */
export type AddressPolicy = (ip: string) => { allowed: boolean; range: string };

export type Resolver = (host: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface SafeFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * "host:port" entries (e.g. "127.0.0.1:4021", "localhost:3000", "[::1]:8080") that may be fetched
   * over plain http AND may resolve to loopback (127.0.0.0/8, ::1) — loopback only, never other
   * private ranges, and only for exactly that host and port. For demo and test fixture sellers.
   * An entry without a port matches the scheme's default port (80 / 443).
   */
  allowHosts?: string[];
  /** Default false: docs/spec/scoring-system.md "Bounded, guarded analysis" refuses targets with a query string; a documented GET example may need one. */
  allowQuery?: boolean;
  /**
   * Reach nothing but allowHosts: every other host is refused before DNS (host_not_allowlisted).
   * For sandboxed demos and staging, where even a DNS lookup must not leave the machine. Defaults to
   * the environment variable TOLLGATE_NET_ALLOWLIST_ONLY=1 (npm run demo sets it).
   */
  allowListOnly?: boolean;
  /**
   * Longest wait for a connection slot when the caps on connections in flight (per target host and
   * in total) are reached; past it the request is refused with connection_limit. The wait comes
   * before the deadline starts, so it never counts as the server's time. Default 60_000.
   */
  queueTimeoutMs?: number;
  /** Ports allowed for https on hosts not on allowHosts. Default [443]. */
  httpsPorts?: number[];
  /** Total deadline across every hop, DNS, connect, headers and body. Default 10_000 (docs/spec/trust-rubric.md R1). */
  deadlineMs?: number;
  /** Body cap measured after decompression. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * What to do when the body passes maxBodyBytes. Default "truncate": return ok: true with the first
   * maxBodyBytes bytes and bodyTruncated: true (the probe records a finding and keeps the 402's
   * headers and the start of its body). "error": return { ok: false, error: "body_too_large" }.
   */
  bodyOverflow?: "truncate" | "error";
  /** Cap on the response head (status line + headers), via undici's maxHeaderSize. Default 16 KiB. */
  maxHeaderBytes?: number;
  /** Default 3. */
  maxRedirects?: number;
  /** Default: dns.promises.lookup(host, { all: true, verbatim: true }) — A and AAAA. */
  resolver?: Resolver;
  /**
   * Replaces classifyAddress for IP literals and resolved answers. For tests only: it lets a local
   * server on 127.0.0.2 stand in for a public host. Production callers leave it unset.
   */
  addressPolicy?: AddressPolicy;
  /**
   * Operator deny ranges (CIDRs or addresses): refused whatever else is said. Default: the
   * environment variable TOLLGATE_NET_DENY (comma- or space-separated). docs/SSRF.md "Address rules".
   */
  denyRanges?: readonly string[];
  /**
   * Operator allow ranges: lift the built-in refusal of a private or special range (an internal
   * service the operator names). Never lifts a deny range, a cloud endpoint or the host's own
   * addresses. Default: TOLLGATE_NET_ALLOW.
   */
  allowRanges?: readonly string[];
  /** The host's own addresses, refused even when public. Default: os.networkInterfaces(). For tests. */
  ownAddresses?: readonly string[];
  /**
   * Default false: an invalid chain or a name mismatch is recorded in `tls` (docs/spec/trust-rubric.md S1 scores it)
   * and the exchange goes on. Set true for requests that carry anything of value (a payment).
   */
  requireValidTls?: boolean;
  /** Extra CA certificates to trust (PEM), e.g. a test fixture's self-signed root. */
  ca?: string | string[];
  signal?: AbortSignal;
}

export interface TlsInfo {
  /** Chain verified and the certificate matches the host name. */
  valid: boolean;
  /** Whole days until the leaf certificate's notAfter (negative when expired); null if no certificate. */
  daysToExpiry: number | null;
  authorizationError?: string;
  /** The leaf's notAfter as the certificate states it. */
  validTo?: string;
  /** Negotiated protocol, e.g. "TLSv1.3". */
  protocol?: string;
}

export interface RedirectRecord {
  from: string;
  to: string;
  status: number;
  followed: boolean;
  reason?: RefusalCode;
}

export type SafeFetchStage = "validate" | "resolve" | "connect" | "redirect" | "response";

export type SafeFetchErrorCode =
  | "timeout"
  | "aborted"
  | "connection_failed"
  | "tls_failed"
  | "headers_too_large"
  | "body_too_large"
  | "protocol_error"
  | "internal_error";

export interface SafeFetchSuccess {
  ok: true;
  /** The validated target (normalised href). */
  url: string;
  /** The URL whose response this is (after followed redirects). */
  finalUrl: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Decoded (decompressed) bytes, at most maxBodyBytes. */
  body: Uint8Array;
  bodyTruncated: boolean;
  contentType: string | null;
  sniffedType: SniffedType;
  contentTypeMatches: boolean;
  /** From the start of the final hop's request (connect included) to its response head. */
  ttfbMs: number;
  /** From the call to the end of the body, every hop included. */
  totalMs: number;
  tls: TlsInfo | null;
  redirects: RedirectRecord[];
  /** The pinned IP actually connected to (the socket's remote address). */
  address: string;
}

export interface SafeFetchRefusal {
  ok: false;
  refusal: RefusalCode;
  /** For redirect_forbidden: which check the redirect target failed. */
  cause?: RefusalCode;
  detail: string;
  url: string;
  stage: SafeFetchStage;
  /** Hops taken before the refusal (present when stage is "redirect"). */
  redirects?: RedirectRecord[];
}

export interface SafeFetchFailure {
  ok: false;
  error: SafeFetchErrorCode;
  detail: string;
  url: string;
  ttfbMs?: number;
  /** Present when the failure came after the response head (so the probe keeps a 402's headers). */
  status?: number;
  headers?: Record<string, string>;
  address?: string;
  tls?: TlsInfo | null;
  redirects?: RedirectRecord[];
}

export type SafeFetchResult = SafeFetchSuccess | SafeFetchRefusal | SafeFetchFailure;

export type ValidateOptions = Pick<SafeFetchOptions, "allowHosts" | "allowQuery" | "httpsPorts" | "addressPolicy" | "allowListOnly" | "denyRanges" | "allowRanges" | "ownAddresses">;

export type ValidateResult =
  | { ok: true; url: URL; allowListed: boolean; ipLiteral: string | null }
  | { ok: false; refusal: RefusalCode; detail: string };
