/**
 * Why a string cannot be stored as text, or null: PostgreSQL text and jsonb hold no NUL (U+0000),
 * and a lone UTF-16 surrogate (U+D800–U+DFFF without its pair, which JSON's "\ud800" escape makes)
 * is not Unicode and has no UTF-8 form. Either used to reach the database and come back as a 500
 * (issue #20 item 6); now it is a 400 naming the field.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function unstorableText(value: string): string | null {
  const nul = value.indexOf("\u0000");
  if (nul !== -1) return `contains a NUL character (U+0000) at index ${nul}, which cannot be stored`;
  const lone = LONE_SURROGATE.exec(value);
  if (lone) return `contains a lone surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}) at index ${lone.index}, which is not valid Unicode`;
  return null;
}
