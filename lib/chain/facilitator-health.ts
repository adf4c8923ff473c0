/**
 * When Tollgate's own facilitator could not reach its chain: a short in-process log the router reads
 * to tell a seller's failure from the house facilitator's outage (docs/ROUTER.md "Whose failure it is").
 */
const WINDOW_MS = 10 * 60_000;
const outages: number[] = [];

/** Note one outage of the house facilitator's chain calls. */
export function noteFacilitatorOutage(at: number = Date.now()): void {
  outages.push(at);
  while (outages.length > 0 && outages[0] < at - WINDOW_MS) outages.shift();
  if (outages.length > 1_000) outages.splice(0, outages.length - 1_000);
}

/** Did the house facilitator meet an outage between `from` and `to` (ms since the epoch)? */
export function facilitatorOutageBetween(from: number, to: number): boolean {
  return outages.some((t) => t >= from && t <= to);
}
