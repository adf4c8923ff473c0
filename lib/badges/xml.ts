/**
 * A tiny escaping XML element builder for the badge renderer (docs/spec/style.md practice 9, after badge-maker's
 * `XmlElement`). Every piece of text and every attribute value goes through `escapeText`/`escapeAttr`
 * here, so no caller ever concatenates user text into markup. Element and attribute names are checked
 * against a strict pattern: they are ours, but a typo should fail loudly rather than emit broken SVG.
 *
 * Differences from badge-maker, on purpose:
 *  - characters that XML 1.0 cannot carry at all (C0 controls, lone surrogates, U+FFFE/U+FFFF) are
 *    dropped instead of emitted, because a single one makes the whole document unparseable;
 *  - no whitespace-stripping regex over the output (badge-maker runs one per element; we never emit
 *    insignificant whitespace in the first place, which is also why we are faster);
 *  - `Prerendered` lets a renderer cache a fragment it built with this builder (style gradients,
 *    filters) without reopening the door to raw strings: it can only be made from an `XmlElement`.
 */

export type AttrValue = string | number;
export type XmlChild = XmlElement | Prerendered | string | null | undefined | false;

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;

// Anything XML 1.0 forbids in character data: C0 controls except TAB/LF/CR, U+FFFE, U+FFFF, and
// unpaired surrogates (which cannot be encoded as UTF-8 at all).
const XML_ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT_SPECIAL = /[&<>]/;
const ATTR_SPECIAL = /[&<>"'\t\n\r]/;

const ENTITY: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  // Attribute-value normalisation would turn raw TAB/LF/CR into spaces; character references keep them.
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

// A cheap pre-check without lookarounds: any control, any surrogate at all, U+FFFE/U+FFFF. Only text
// that has one pays for the exact (lookaround) pass, which keeps long ASCII (the envelope JSON) fast.
const MAYBE_ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

function dropIllegal(s: string): string {
  return MAYBE_ILLEGAL.test(s) ? s.replace(XML_ILLEGAL, "") : s;
}

/** Escape character data (element content). `>` is escaped too, so `]]>` can never appear. */
export function escapeText(s: string): string {
  const clean = dropIllegal(s);
  return TEXT_SPECIAL.test(clean) ? clean.replace(/[&<>]/g, (c) => ENTITY[c]) : clean;
}

/** Escape an attribute value for use inside double quotes. */
export function escapeAttr(s: string): string {
  const clean = dropIllegal(s);
  return ATTR_SPECIAL.test(clean) ? clean.replace(/[&<>"'\t\n\r]/g, (c) => ENTITY[c]) : clean;
}

function attrString(v: AttrValue): string {
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new RangeError(`xml: non-finite attribute value ${v}`);
    return String(v);
  }
  return escapeAttr(v);
}

/** A fragment rendered by this builder, kept as a string so hot paths can reuse it. */
export class Prerendered {
  readonly #markup: string;
  private constructor(markup: string) {
    this.#markup = markup;
  }
  /** The only way in: render an element we built. */
  static of(...elements: XmlElement[]): Prerendered {
    let out = "";
    for (const e of elements) out += e.render();
    return new Prerendered(out);
  }
  toString(): string {
    return this.#markup;
  }
}

export class XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, AttrValue | undefined>>;
  readonly children: readonly XmlChild[];

  constructor(name: string, attrs: Record<string, AttrValue | undefined> = {}, children: readonly XmlChild[] = []) {
    if (!NAME.test(name)) throw new RangeError(`xml: invalid element name ${JSON.stringify(name)}`);
    for (const k of Object.keys(attrs)) {
      if (!NAME.test(k)) throw new RangeError(`xml: invalid attribute name ${JSON.stringify(k)}`);
    }
    this.name = name;
    this.attrs = attrs;
    this.children = children;
  }

  render(): string {
    let out = "<" + this.name;
    for (const k in this.attrs) {
      const v = this.attrs[k];
      if (v === undefined) continue; // optional attributes are simply left out
      out += " " + k + '="' + attrString(v) + '"';
    }
    let inner = "";
    for (const c of this.children) {
      if (c === null || c === undefined || c === false) continue;
      if (typeof c === "string") inner += escapeText(c);
      else if (c instanceof XmlElement) inner += c.render();
      else inner += c.toString(); // Prerendered: already built and escaped by this module
    }
    return inner.length === 0 ? out + "/>" : out + ">" + inner + "</" + this.name + ">";
  }
}

/** Shorthand: `el("rect", {width: 10})`, `el("text", {x: 1}, "label")`. */
export function el(name: string, attrs: Record<string, AttrValue | undefined> = {}, ...children: XmlChild[]): XmlElement {
  return new XmlElement(name, attrs, children);
}

/**
 * Undo the escaping above (and the other standard forms a re-serialising tool may produce: decimal
 * and hex character references, CDATA sections). Used by the verifier when it reads a badge back.
 * Returns null for an unknown or malformed entity rather than guessing.
 */
export function unescapeXml(s: string): string | null {
  const CDATA = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
  let out = "";
  let last = 0;
  for (let m = CDATA.exec(s); m !== null; m = CDATA.exec(s)) {
    const before = unescapeEntities(s.slice(last, m.index));
    if (before === null) return null;
    out += before + m[1]; // CDATA content is literal
    last = m.index + m[0].length;
  }
  const rest = unescapeEntities(s.slice(last));
  return rest === null ? null : out + rest;
}

const NAMED = new Map<string, string>([["amp", "&"], ["lt", "<"], ["gt", ">"], ["quot", '"'], ["apos", "'"]]);

function unescapeEntities(s: string): string | null {
  if (s.indexOf("&") === -1) return s;
  let bad = false;
  const out = s.replace(/&([^;&\s]{0,10});|&/g, (m, name?: string) => {
    if (name === undefined) {
      bad = true; // a bare ampersand is not well-formed XML
      return m;
    }
    const named = NAMED.get(name);
    if (named !== undefined) return named;
    const hex = /^#x([0-9A-Fa-f]{1,6})$/.exec(name);
    const dec = hex ? null : /^#([0-9]{1,7})$/.exec(name);
    const cp = hex ? parseInt(hex[1], 16) : dec ? parseInt(dec[1], 10) : NaN;
    if (cp >= 0 && cp <= 0x10ffff) return String.fromCodePoint(cp);
    bad = true;
    return m;
  });
  return bad ? null : out;
}
