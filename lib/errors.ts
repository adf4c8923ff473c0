/** One closed set of error codes, mapped to HTTP status in one place; routes answer AppError with toResponse(). */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_document: 400,
  refused_target: 400,
  unauthorized: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  root_not_published: 404,
  conflict: 409,
  duplicate_listing: 409,
  lease_lost: 409,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  misdirected_request: 421,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  pointer?: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    public readonly code: ErrorCode,
    message: string,
    public readonly details: ErrorDetail[] = [],
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AppError";
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  toJSON() {
    return { error: { code: this.code, message: this.message, details: this.details, ...this.extra } };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Unknown errors become a bare 500 without internals. */
export function toResponse(e: unknown): Response {
  if (isAppError(e)) return Response.json(e.toJSON(), { status: e.status, headers: headersFor(e) });
  console.error(e);
  return Response.json({ error: { code: "internal", message: "Something went wrong on our side." } }, { status: 500 });
}

/** A 429's Retry-After; a missing scope's challenge (RFC 6750 §3). */
function headersFor(e: AppError): Record<string, string> {
  if (e.code === "rate_limited" && typeof e.extra.retryAfterSeconds === "number") return { "retry-after": String(Math.max(1, Math.ceil(e.extra.retryAfterSeconds))) };
  if (e.code === "insufficient_scope" && typeof e.extra.requiredScope === "string") return { "www-authenticate": `Bearer realm="tollgate", error="insufficient_scope", scope="${e.extra.requiredScope}"` };
  return {};
}
