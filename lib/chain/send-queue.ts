/**
 * The signer's send queue (docs/CHAIN.md "Sends, fairly"): one at a time, each after the node accepted the previous;
 * callers served round-robin.
 */

export interface SendRecord {
  caller: string;
  /** Sends started after this one arrived and before it (one in flight not counted). */
  waitedSends: number;
}

const HISTORY = 1000;

export class FairSendQueue {
  private readonly queues = new Map<string, Array<() => void>>();
  /** A caller goes to the back once served. */
  private readonly ring: string[] = [];
  private last: string | null = null;
  private busy = false;
  private started = 0;
  private readonly log: SendRecord[] = [];

  enqueue<T>(caller: string, send: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const arrivedAt = this.started;
      const job = () => {
        this.record({ caller, waitedSends: this.started - arrivedAt });
        this.started++;
        let sent: Promise<T>;
        try {
          sent = send();
        } catch (e) {
          sent = Promise.reject(e);
        }
        sent.then(resolve, reject).finally(() => {
          this.busy = false;
          this.pump();
        });
      };
      const queue = this.queues.get(caller);
      if (queue) queue.push(job);
      else {
        this.queues.set(caller, [job]);
        this.ring.push(caller);
      }
      this.pump();
    });
  }

  pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  history(): readonly SendRecord[] {
    return this.log;
  }

  private record(r: SendRecord): void {
    this.log.push(r);
    if (this.log.length > HISTORY) this.log.shift();
  }

  private pump(): void {
    if (this.busy || this.ring.length === 0) return;
    // A caller whose queue refilled while its send was in flight still waits for the callers already waiting.
    if (this.ring[0] === this.last && this.ring.length > 1) this.ring.push(this.ring.shift()!);
    const caller = this.ring.shift()!;
    const queue = this.queues.get(caller)!;
    const job = queue.shift()!;
    if (queue.length === 0) this.queues.delete(caller);
    else this.ring.push(caller);
    this.last = caller;
    this.busy = true;
    job();
  }
}
