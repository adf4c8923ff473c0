/**
 * The signer's send queue: one send at a time, each caller's sends in order, callers served
 * round-robin, so a caller's backlog delays another caller's send by at most one.
 */
import { describe, expect, it } from "vitest";
import { FairSendQueue } from "./send-queue";

describe("FairSendQueue", () => {
  it("runs one send at a time and serves callers round-robin, each in its own order", async () => {
    const q = new FairSendQueue();
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const send = (label: string) => async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 1));
      order.push(label);
      running--;
      return label;
    };
    const all = [
      ...["a1", "a2", "a3", "a4", "a5"].map((l) => q.enqueue("a", send(l))),
      ...["b1", "b2"].map((l) => q.enqueue("b", send(l))),
      q.enqueue("c", send("c1")),
    ];
    expect(q.pending()).toBe(7);
    expect(await Promise.all(all)).toEqual(["a1", "a2", "a3", "a4", "a5", "b1", "b2", "c1"]);
    expect(most).toBe(1);
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4", "a5"]);
    // c1 arrived behind a1 (in flight) and six queued sends, and waited for one of them (b1).
    expect(q.history().find((r) => r.caller === "c")).toEqual({ caller: "c", waitedSends: 1 });
  });

  it("a failed send rejects its own caller only; the queue goes on", async () => {
    const q = new FairSendQueue();
    const bad = q.enqueue("a", async () => {
      throw new Error("nonce too low");
    });
    const good = q.enqueue("b", async () => "sent");
    await expect(bad).rejects.toThrow("nonce too low");
    expect(await good).toBe("sent");
    expect(q.pending()).toBe(0);
  });

  it("a caller arriving behind another's backlog goes next", async () => {
    const q = new FairSendQueue();
    let release!: () => void;
    const first = q.enqueue("flood", () => new Promise<string>((r) => (release = () => r("f0"))));
    const flood = Array.from({ length: 100 }, (_, i) => q.enqueue("flood", async () => `f${i + 1}`));
    const real = q.enqueue("real", async () => "real");
    release();
    await Promise.all([first, real, ...flood]);
    const h = q.history();
    expect(h.findIndex((r) => r.caller === "real")).toBe(1);
    // Only the send in flight when it arrived went before it (not counted): it waited for none of the 100.
    expect(h.find((r) => r.caller === "real")!.waitedSends).toBe(0);
  });
});
