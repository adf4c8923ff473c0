import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isAppError, toResponse } from "@/lib/errors";
import { readBody, readBodyBytes, readJson } from "@/lib/http";

/** A request whose body is `chunks` chunks of `size` bytes, made on demand, counting how many were pulled. */
function streamed(chunks: number, size: number, headers: Record<string, string> = {}) {
  const pulled = { chunks: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.chunks === chunks) return controller.close();
      pulled.chunks++;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
    highWaterMark: 0,
  } as UnderlyingDefaultSource<Uint8Array>);
  const req = new Request("http://localhost/x", { method: "POST", headers, body, duplex: "half" } as RequestInit);
  return { req, pulled };
}

async function refusal(p: Promise<unknown>) {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!isAppError(e)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}

describe("readBodyBytes: one bounded read for every route", () => {
  it("refuses a declared Content-Length over the limit before reading a byte", async () => {
    const { req, pulled } = streamed(3200, 64 << 10, { "content-length": String(200 << 20) });
    await new Promise((r) => setTimeout(r, 10));
    // The Request's own stream may fill its queue with one chunk on construction; the read adds none.
    const before = pulled.chunks;
    expect(before).toBeLessThanOrEqual(1);
    const e = await refusal(readBodyBytes(req, 1 << 20, "a listing document"));
    expect(e.status).toBe(413);
    expect(e.code).toBe("payload_too_large");
    expect(e.message).toMatch(/Content-Length declares more than the 1 MiB \(1048576-byte\) limit for a listing document/);
    expect(e.extra).toMatchObject({ reason: "body_too_large", limitBytes: 1 << 20 });
    await new Promise((r) => setTimeout(r, 10));
    expect(pulled.chunks).toBe(before);
  });

  it("counts a body without Content-Length as it streams and stops at the first chunk past the limit", async () => {
    const { req, pulled } = streamed(3200, 64 << 10);
    const e = await refusal(readBodyBytes(req, 1 << 20));
    expect(e.status).toBe(413);
    expect(e.message).toMatch(/the body ran past the 1 MiB/);
    // 16 chunks of 64 KiB fill the limit; the 17th passes it and the read stops there.
    expect(pulled.chunks).toBeLessThanOrEqual(18);
  });

  it("reads a body of exactly the limit, whole", async () => {
    const { req } = streamed(16, 64 << 10);
    expect((await readBodyBytes(req, 1 << 20)).byteLength).toBe(1 << 20);
  });

  it("a malformed Content-Length is a 400 naming it; a missing body is empty", async () => {
    const bad = new Request("http://localhost/x", { method: "POST", headers: { "content-length": "lots" }, body: "{}" });
    expect(await refusal(readBodyBytes(bad, 100))).toMatchObject({ code: "bad_request", extra: { reason: "content_length_invalid" } });
    expect((await readBodyBytes(new Request("http://localhost/x", { method: "POST" }), 100)).byteLength).toBe(0);
  });

  it("readJson and readBody: too large 413, not UTF-8, empty or not JSON 400, a bad field 400 by pointer", async () => {
    const post = (body: BodyInit) => new Request("http://localhost/x", { method: "POST", body });
    expect((await refusal(readJson(post("x".repeat(101)), 100))).status).toBe(413);
    expect(await refusal(readJson(post(new Uint8Array([0x7b, 0xff, 0x7d])), 100))).toMatchObject({ code: "bad_request", extra: { reason: "body_not_utf8" } });
    expect((await refusal(readJson(post("  "), 100))).message).toMatch(/empty/);
    expect((await refusal(readJson(post("{nope"), 100))).message).toMatch(/not JSON/);
    const e = await refusal(readBody(post('{"n":"x"}'), z.object({ n: z.number() }), 100));
    expect(e.details[0].pointer).toBe("/n");
    expect(await readBody(post('{"n":1}'), z.object({ n: z.number() }), 100)).toEqual({ n: 1 });
  });

  it("the 413 as a response names the limit", async () => {
    const { req } = streamed(1, 10, { "content-length": "999" });
    const res = toResponse(await refusal(readBodyBytes(req, 100)));
    expect(res.status).toBe(413);
    expect((await res.json()).error).toMatchObject({ code: "payload_too_large", limitBytes: 100 });
  });
});
