/** The pure target check a door makes once, and the CheckedTarget type it hands on. */
import type { RefusalCode } from "./types";
import { validateTarget } from "./validate-target";

declare const checked: unique symbol;
/** Only checkTarget makes one. */
export type CheckedTarget = { readonly raw: string; readonly url: URL; readonly [checked]: true };

export type TargetCheck = { ok: true; target: CheckedTarget } | { ok: false; refusal: RefusalCode; detail: string };

/** Not throwing. */
export function checkTarget(targetUrl: string, allowHosts: string[]): TargetCheck {
  const verdict = validateTarget(targetUrl, { allowHosts });
  if (!verdict.ok) return { ok: false, refusal: verdict.refusal, detail: verdict.detail };
  return { ok: true, target: { raw: targetUrl, url: verdict.url } as CheckedTarget };
}
