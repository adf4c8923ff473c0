/** The operator's reference hosts (TOLLGATE_MONITOR_REFERENCES): when none answers, an outage is ours, not the sellers'. */
import { safeFetch } from "./safe-fetch";

const REFERENCE_DEADLINE_MS = 5_000;

/** Whether any reference answered with any status; null when there are none to ask. */
export async function referencesAnswer(urls: readonly string[], deadlineMs = REFERENCE_DEADLINE_MS): Promise<boolean | null> {
  if (urls.length === 0) return null;
  // The operator's own list: each reference's host is allowed as the probe's loopback fixtures are.
  const allowHosts = urls.map((u) => new URL(u).host);
  const answers = await Promise.all(urls.map((u) => safeFetch(u, { allowHosts, deadlineMs }).then((r) => r.ok)));
  return answers.some(Boolean);
}
