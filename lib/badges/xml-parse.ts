/** A strict, non-validating XML 1.0 parser for the subset a badge can be, and the tree comparison the verifier uses. */

export interface XmlNode {
  name: string;
  /** Null prototype: "__proto__" is just a name. */
  attrs: Record<string, string>;
  /** Adjacent text, references and CDATA merged; comments dropped. */
  children: (XmlNode | string)[];
}

export class XmlSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} (at offset ${offset})`);
  }
}

const NAME_START = ":A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}";
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
const NAME = new RegExp(`[${NAME_START}][${NAME_CHAR}]*`, "uy");
const S = /[ \t\n]+/y;
const NOT_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const XML_DECL = /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.[0-9]+\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\3)?[ \t\n]*\?>/y;
const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const MAX_DEPTH = 32;

function isChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

export function parseXmlStrict(input: string): XmlNode {
  const src = input.replace(/\r\n?/g, "\n");
  const bad = NOT_CHAR.exec(src);
  if (bad) throw new XmlSyntaxError(`character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} is not allowed in XML`, bad.index);
  let i = 0;
  const fail = (message: string): never => {
    throw new XmlSyntaxError(message, i);
  };
  const sticky = (re: RegExp): string | null => {
    re.lastIndex = i;
    const m = re.exec(src);
    if (!m) return null;
    i = re.lastIndex;
    return m[0];
  };
  const name = (what: string): string => sticky(NAME) ?? fail(`expected ${what}`);

  const reference = (): string => {
    const end = src.indexOf(";", i);
    if (end === -1 || end - i > 12) fail("'&' must start an entity or character reference ending in ';'");
    const body = src.slice(i + 1, end);
    let out: string;
    if (body.startsWith("#x")) {
      if (!/^#x[0-9A-Fa-f]+$/.test(body)) fail(`malformed character reference &${body};`);
      const cp = parseInt(body.slice(2), 16);
      if (!isChar(cp)) fail(`&${body}; is not a character XML allows`);
      out = String.fromCodePoint(cp);
    } else if (body.startsWith("#")) {
      if (!/^#[0-9]+$/.test(body)) fail(`malformed character reference &${body};`);
      const cp = parseInt(body.slice(1), 10);
      if (!isChar(cp)) fail(`&${body}; is not a character XML allows`);
      out = String.fromCodePoint(cp);
    } else {
      if (!Object.hasOwn(PREDEFINED, body)) fail(`unknown entity &${body}; (only amp, lt, gt, quot and apos exist without a DOCTYPE)`);
      out = PREDEFINED[body];
    }
    i = end + 1;
    return out;
  };

  const comment = (): void => {
    const end = src.indexOf("-->", i + 4);
    if (end === -1) fail("unterminated comment");
    const body = src.slice(i + 4, end);
    if (body.includes("--") || body.endsWith("-")) fail("'--' inside a comment");
    i = end + 3;
  };

  const misc = (): void => {
    for (;;) {
      sticky(S);
      if (src.startsWith("<!--", i)) comment();
      else if (src.startsWith("<!DOCTYPE", i) || src.startsWith("<!doctype", i)) fail("a DOCTYPE is refused (no entity declarations in a badge)");
      else if (src.startsWith("<?", i)) fail("processing instructions are refused (a stylesheet could restyle the badge)");
      else return;
    }
  };

  const attrValue = (): string => {
    const q = src[i];
    if (q !== '"' && q !== "'") fail("attribute value must be quoted");
    i++;
    let out = "";
    for (;;) {
      if (i >= src.length) fail("unterminated attribute value");
      const c = src[i];
      if (c === q) return i++, out;
      if (c === "<") fail("'<' in an attribute value");
      if (c === "&") out += reference();
      else {
        out += c === "\t" || c === "\n" ? " " : c;
        i++;
      }
    }
  };

  const element = (depth: number): XmlNode => {
    if (depth > MAX_DEPTH) fail(`elements nested deeper than ${MAX_DEPTH}`);
    if (src[i] !== "<") fail("expected an element");
    i++;
    const tag = name("an element name");
    const attrs: Record<string, string> = Object.create(null);
    for (;;) {
      const space = sticky(S);
      if (src.startsWith("/>", i)) return (i += 2), { name: tag, attrs, children: [] };
      if (src[i] === ">") {
        i++;
        break;
      }
      if (space === null) fail(`expected whitespace, '>' or '/>' in <${tag}>`);
      const attr = name("an attribute name");
      if (attr in attrs) fail(`attribute ${attr} repeated on <${tag}>`);
      sticky(S);
      if (src[i] !== "=") fail(`expected '=' after attribute ${attr}`);
      i++;
      sticky(S);
      attrs[attr] = attrValue();
    }
    const children: (XmlNode | string)[] = [];
    let text = "";
    const flush = () => {
      if (text) children.push(text);
      text = "";
    };
    for (;;) {
      if (i >= src.length) fail(`<${tag}> is never closed`);
      if (src.startsWith("</", i)) {
        i += 2;
        const closing = name("an end-tag name");
        if (closing !== tag) fail(`</${closing}> closes <${tag}>`);
        sticky(S);
        if (src[i] !== ">") fail(`expected '>' to end </${closing}>`);
        i++;
        flush();
        return { name: tag, attrs, children };
      }
      if (src.startsWith("<!--", i)) comment();
      else if (src.startsWith("<![CDATA[", i)) {
        const end = src.indexOf("]]>", i + 9);
        if (end === -1) fail("unterminated CDATA section");
        text += src.slice(i + 9, end);
        i = end + 3;
      } else if (src.startsWith("<?", i)) fail("processing instructions are refused (a stylesheet could restyle the badge)");
      else if (src.startsWith("<!", i)) fail("markup declarations are refused");
      else if (src[i] === "<") {
        flush();
        children.push(element(depth + 1));
      } else if (src[i] === "&") text += reference();
      else {
        let end = i;
        while (end < src.length && src[end] !== "<" && src[end] !== "&") end++;
        const run = src.slice(i, end);
        const cdataEnd = run.indexOf("]]>");
        if (cdataEnd !== -1) {
          i += cdataEnd;
          fail("']]>' in character data");
        }
        text += run;
        i = end;
      }
    }
  };

  if (src.startsWith("<?xml", i) && /^<\?xml[ \t\n]/.test(src.slice(i, i + 6))) {
    if (sticky(XML_DECL) === null) fail("malformed XML declaration");
  }
  misc();
  const root = element(0);
  misc();
  if (i !== src.length) fail("only comments and whitespace may follow the root element");
  return root;
}

export function textContent(node: XmlNode): string {
  return node.children.map((c) => (typeof c === "string" ? c : textContent(c))).join("");
}

export function* elements(node: XmlNode): Generator<XmlNode> {
  yield node;
  for (const c of node.children) if (typeof c !== "string") yield* elements(c);
}

/** Null when two trees are the same document; else where they first differ, e.g. `/svg/a/g[2]/text[1] @x: …`. */
export function xmlTreeDifference(actual: XmlNode, expected: XmlNode): string | null {
  return nodeDifference(actual, expected, `/${expected.name}`);
}

function nodeDifference(actual: XmlNode, expected: XmlNode, here: string): string | null {
  if (actual.name !== expected.name) return `${here}: element <${actual.name}> where <${expected.name}> is expected`;
  const show = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);
  for (const k of Object.keys(expected.attrs)) {
    if (!(k in actual.attrs)) return `${here}: attribute ${k} is missing`;
    if (actual.attrs[k] !== expected.attrs[k]) return `${here} @${k}: ${show(actual.attrs[k])} where ${show(expected.attrs[k])} is expected`;
  }
  for (const k of Object.keys(actual.attrs)) if (!(k in expected.attrs)) return `${here}: attribute ${k} is not in the badge`;
  const n = Math.max(actual.children.length, expected.children.length);
  const seen = new Map<string, number>();
  for (let j = 0; j < n; j++) {
    const a = actual.children[j];
    const e = expected.children[j];
    if (e === undefined) return `${here}: extra ${typeof a === "string" ? `text ${show(a)}` : `element <${a.name}>`}`;
    if (a === undefined) return `${here}: missing ${typeof e === "string" ? `text ${show(e)}` : `element <${e.name}>`}`;
    if (typeof e === "string" || typeof a === "string") {
      if (a !== e) return `${here}: ${typeof a === "string" ? `text ${show(a)}` : `element <${a.name}>`} where ${typeof e === "string" ? `text ${show(e)}` : `element <${e.name}>`} is expected`;
      continue;
    }
    const k = (seen.get(e.name) ?? 0) + 1;
    seen.set(e.name, k);
    const several = expected.children.filter((c) => typeof c !== "string" && c.name === e.name).length > 1;
    const d = nodeDifference(a, e, `${here}/${e.name}${several ? `[${k}]` : ""}`);
    if (d) return d;
  }
  return null;
}
