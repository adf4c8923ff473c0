/**
 * The facilitator signer's send queue (docs/CHAIN.md "Sends, fairly"): one signer has one nonce
 * sequence, so its transactions go out one at a time, each after the node accepted the previous one.
 * Each caller has its own FIFO and the queues are served round-robin, so a caller with a hundred sends
 * waiting delays another caller's next send by at most one of its own.
 */

export interface SendRecord {
  caller: string;
  /** Sends started after this one arrived and before it (its wait in sends; one already in flight is not counted). */
  waitedSends: number;
}

/** How many of the latest sends `history()` keeps. */
const HISTORY = 1000;

export class FairSendQueue {
  private readonly queues = new Map<string, Array<() => void>>();
  /** Callers waiting, in the order they are served next; a caller goes to the back once served. */
  private readonly ring: string[] = [];
  /** The caller served last: it goes after every other caller waiting. */
  private last: string | null = null;
  private busy = false;
  private started = 0;
  private readonly log: SendRecord[] = [];

  /** Run `send` for `caller` once it is that caller's turn; resolves or rejects with `send`'s outcome. */
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

  /** Sends waiting (not yet started), all callers together. */
  pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** The latest sends, oldest first. */
  history(): readonly SendRecord[] {
    return this.log;
  }

  private record(r: SendRecord): void {
    this.log.push(r);
    if (this.log.length > HISTORY) this.log.shift();
  }

  /** Start the next caller's head job, round-robin, when nothing is being sent. */
  private pump(): void {
    if (this.busy || this.ring.length === 0) return;
    // A caller whose queue emptied and refilled while its send was in flight rejoined the ring at
    // once; it still waits for the callers that were already waiting.
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
