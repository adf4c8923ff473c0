import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readBody } from "./read-body";

/** A body as undici hands it over: chunks, then an end, an error or a bare close. */
function stream(chunks: Buffer[], ending: "end" | "error" | "close" = "end"): Readable {
  let i = 0;
  const r = new Readable({
    read() {
      if (i < chunks.length) return void this.push(chunks[i++]);
      if (ending === "end") this.push(null);
      else if (ending === "error") this.destroy(new Error("socket hang up"));
      else this.destroy();
    },
  });
  return r;
}

const bytes = (n: number, fill = 0x61) => Buffer.alloc(n, fill);

describe("readBody without a content coding reads the stream's own events (the pipeline's results)", () => {
  it.each([
    ["under the cap", [bytes(10), bytes(10)], 64, { truncated: false, length: 20, wireBytes: 20 }],
    ["exactly the cap, over two chunks", [bytes(32), bytes(32)], 64, { truncated: false, length: 64, wireBytes: 64 }],
    ["one byte over, in the second chunk", [bytes(32), bytes(33)], 64, { truncated: true, length: 64, wireBytes: 65 }],
    ["a first chunk past the cap", [bytes(100)], 64, { truncated: true, length: 64, wireBytes: 100 }],
    ["empty", [], 64, { truncated: false, length: 0, wireBytes: 0 }],
  ] as const)("%s", async (_name, chunks, cap, want) => {
    const plain = await readBody(stream([...chunks]), undefined, cap);
    expect(plain).toMatchObject({ ok: true, truncated: want.truncated, wireBytes: want.wireBytes });
    if (plain.ok) expect(plain.bytes.length).toBe(want.length);
    // The same bytes through the decoding pipeline ("identity" is no coding: the plain path too).
    expect(await readBody(stream([...chunks]), "identity", cap)).toEqual(plain);
    // gzip: the decoded body is the same bytes, cut at the same cap.
    const zipped = await readBody(stream([gzipSync(Buffer.concat([...chunks]))]), "gzip", cap);
    expect(zipped.ok && Buffer.from(zipped.bytes).equals(Buffer.from(plain.ok ? plain.bytes : []))).toBe(true);
  });

  it("an error mid-body is stream_failed with the error and the bytes seen", async () => {
    const r = await readBody(stream([bytes(5)], "error"), undefined, 64);
    expect(r).toMatchObject({ ok: false, kind: "stream_failed", detail: "socket hang up", wireBytes: 5 });
    if (!r.ok) expect(r.error).toBeInstanceOf(Error);
  });

  it("a close with neither end nor error is stream_failed (premature close), as in the pipeline", async () => {
    const r = await readBody(stream([bytes(5)], "close"), undefined, 64);
    expect(r).toMatchObject({ ok: false, kind: "stream_failed", detail: "Premature close", wireBytes: 5 });
  });

  it("leaves the body destroyed whichever way it ends", async () => {
    for (const [chunks, ending, cap] of [[[bytes(3)], "end", 64], [[bytes(100)], "end", 64], [[bytes(3)], "error", 64]] as const) {
      const body = stream([...chunks], ending);
      await readBody(body, undefined, cap);
      expect(body.destroyed).toBe(true);
    }
  });
});
