/**
 * Deliveries by payment identifier (docs/spec/products.md "Agent verdict service: payment": "Retries
 * carrying the same payment identifier return the cached delivery with the same receipt: no second
 * settlement, no second work, no second delivery credit"). In memory, bounded, oldest out first.
 *
 * What is kept is what was delivered (the verdict envelope and its headers), bound to the request's
 * inputRoot; the deliverable is never kept: the envelope carries only its digest.
 */
export interface Delivery {
  inputRoot: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

type Entry = { state: "pending"; inputRoot: string } | { state: "delivered"; delivery: Delivery };

export class DeliveryStore {
  private entries = new Map<string, Entry>();
  constructor(private readonly max = 10_000) {}

  get(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  /** Claim an identifier for a payment in progress; false when it is already claimed or delivered. */
  begin(id: string, inputRoot: string): boolean {
    if (this.entries.has(id)) return false;
    this.entries.set(id, { state: "pending", inputRoot });
    this.trim();
    return true;
  }

  deliver(id: string, delivery: Delivery): void {
    this.entries.set(id, { state: "delivered", delivery });
    this.trim();
  }

  /** A payment that did not end in a delivery frees its identifier for another attempt. */
  abandon(id: string): void {
    if (this.entries.get(id)?.state === "pending") this.entries.delete(id);
  }

  /** Everything held, for inspection (tests read it to show no deliverable is kept). */
  snapshot(): Array<[string, Entry]> {
    return [...this.entries.entries()];
  }

  private trim() {
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
