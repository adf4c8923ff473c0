/** What a seller can do about each refusal (codes: lib/net/types.ts). */
const ADVICE: Record<string, string> = {
  invalid_url: "Paste an absolute URL such as https://api.example.com/.",
  ambiguous_url: "Remove backslashes, spaces and control characters from the URL.",
  scheme_not_allowed: "Use an https:// URL. Plain http is only accepted for the local demo sellers.",
  credentials_in_url: "Remove the user name and password (user:pass@) from the URL; the catalog never sends credentials.",
  query_not_allowed: "Remove the query string (everything from ?); submit the service's base URL or discovery document.",
  fragment_not_allowed: "Remove the fragment (everything from #).",
  host_forbidden: "Use the service's public host name; local names (localhost, *.local, *.internal) cannot be probed.",
  ip_literal_forbidden: "Use a public host name rather than a private or reserved IP address.",
  host_not_allowlisted: "This deployment only probes the hosts on its allow list (TOLLGATE_PROBE_ALLOW_HOSTS, e.g. the local demo sellers); submit one of those, or ask the operator to allow your host.",
  port_not_allowed: "Serve the API on port 443 (https), or use a URL without a port.",
  dns_failed: "Check the host name resolves publicly, then retry.",
  address_forbidden: "The host resolves to a private address; publish it on a public address.",
  redirect_limit: "Point the URL straight at the service; it redirected too many times.",
  redirect_off_host: "Submit the URL the service redirects to; redirects to another host are not followed.",
  redirect_forbidden: "The service redirected to a URL the catalog may not fetch; submit the final https URL.",
};

export function refusalAdvice(code: string): string {
  return ADVICE[code] ?? "Check that the URL is public and answers over https, then retry.";
}
