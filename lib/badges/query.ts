/** The badge route's query (`style`, `label`, `logo`); anything else is refused by name, never silently defaulted. */
import { BADGE_STYLES, type BadgeStyle } from "./render";
import { isLogoName, LOGO_NAMES, type LogoName } from "./logos";
import { LABEL_RULE, labelRuleError } from "./label";
import { MAX_VISIBLE_CHARS, visibleText } from "./text";

export const BADGE_QUERY_PARAMS = ["style", "label", "logo"] as const;

export type BadgeQueryErrorCode = "unknown_parameter" | "duplicate_parameter" | "invalid_style" | "invalid_label" | "invalid_logo";

export interface BadgeQueryError {
  code: BadgeQueryErrorCode;
  param: string;
  message: string;
}

export type BadgeQuery = { ok: true; style: BadgeStyle; label?: string; logo?: LogoName } | { ok: false; error: BadgeQueryError };

/** Beyond this a raw label is a payload, not a label. */
const MAX_RAW_LABEL = 4 * MAX_VISIBLE_CHARS;

export function parseBadgeQuery(searchParams: URLSearchParams): BadgeQuery {
  const seen = new Set<string>();
  for (const name of searchParams.keys()) {
    if (!(BADGE_QUERY_PARAMS as readonly string[]).includes(name)) {
      // Echoed only as data, cut so it cannot flood a log.
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      return err("unknown_parameter", shown, `unknown query parameter "${shown}"; allowed: ${BADGE_QUERY_PARAMS.join(", ")}`);
    }
    if (seen.has(name)) return err("duplicate_parameter", name, `query parameter "${name}" given more than once`);
    seen.add(name);
  }
  const styleRaw = searchParams.get("style");
  let style: BadgeStyle = "flat";
  if (styleRaw !== null) {
    if (!(BADGE_STYLES as readonly string[]).includes(styleRaw)) {
      return err("invalid_style", "style", `style must be one of ${BADGE_STYLES.join(", ")}`);
    }
    style = styleRaw as BadgeStyle;
  }
  const logoRaw = searchParams.get("logo");
  let logo: LogoName | undefined;
  if (logoRaw !== null) {
    if (!isLogoName(logoRaw)) return err("invalid_logo", "logo", `logo must be one of ${LOGO_NAMES.join(", ")}`);
    logo = logoRaw;
  }
  const withLogo = logo ? { logo } : {};
  const labelRaw = searchParams.get("label");
  if (labelRaw === null) return { ok: true, style, ...withLogo };
  if (labelRaw.length > MAX_RAW_LABEL) return err("invalid_label", "label", `label must be at most ${MAX_RAW_LABEL} characters`);
  const label = visibleText(labelRaw);
  if (label === "") return err("invalid_label", "label", "label must contain visible characters");
  const why = labelRuleError(label);
  if (why) return err("invalid_label", "label", `label breaks the label rule (${LABEL_RULE}): ${why}`);
  return { ok: true, style, label, ...withLogo };
}

function err(code: BadgeQueryErrorCode, param: string, message: string): BadgeQuery {
  return { ok: false, error: { code, param, message } };
}
