/** The escaping XML element builder for badges: every text and attribute value is escaped here; `Prerendered` caches built fragments. */

export type AttrValue = string | number;
export type XmlChild = XmlElement | Prerendered | string | null | undefined | false;

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;

// Forbidden in XML 1.0 character data: C0 controls but TAB/LF/CR, U+FFFE/U+FFFF, unpaired surrogates.
const XML_ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT_SPECIAL = /[&<>]/;
const ATTR_SPECIAL = /[&<>"'\t\n\r]/;

const ENTITY: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  // Character references survive attribute-value normalisation; raw TAB/LF/CR would not.
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

// Cheap pre-check without lookarounds, so long ASCII (the envelope JSON) skips the exact pass.
const MAYBE_ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

function dropIllegal(s: string): string {
  return MAYBE_ILLEGAL.test(s) ? s.replace(XML_ILLEGAL, "") : s;
}

/** Character data; `>` escaped too, so `]]>` never appears. */
export function escapeText(s: string): string {
  const clean = dropIllegal(s);
  return TEXT_SPECIAL.test(clean) ? clean.replace(/[&<>]/g, (c) => ENTITY[c]) : clean;
}

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

export class Prerendered {
  readonly #markup: string;
  private constructor(markup: string) {
    this.#markup = markup;
  }
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
      if (v === undefined) continue;
      out += " " + k + '="' + attrString(v) + '"';
    }
    let inner = "";
    for (const c of this.children) {
      if (c === null || c === undefined || c === false) continue;
      if (typeof c === "string") inner += escapeText(c);
      else if (c instanceof XmlElement) inner += c.render();
      else inner += c.toString();
    }
    return inner.length === 0 ? out + "/>" : out + ">" + inner + "</" + this.name + ">";
  }
}

export function el(name: string, attrs: Record<string, AttrValue | undefined> = {}, ...children: XmlChild[]): XmlElement {
  return new XmlElement(name, attrs, children);
}

/** Undo the escaping (and entity, character reference and CDATA forms); null for a malformed entity. */
export function unescapeXml(s: string): string | null {
  const CDATA = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
  let out = "";
  let last = 0;
  for (let m = CDATA.exec(s); m !== null; m = CDATA.exec(s)) {
    const before = unescapeEntities(s.slice(last, m.index));
    if (before === null) return null;
    out += before + m[1];
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
      bad = true;
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
