/**
 * The target check a door makes once (validateTarget's pure checks, no DNS) and the "already
 * checked" type it hands on: the queue and the draft take a CheckedTarget and do not check again.
 * safeFetch still guards every request it makes.
 */
import type { RefusalCode } from "./types";
import { validateTarget } from "./validate-target";

declare const checked: unique symbol;
/** A target URL that passed checkTarget: `raw` as submitted, `url` as parsed. Only checkTarget makes one. */
export type CheckedTarget = { readonly raw: string; readonly url: URL; readonly [checked]: true };

export type TargetCheck = { ok: true; target: CheckedTarget } | { ok: false; refusal: RefusalCode; detail: string };

/** validateTarget under the probe's allow-list (TOLLGATE_PROBE_ALLOW_HOSTS, passed in), not throwing. */
export function checkTarget(targetUrl: string, allowHosts: string[]): TargetCheck {
  const verdict = validateTarget(targetUrl, { allowHosts });
  if (!verdict.ok) return { ok: false, refusal: verdict.refusal, detail: verdict.detail };
  return { ok: true, target: { raw: targetUrl, url: verdict.url } as CheckedTarget };
}
