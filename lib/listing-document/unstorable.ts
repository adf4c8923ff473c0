/**
 * Why a string cannot be stored as PostgreSQL text, or null: no NUL, and no lone UTF-16 surrogate (no UTF-8 form). A
 * 400 naming the field instead of a 500.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function unstorableText(value: string): string | null {
  const nul = value.indexOf("\u0000");
  if (nul !== -1) return `contains a NUL character (U+0000) at index ${nul}, which cannot be stored`;
  const lone = LONE_SURROGATE.exec(value);
  if (lone) return `contains a lone surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}) at index ${lone.index}, which is not valid Unicode`;
  return null;
}
