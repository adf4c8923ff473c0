import type { SniffedType } from "./types";

/** What the bytes are, whatever the Content-Type says (S5): magic numbers, JSON, markup heuristics, strict UTF-8. */

const HTML_TAGS = [
  "!doctype html", "html", "head", "body", "script", "iframe", "meta", "title", "div", "a", "p", "br",
  "table", "h1", "style", "img", "font", "b", "span", "form", "link", "!--",
];

function startsWith(bytes: Uint8Array, sig: number[], at = 0): boolean {
  if (bytes.length < at + sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (bytes[at + i] !== sig[i]) return false;
  return true;
}

function ascii(s: string): number[] {
  return [...s].map((c) => c.charCodeAt(0));
}

/** Null unless UTF-8; up to 3 truncated tail bytes tolerated. */
function utf8(bytes: Uint8Array, truncated: boolean): string | null {
  const dec = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  try {
    return dec.decode(bytes);
  } catch {
    if (!truncated) return null;
    for (let cut = 1; cut <= 3 && cut < bytes.length; cut++) {
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, bytes.length - cut));
      } catch {
        /* try a shorter cut */
      }
    }
    return null;
  }
}

export function sniffType(bytes: Uint8Array, truncated = false): SniffedType {
  if (bytes.length === 0) return "empty";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "webp";
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00]) && bytes.length >= 6 && (bytes[4] | (bytes[5] << 8)) > 0) return "ico";

  const text = utf8(bytes, truncated);
  if (text === null) return "binary";
  const trimmed = text.replace(/^\ufeff/, "").trimStart();
  if (trimmed.length === 0) return "text";

  const first = trimmed[0];
  if (first === "{" || first === "[" || first === '"' || /^(-?\d|true\b|false\b|null\b)/.test(trimmed)) {
    try {
      JSON.parse(trimmed);
      return "json";
    } catch {
      // A body cut at the cap cannot parse.
      if (truncated && (first === "{" || first === "[")) return "json";
    }
  }

  if (first === "<") {
    const head = trimmed.slice(0, 1024).toLowerCase();
    if (head.startsWith("<?xml") || head.startsWith("<!doctype svg") || head.startsWith("<svg")) {
      return /<svg[\s>]/.test(head) ? "svg" : "xml";
    }
    for (const tag of HTML_TAGS) {
      if (head.startsWith(`<${tag}`)) {
        const next = head[tag.length + 1];
        if (tag === "!--" || next === undefined || next === ">" || /\s/.test(next)) return "html";
      }
    }
    if (/^<[a-z_][\w.:-]*[\s>/]/.test(head)) return "xml";
  }

  // Text, unless it is full of control characters (other than tab, CR, LF, FF).
  // eslint-disable-next-line no-control-regex
  const controls = (text.slice(0, 4096).match(/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g) ?? []).length;
  return controls === 0 ? "text" : "binary";
}

/** Lower-case, without parameters. */
export function mediaType(contentType: string | null): string | null {
  if (!contentType) return null;
  const type = contentType.split(";", 1)[0].trim().toLowerCase();
  return type || null;
}

/** An empty body fits anything; an unknown declared type fits opaque bytes and text, never markup. */
export function contentTypeMatches(contentType: string | null, sniffed: SniffedType): boolean {
  if (sniffed === "empty") return true;
  const type = mediaType(contentType);
  if (!type) return false;
  if (type === "application/json" || type.endsWith("+json") || type === "text/json") return sniffed === "json";
  if (type === "text/html" || type === "application/xhtml+xml") return sniffed === "html";
  if (type === "image/svg+xml") return sniffed === "svg";
  if (type === "application/xml" || type === "text/xml" || type.endsWith("+xml")) return sniffed === "xml" || sniffed === "svg";
  if (type === "image/png") return sniffed === "png";
  if (type === "image/jpeg" || type === "image/jpg" || type === "image/pjpeg") return sniffed === "jpeg";
  if (type === "image/gif") return sniffed === "gif";
  if (type === "image/webp") return sniffed === "webp";
  if (type === "image/x-icon" || type === "image/vnd.microsoft.icon" || type === "image/ico") return sniffed === "ico";
  if (type === "application/octet-stream") return true;
  if (type.startsWith("text/")) return sniffed === "text" || sniffed === "json";
  return sniffed === "binary" || sniffed === "text";
}
