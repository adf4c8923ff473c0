/**
 * A short in-process log of the house facilitator's chain outages, so the router tells a seller's failure from ours
 * (docs/ROUTER.md "Whose failure it is").
 */
const WINDOW_MS = 10 * 60_000;
const outages: number[] = [];

export function noteFacilitatorOutage(at: number = Date.now()): void {
  outages.push(at);
  while (outages.length > 0 && outages[0] < at - WINDOW_MS) outages.shift();
  if (outages.length > 1_000) outages.splice(0, outages.length - 1_000);
}

/** `from`, `to`: epoch ms. */
export function facilitatorOutageBetween(from: number, to: number): boolean {
  return outages.some((t) => t >= from && t <= to);
}
