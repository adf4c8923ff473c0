import { describe, expect, it } from "vitest";
import { parseXmlStrict, xmlTreeDifference } from "./xml-parse";

describe("parseXmlStrict", () => {
  it("reads declaration, comments, attributes, references and CDATA into a tree", () => {
    const root = parseXmlStrict('<?xml version="1.0" encoding="UTF-8"?>\r\n<!-- c --><a x="1&amp;&#10;\t" y=\'2\'><b/>t&lt;<![CDATA[<x>]]><!-- d --><b></b></a>\n');
    expect(root).toEqual({ name: "a", attrs: { x: "1&\n ", y: "2" }, children: [{ name: "b", attrs: {}, children: [] }, "t<<x>", { name: "b", attrs: {}, children: [] }] });
  });

  it.each([
    ["<a><b></a>", /<\/a> closes <b>/],
    ['<a x="1" x="2"/>', /attribute x repeated/],
    ['<a x="<"/>', /'<' in an attribute value/],
    ["<a x=1/>", /must be quoted/],
    ['<a b="1"c="2"/>', /expected whitespace/],
    ["<a>&nbsp;</a>", /unknown entity/],
    ["<a>&</a>", /'&' must start/],
    ["<a>&#0;</a>", /not a character XML allows/],
    ["<a>&#xD800;</a>", /not a character XML allows/],
    ["<a>]]></a>", /']]>' in character data/],
    ["<a><!-- -- --></a>", /'--' inside a comment/],
    ["<a/><b/>", /only comments and whitespace may follow/],
    ["<a/>x", /only comments and whitespace may follow/],
    ["x<a/>", /expected an element/],
    ["<!DOCTYPE a><a/>", /DOCTYPE is refused/],
    ['<?xml-stylesheet href="x"?><a/>', /processing instructions are refused/],
    ["<a><?php ?></a>", /processing instructions are refused/],
    ['<?xml version="2.0"?><a/>', /malformed XML declaration/],
    ["<a>x", /never closed/],
    ["<a\u0001/>", /U\+0001 is not allowed/],
    ["<1a/>", /expected an element name/],
    [`${"<a>".repeat(40)}${"</a>".repeat(40)}`, /nested deeper/],
  ])("refuses %s", (xml, message) => {
    expect(() => parseXmlStrict(xml)).toThrow(message);
  });
});

describe("xmlTreeDifference", () => {
  const t = parseXmlStrict;
  it("ignores attribute order, reference spelling and empty-element form", () => {
    expect(xmlTreeDifference(t('<s><g a="1" b="&#34;"/></s>'), t('<s><g b="&quot;" a="1"></g></s>'))).toBeNull();
  });
  it("names the first difference with its path", () => {
    expect(xmlTreeDifference(t('<s><g><t x="1">a</t><t x="2">b</t></g></s>'), t('<s><g><t x="1">a</t><t x="3">b</t></g></s>'))).toBe('/s/g/t[2] @x: "2" where "3" is expected');
    expect(xmlTreeDifference(t("<s><t>a</t></s>"), t("<s><t>b</t></s>"))).toBe('/s/t: text "a" where text "b" is expected');
    expect(xmlTreeDifference(t('<s><t a="1" z="2"/></s>'), t('<s><t a="1"/></s>'))).toBe("/s/t: attribute z is not in the badge");
    expect(xmlTreeDifference(t("<s><t/><r/></s>"), t("<s><t/></s>"))).toBe("/s: extra element <r>");
    expect(xmlTreeDifference(t("<s> <t/></s>"), t("<s><t/></s>"))).toBe('/s: text " " where element <t> is expected');
  });
});
