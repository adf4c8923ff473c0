/**
 * The X-Forwarded-For entry `trustedProxies` places from the right (docs/LIMITS.md "Who is counted"). A direct client
 * can pick its own; the deployment-wide ceilings hold whatever it claims.
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
