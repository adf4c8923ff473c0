/**
 * One closed set of error codes, mapped to HTTP status in one place (docs/spec/style.md practice 4).
 * Domain code throws or returns AppError; route handlers turn it into a response with toResponse().
 */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_document: 400,
  refused_target: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  lease_lost: 409,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  /** JSON pointer of the offending field, when there is one. */
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

/** Map any thrown value to a JSON response; unknown errors become a bare 500 without internals. */
export function toResponse(e: unknown): Response {
  if (isAppError(e)) return Response.json(e.toJSON(), { status: e.status });
  console.error(e);
  return Response.json({ error: { code: "internal", message: "Something went wrong on our side." } }, { status: 500 });
}

/** Read a JSON request body without trusting it: a bad body is a 400 naming the problem. */
export async function readJson(req: Request, maxBytes = 1 << 20): Promise<unknown> {
  const text = await req.text();
  if (text.length > maxBytes) throw new AppError("bad_request", `request body is over ${maxBytes} bytes`);
  if (!text.trim()) throw new AppError("bad_request", "request body is empty; expected JSON", [{ pointer: "", message: "empty body" }]);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("bad_request", `request body is not JSON: ${(e as Error).message}`, [{ pointer: "", message: "not JSON" }]);
  }
}
