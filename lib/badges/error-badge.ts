/**
 * A badge URL that goes wrong still answers a badge, as shields.io's do: whoever embedded it sees
 * what is wrong where the badge should be ("listing not found", "invalid style"), and a client
 * reading the status gets the right one (404, 400, 503) instead of a broken image over a JSON body.
 * The value says the error in letters only (never a number beside "readiness", label.ts's reason);
 * the <title> and the X-Tollgate-Error header name it exactly. Never signed, never cached long.
 */
import { isAppError, type ErrorCode } from "@/lib/errors";
import { renderBadge, type BadgeStyle, BADGE_STYLES } from "./render";
import { DEFAULT_LABEL } from "./label";

/** shields' "red" for a badge URL written wrong; its "lightgrey" for one that names nothing or cannot be served. */
const INVALID_COLOR = "#e05d44";
const MISSING_COLOR = "#9f9f9f";

/** What the badge says for each refusal: the query's reasons first, then the error codes. */
const VALUES: Record<string, string> = {
  unknown_parameter: "unknown parameter",
  duplicate_parameter: "duplicate parameter",
  invalid_style: "invalid style",
  invalid_label: "invalid label",
  invalid_logo: "invalid logo",
  not_found: "listing not found",
  bad_request: "invalid request",
  unavailable: "badge unavailable",
  rate_limited: "rate limited",
};

export interface ErrorBadge {
  status: number;
  svg: string;
  /** "<code>" or "<code>:<reason>", for the X-Tollgate-Error header. */
  error: string;
}

/** The badge for an error the badge route met; `style` as asked when it was a valid one, else flat. */
export function errorBadge(e: unknown, style: string | null): ErrorBadge {
  const err = isAppError(e) ? e : null;
  const code: ErrorCode | "internal" = err?.code ?? "internal";
  const reason = typeof err?.extra.reason === "string" ? err.extra.reason : null;
  const value = (reason && VALUES[reason]) ?? VALUES[code] ?? "server error";
  const shown: BadgeStyle = style !== null && (BADGE_STYLES as readonly string[]).includes(style) ? (style as BadgeStyle) : "flat";
  const color = code === "bad_request" ? INVALID_COLOR : MISSING_COLOR;
  // The title is the whole message (cut by the renderer to 40 visible characters), so a reader of
  // the SVG learns which parameter or listing it was about.
  const svg = renderBadge({ style: shown, label: DEFAULT_LABEL, value, color, title: err ? err.message : "Something went wrong on our side." });
  return { status: err?.status ?? 500, svg, error: reason ? `${code}:${reason}` : code };
}

/** A Response carrying the error badge. */
export function errorBadgeResponse(e: unknown, style: string | null, headers: Record<string, string> = {}): Response {
  if (!isAppError(e)) console.error(e);
  const b = errorBadge(e, style);
  return new Response(b.svg, {
    status: b.status,
    headers: { ...headers, "content-type": "image/svg+xml; charset=utf-8", "cache-control": "no-cache, max-age=0", "x-tollgate-error": b.error },
  });
}

