import { Transform, Writable, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";

/**
 * Reads a body through its Content-Encoding chain with a cap on decoded bytes (and a looser wire cap); streamed
 * decoders stop a bomb within one chunk of the cap.
 */

export type BodyReadResult =
  | { ok: true; bytes: Uint8Array; truncated: boolean; wireBytes: number }
  | { ok: false; kind: "unsupported_encoding" | "decode_failed" | "stream_failed"; detail: string; error?: unknown; wireBytes: number };

class CapReached extends Error {}

const SUPPORTED = new Set(["gzip", "x-gzip", "deflate", "br", "identity"]);

/** Null if a coding is unsupported. */
export function parseContentEncoding(header: string | undefined): { codings: string[]; unsupported?: string } {
  if (!header) return { codings: [] };
  const codings = header
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c.length > 0);
  const unsupported = codings.find((c) => !SUPPORTED.has(c));
  return unsupported ? { codings, unsupported } : { codings: codings.filter((c) => c !== "identity") };
}

/** Servers send raw deflate too: decided on the first two bytes. */
function isZlibWrapped(first: Buffer | null): boolean {
  if (!first || first.length < 2) return true;
  return (first[0] & 0x0f) === 8 && ((first[0] << 8) | first[1]) % 31 === 0;
}

/** Put back so the pipeline still sees it. */
async function peekFirst(body: Readable): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const done = (chunk: Buffer | null) => {
      body.off("readable", onReadable);
      body.off("end", onEnd);
      body.off("error", onEnd);
      resolve(chunk);
    };
    const onReadable = () => {
      const chunk = body.read() as Buffer | null;
      if (chunk === null) return;
      body.unshift(chunk);
      done(chunk);
    };
    const onEnd = () => done(null);
    body.on("readable", onReadable);
    body.once("end", onEnd);
    body.once("error", onEnd);
  });
}

function decoderFor(coding: string, rawDeflate: boolean): Transform {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return rawDeflate ? zlib.createInflateRaw() : zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      throw new Error(`no decoder for ${coding}`);
  }
}

export async function readBody(
  body: Readable,
  contentEncoding: string | undefined,
  maxBodyBytes: number,
): Promise<BodyReadResult> {
  const { codings, unsupported } = parseContentEncoding(contentEncoding);
  let wireBytes = 0;
  if (unsupported) {
    body.on("error", () => undefined);
    body.destroy();
    return { ok: false, kind: "unsupported_encoding", detail: `unsupported content-encoding: ${unsupported}`, wireBytes };
  }
  if (codings.length === 0) return readPlain(body, maxBodyBytes);
  // Stops a stream of empty gzip members running until the deadline.
  const wireCap = maxBodyBytes + 64 * 1024;
  let wireTruncated = false;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      wireBytes += chunk.length;
      if (wireBytes > wireCap) {
        wireTruncated = true;
        const keep = chunk.length - (wireBytes - wireCap);
        if (keep > 0) this.push(chunk.subarray(0, keep));
        return cb(new CapReached("wire cap"));
      }
      cb(null, chunk);
    },
  });

  const parts: Buffer[] = [];
  let total = 0;
  let truncated = false;
  const collector = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const room = maxBodyBytes - total;
      if (chunk.length > room) {
        if (room > 0) parts.push(chunk.subarray(0, room));
        total = maxBodyBytes;
        truncated = true;
        return cb(new CapReached("body cap"));
      }
      parts.push(chunk);
      total += chunk.length;
      cb();
    },
  });

  // Reverse order of application.
  const order = codings.slice().reverse();
  const rawDeflate = order[0] === "deflate" && !isZlibWrapped(await peekFirst(body));
  const decoders = order.map((c, i) => decoderFor(c, i === 0 && rawDeflate));
  let decoding = false;
  for (const d of decoders) d.once("error", () => (decoding = true));

  try {
    await pipeline([body, counter, ...decoders, collector] as unknown as [Readable, Writable]);
    return { ok: true, bytes: concat(parts, total), truncated: false, wireBytes };
  } catch (err) {
    if (err instanceof CapReached) {
      return { ok: true, bytes: concat(parts, total), truncated: truncated || wireTruncated, wireBytes };
    }
    if (decoding || isZlibError(err)) {
      return { ok: false, kind: "decode_failed", detail: `content-encoding ${codings.join(", ")}: ${(err as Error).message}`, wireBytes };
    }
    return { ok: false, kind: "stream_failed", detail: (err as Error)?.message ?? String(err), error: err, wireBytes };
  } finally {
    body.on("error", () => undefined);
    body.destroy();
  }
}

/**
 * No coding: the bytes on the wire are the body, read from the stream's own events. Same results as the pipeline
 * (the cap, `truncated`, `wireBytes`, a failed stream) without a pipeline's abort controller, which is made and
 * aborted once per read: a tenth of a probe's transport (docs/BENCHMARKS.md "bench:probe").
 */
function readPlain(body: Readable, maxBodyBytes: number): Promise<BodyReadResult> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let total = 0;
    let wireBytes = 0;
    let done = false;
    const finish = (result: BodyReadResult) => {
      if (done) return;
      done = true;
      body.off("data", onData);
      body.off("end", onEnd);
      body.off("error", onError);
      body.off("close", onClose);
      body.on("error", () => undefined);
      body.destroy();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      wireBytes += chunk.length;
      const room = maxBodyBytes - total;
      if (chunk.length > room) {
        if (room > 0) parts.push(chunk.subarray(0, room));
        total = maxBodyBytes;
        finish({ ok: true, bytes: concat(parts, total), truncated: true, wireBytes });
        return;
      }
      parts.push(chunk);
      total += chunk.length;
    };
    const onEnd = () => finish({ ok: true, bytes: concat(parts, total), truncated: false, wireBytes });
    const onError = (err: unknown) => finish({ ok: false, kind: "stream_failed", detail: (err as Error)?.message ?? String(err), error: err, wireBytes });
    // Closed with neither an end nor an error: the pipeline's premature close.
    const onClose = () => setImmediate(() => onError(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" })));
    body.on("data", onData);
    body.once("end", onEnd);
    body.once("error", onError);
    body.once("close", onClose);
  });
}

function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("Z_") || code.startsWith("ERR_BROTLI") || code === "ERR__ERROR");
}

function concat(parts: Buffer[], total: number): Uint8Array {
  const out = Buffer.concat(parts, total);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
