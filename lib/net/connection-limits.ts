/**
 * Caps on outbound connections in flight, per host and in total, per process (docs/SSRF.md "Connection caps"): over a
 * cap a request waits in one FIFO before its deadline starts; a full queue or a long wait is `connection_limit`.
 * Limits from TOLLGATE_NET_MAX_CONNECTIONS(_PER_HOST) and TOLLGATE_NET_MAX_QUEUED.
 */

export interface ConnectionLimits {
  total: number;
  perHost: number;
  maxQueued: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { total: 64, perHost: 8, maxQueued: 1024 };

let override: Partial<ConnectionLimits> | null = null;

/** Wins over the environment; no argument clears. */
export function configureConnectionLimits(limits?: Partial<ConnectionLimits>): void {
  override = limits ?? null;
}

function positiveInt(value: string | undefined, fallback: number): number {
  if (value === undefined || !/^[1-9]\d{0,6}$/.test(value.trim())) return fallback;
  return Number(value);
}

export function currentConnectionLimits(): ConnectionLimits {
  return {
    total: override?.total ?? positiveInt(process.env.TOLLGATE_NET_MAX_CONNECTIONS, DEFAULT_CONNECTION_LIMITS.total),
    perHost: override?.perHost ?? positiveInt(process.env.TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST, DEFAULT_CONNECTION_LIMITS.perHost),
    maxQueued: override?.maxQueued ?? positiveInt(process.env.TOLLGATE_NET_MAX_QUEUED, DEFAULT_CONNECTION_LIMITS.maxQueued),
  };
}

interface Waiter {
  host: string;
  grant: () => void;
}

let active = 0;
const perHost = new Map<string, number>();
const queue: Waiter[] = [];

/** Metrics and tests. */
export function connectionsInFlight(): { total: number; perHost: Record<string, number>; queued: number } {
  return { total: active, perHost: Object.fromEntries(perHost), queued: queue.length };
}

function fits(host: string, limits: ConnectionLimits): boolean {
  return active < limits.total && (perHost.get(host) ?? 0) < limits.perHost;
}

function take(host: string): () => void {
  active++;
  perHost.set(host, (perHost.get(host) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    active--;
    const n = (perHost.get(host) ?? 1) - 1;
    if (n <= 0) perHost.delete(host);
    else perHost.set(host, n);
    drain();
  };
}

/** Arrival order, skipping hosts still at their cap. */
function drain(): void {
  const limits = currentConnectionLimits();
  for (let i = 0; i < queue.length && active < limits.total; ) {
    const w = queue[i];
    if (fits(w.host, limits)) {
      queue.splice(i, 1);
      w.grant();
    } else i++;
  }
}

export type SlotResult =
  | { ok: true; release: () => void; waitedMs: number }
  | { ok: false; kind: "queue_full"; detail: string }
  | { ok: false; kind: "queue_timeout"; detail: string }
  | { ok: false; kind: "aborted"; detail: string };

/** `host` lower-cased. */
export function acquireConnectionSlot(host: string, signal: AbortSignal | undefined, maxWaitMs: number): Promise<SlotResult> {
  const limits = currentConnectionLimits();
  const started = Date.now();
  if (signal?.aborted) return Promise.resolve({ ok: false, kind: "aborted", detail: `aborted before a connection slot to ${host}` });
  // Straight through when there is room and no waiter for this host is ahead.
  if (fits(host, limits) && !queue.some((w) => w.host === host)) return Promise.resolve({ ok: true, release: take(host), waitedMs: 0 });
  if (queue.length >= limits.maxQueued) {
    return Promise.resolve({
      ok: false,
      kind: "queue_full",
      detail: `${limits.maxQueued} requests already wait for a connection (caps: ${limits.total} in total, ${limits.perHost} per host; ${active} in flight, ${perHost.get(host) ?? 0} to ${host})`,
    });
  }
  return new Promise<SlotResult>((resolve) => {
    const leave = (kind: "aborted" | "queue_timeout", why: string) => {
      const at = queue.indexOf(waiter);
      if (at !== -1) queue.splice(at, 1);
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve({ ok: false, kind, detail: `${why} after ${Date.now() - started} ms in the queue for a connection slot to ${host} (caps: ${limits.total} in total, ${limits.perHost} per host)` });
    };
    const waiter: Waiter = {
      host,
      grant: () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve({ ok: true, release: take(host), waitedMs: Date.now() - started });
      },
    };
    const onAbort = () => leave("aborted", "aborted by the caller");
    const timer = setTimeout(() => leave("queue_timeout", "no slot"), maxWaitMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    queue.push(waiter);
  });
}
