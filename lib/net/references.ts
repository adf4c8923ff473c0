/** The operator's reference hosts (TOLLGATE_MONITOR_REFERENCES): when none answers, an outage is ours, not the sellers'. */
import { isIP } from "node:net";
import { safeFetch } from "./safe-fetch";

const REFERENCE_DEADLINE_MS = 5_000;

/** Our resolver failing (timed out, refused, broken), not its definite "no such name" (ENOTFOUND, ENODATA). */
const TRANSIENT = new Set(["ETIMEOUT", "ETIMEDOUT", "EAI_AGAIN", "EAI_FAIL", "ESERVFAIL", "ECONNREFUSED", "EREFUSED", "ECANCELLED", "EBADRESP", "ECONNRESET"]);
export const resolverFailed = (code: string | undefined): boolean => code !== undefined && TRANSIENT.has(code);

const named = (u: string) => isIP(new URL(u).hostname.replace(/^\[|\]$/g, "")) === 0;

/** Whether any reference answered with any status; null when none to ask (`resolver`: only those named by host). */
export async function referencesAnswer(urls: readonly string[], deadlineMs = REFERENCE_DEADLINE_MS, opts: { through?: "network" | "resolver" } = {}): Promise<boolean | null> {
  if (opts.through === "resolver") urls = urls.filter(named);
  if (urls.length === 0) return null;
  // The operator's own list: each reference's host is allowed as the probe's loopback fixtures are.
  const allowHosts = urls.map((u) => new URL(u).host);
  const answers = await Promise.all(urls.map((u) => safeFetch(u, { allowHosts, deadlineMs }).then((r) => r.ok)));
  return answers.some(Boolean);
}
