/** A bad badge URL still answers a badge naming the error (letters only), with its status; never signed or cached long. */
import { isAppError, type ErrorCode } from "@/lib/errors";
import { renderBadge, type BadgeStyle, BADGE_STYLES } from "./render";
import { DEFAULT_LABEL } from "./label";

/** shields' "red" for a malformed URL, "lightgrey" for one that names nothing. */
const INVALID_COLOR = "#e05d44";
const MISSING_COLOR = "#9f9f9f";

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
  error: string;
}

export function errorBadge(e: unknown, style: string | null): ErrorBadge {
  const err = isAppError(e) ? e : null;
  const code: ErrorCode | "internal" = err?.code ?? "internal";
  const reason = typeof err?.extra.reason === "string" ? err.extra.reason : null;
  const value = (reason && VALUES[reason]) ?? VALUES[code] ?? "server error";
  const shown: BadgeStyle = style !== null && (BADGE_STYLES as readonly string[]).includes(style) ? (style as BadgeStyle) : "flat";
  const color = code === "bad_request" ? INVALID_COLOR : MISSING_COLOR;
  // The title is the whole message, so the SVG names the parameter or listing.
  const svg = renderBadge({ style: shown, label: DEFAULT_LABEL, value, color, title: err ? err.message : "Something went wrong on our side." });
  return { status: err?.status ?? 500, svg, error: reason ? `${code}:${reason}` : code };
}

export function errorBadgeResponse(e: unknown, style: string | null, headers: Record<string, string> = {}): Response {
  if (!isAppError(e)) console.error(e);
  const b = errorBadge(e, style);
  return new Response(b.svg, {
    status: b.status,
    headers: { ...headers, "content-type": "image/svg+xml; charset=utf-8", "cache-control": "no-cache, max-age=0", "x-tollgate-error": b.error },
  });
}

