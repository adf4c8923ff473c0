/** Types of the SSRF-guarded fetch; the policy behind every code: docs/SSRF.md. */

/** Closed: a new code goes here, in REFUSAL_CODES and in docs/SSRF.md together. */
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

export type AddressPolicy = (ip: string) => { allowed: boolean; range: string };

export type Resolver = (host: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface SafeFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Fetched over plain http and allowed to resolve to loopback only (demo and test sellers). */
  allowHosts?: string[];
  allowQuery?: boolean;
  /** Refused before DNS. Default TOLLGATE_NET_ALLOWLIST_ONLY. */
  allowListOnly?: boolean;
  queueTimeoutMs?: number;
  httpsPorts?: number[];
  /** Every hop, DNS, connect, headers and body (R1). */
  deadlineMs?: number;
  /** After decompression. */
  maxBodyBytes?: number;
  bodyOverflow?: "truncate" | "error";
  maxHeaderBytes?: number;
  maxRedirects?: number;
  resolver?: Resolver;
  /** Tests only. */
  addressPolicy?: AddressPolicy;
  denyRanges?: readonly string[];
  /** Never lifts a deny, a cloud endpoint or the host's own addresses. */
  allowRanges?: readonly string[];
  ownAddresses?: readonly string[];
  /** True for anything of value (a payment); otherwise TLS faults are only recorded (S1). */
  requireValidTls?: boolean;
  ca?: string | string[];
  signal?: AbortSignal;
}

export interface TlsInfo {
  valid: boolean;
  daysToExpiry: number | null;
  authorizationError?: string;
  validTo?: string;
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
  url: string;
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  /** Decoded. */
  body: Uint8Array;
  bodyTruncated: boolean;
  contentType: string | null;
  sniffedType: SniffedType;
  contentTypeMatches: boolean;
  ttfbMs: number;
  totalMs: number;
  tls: TlsInfo | null;
  redirects: RedirectRecord[];
  address: string;
}

export interface SafeFetchRefusal {
  ok: false;
  refusal: RefusalCode;
  cause?: RefusalCode;
  detail: string;
  url: string;
  stage: SafeFetchStage;
  redirects?: RedirectRecord[];
  /** `dns_failed`: the resolver's error code (`ENODATA`: it answered no address). */
  resolverError?: string;
}

export interface SafeFetchFailure {
  ok: false;
  error: SafeFetchErrorCode;
  detail: string;
  /** The deadline ran out while resolving: `ETIMEOUT`. */
  resolverError?: string;
  url: string;
  ttfbMs?: number;
  /** After the head arrived (the probe keeps a 402's headers). */
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
