/**
 * Response helpers for the fixture sellers. The 402s are encoded with @x402/core's own
 * `encodePaymentRequiredHeader` and mppx's own `Challenge.serialize`, so the bytes on the wire are
 * the bytes real sellers built on those libraries send.
 */
import type { ServerResponse } from "node:http";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": String(body.length), ...headers });
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, text: string | Buffer, contentType: string, headers: Record<string, string> = {}): void {
  const body = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  res.writeHead(status, { "content-type": contentType, "content-length": String(body.length), ...headers });
  res.end(body);
}

/**
 * An x402 v2 402. `body` chooses what travels in the body: "same" echoes the challenge (as the agent-verdict
 * product's seller does (docs/spec/products.md), so C4 can compare), "none" sends a small JSON error, or an explicit value.
 */
export function sendX402(res: ServerResponse, paymentRequired: PaymentRequired, body: "same" | "none" | unknown = "none", headerValue?: string): void {
  const header = headerValue ?? encodePaymentRequiredHeader(paymentRequired);
  const payload = body === "same" ? paymentRequired : body === "none" ? { error: "payment_required", x402: "see the PAYMENT-REQUIRED header" } : body;
  sendJson(res, 402, payload, { "payment-required": header, "cache-control": "no-store" });
}

export function notFound(res: ServerResponse, what = "not found"): void {
  sendJson(res, 404, { error: "not_found", detail: what });
}

/** The request body as JSON, or a typed failure (the seller answers 400 with it). */
export function parseJsonBody(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (body.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}
