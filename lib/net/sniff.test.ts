import { describe, expect, it } from "vitest";
import { contentTypeMatches, mediaType, sniffType } from "./sniff";
import type { SniffedType } from "./types";

const hex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("sniffType reads the bytes", () => {
  it.each<[string, Uint8Array, SniffedType]>([
    ["empty", new Uint8Array(0), "empty"],
    ["png", hex("89504e470d0a1a0a0000000d49484452"), "png"],
    ["jpeg", hex("ffd8ffe000104a464946"), "jpeg"],
    ["gif87a", utf8("GIF87a\x01\x00"), "gif"],
    ["gif89a", utf8("GIF89a\x01\x00"), "gif"],
    ["webp", new Uint8Array([...utf8("RIFF"), 0x24, 0, 0, 0, ...utf8("WEBPVP8 ")]), "webp"],
    ["riff but not webp", new Uint8Array([...utf8("RIFF"), 0x24, 0, 0, 0, ...utf8("WAVEfmt ")]), "binary"],
    ["ico", hex("0000010001002020"), "ico"],
    ["ico with zero images", hex("0000010000002020"), "binary"],
    ["json object", utf8('{"x402Version":2}'), "json"],
    ["json array with BOM and space", utf8('\ufeff  [1,2]'), "json"],
    ["json number", utf8("42"), "json"],
    ["broken json", utf8('{"a":'), "text"],
    ["truncated json", utf8('{"a":"bbbb'), "json"],
    ["html doctype", utf8("<!DOCTYPE html><html>"), "html"],
    ["html tag any case", utf8("  <HTML lang=en>"), "html"],
    ["html script", utf8("<script>alert(1)</script>"), "html"],
    ["html comment", utf8("<!-- hi --><p>x</p>"), "html"],
    ["svg", utf8('<svg xmlns="http://www.w3.org/2000/svg"/>'), "svg"],
    ["svg with prolog", utf8('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>'), "svg"],
    ["xml", utf8('<?xml version="1.0"?><feed></feed>'), "xml"],
    ["xml without prolog", utf8("<rss version='2.0'></rss>"), "xml"],
    ["plain text", utf8("Payment required"), "text"],
    ["utf-8 text", utf8("prix : 0,01 € — merci"), "text"],
    ["invalid utf-8", hex("c328a0a1"), "binary"],
    ["control bytes", utf8("abc\x00\x01\x02def"), "binary"],
  ])("%s", (_name, bytes, expected) => {
    expect(sniffType(bytes, _name.startsWith("truncated"))).toBe(expected);
  });

  it("a multi-byte character cut by truncation is still text", () => {
    const bytes = utf8("café €").subarray(0, 7); // cuts the euro sign
    expect(sniffType(bytes, true)).toBe("text");
    expect(sniffType(bytes, false)).toBe("binary");
  });
});

describe("contentTypeMatches", () => {
  it.each<[string | null, SniffedType, boolean]>([
    ["application/json", "json", true],
    ["application/json; charset=utf-8", "json", true],
    ["Application/JSON", "json", true],
    ["application/problem+json", "json", true],
    ["application/json", "html", false],
    ["application/json", "text", false],
    ["application/json", "empty", true],
    ["text/html; charset=utf-8", "html", true],
    ["text/html", "json", false],
    ["text/plain", "text", true],
    ["text/plain", "json", true],
    ["text/plain", "html", false],
    ["image/png", "png", true],
    ["image/png", "svg", false],
    ["image/jpeg", "jpeg", true],
    ["image/gif", "gif", true],
    ["image/webp", "webp", true],
    ["image/x-icon", "ico", true],
    ["image/vnd.microsoft.icon", "ico", true],
    ["image/svg+xml", "svg", true],
    ["image/svg+xml", "html", false],
    ["application/xml", "xml", true],
    ["application/atom+xml", "xml", true],
    ["application/octet-stream", "html", true],
    ["application/pdf", "binary", true],
    ["application/pdf", "html", false],
    [null, "json", false],
    ["", "text", false],
    [null, "empty", true],
  ])("%j with %s → %s", (type, sniffed, expected) => {
    expect(contentTypeMatches(type, sniffed)).toBe(expected);
  });

  it("mediaType strips parameters", () => {
    expect(mediaType(" Text/HTML ; charset=UTF-8")).toBe("text/html");
    expect(mediaType(null)).toBeNull();
  });
});
