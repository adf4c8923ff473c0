/**
 * Who an anonymous request is, for the per-address limits (docs/LIMITS.md "Who is counted"): an
 * entry of X-Forwarded-For. Next.js's own server sets the header from the socket when a request
 * arrives without one; a proxy in front appends the address it saw. So with `trustedProxies`
 * proxies the client is the entry that many places from the right (the rightmost with none or one).
 * A client talking to the server directly can send its own header and pick its own address; the
 * deployment-wide ceilings (nonceAll, verifyAll) hold whatever it claims.
 */
export function clientAddress(headers: Headers, trustedProxies: number): string {
  const entries = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const at = entries.length - Math.max(1, trustedProxies);
  const picked = entries[Math.max(0, at)];
  return picked ? picked.toLowerCase().slice(0, 64) : "unknown";
}
