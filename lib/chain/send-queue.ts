/**
 * The facilitator signer's send queue (docs/CHAIN.md "Sends, fairly"): one signer has one nonce
 * sequence, so its transactions go out one at a time, each after the node accepted the previous one.
 * Each caller has its own FIFO and the queues are served round-robin, so a caller with a hundred sends
 * waiting delays another caller's next send by at most one of its own.
 */

export interface SendRecord {
  caller: string;
  /** Sends that started between this one's arrival and its own start (its wait, counted in sends). */
  waitedSends: number;
}

/** How many of the latest sends `history()` keeps. */
const HISTORY = 1000;

export class FairSendQueue {
  private readonly queues = new Map<string, Array<() => void>>();
  /** Callers in the order they are served; a caller is removed when its queue empties. */
  private readonly ring: string[] = [];
  private next = 0;
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
        send().then(resolve, reject).finally(() => {
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
    if (this.next >= this.ring.length) this.next = 0;
    const caller = this.ring[this.next];
    const queue = this.queues.get(caller)!;
    const job = queue.shift()!;
    if (queue.length === 0) {
      this.queues.delete(caller);
      this.ring.splice(this.next, 1);
    } else {
      this.next++;
    }
    this.busy = true;
    job();
  }
}
