import { describe, expect, it } from "vitest";
import { Prerendered, el, escapeAttr, escapeText, unescapeXml } from "./xml";

describe("xml builder", () => {
  it("escapes text content", () => {
    expect(el("text", {}, `<script>alert("x")</script> & ]]>`).render()).toBe("<text>&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; ]]&gt;</text>");
  });

  it("escapes attribute values, including quotes and newlines", () => {
    expect(el("a", { href: `https://x/?a=1&b="2"'\n` }).render()).toBe('<a href="https://x/?a=1&amp;b=&quot;2&quot;&apos;&#10;"/>');
  });

  it("drops characters XML cannot carry (controls, lone surrogates, U+FFFF)", () => {
    expect(escapeText("a\u0000b\u0007c\uD800d\uFFFFe")).toBe("abcde");
    expect(escapeAttr("x\u001Fy")).toBe("xy");
    expect(escapeText("😀")).toBe("😀"); // a proper pair is kept
  });

  it("renders numbers and leaves out undefined attributes", () => {
    expect(el("rect", { width: 10.5, x: undefined, fill: "#fff" }).render()).toBe('<rect width="10.5" fill="#fff"/>');
    expect(() => el("rect", { width: NaN }).render()).toThrow(/non-finite/);
  });

  it("refuses invalid element and attribute names", () => {
    expect(() => el("svg onload=alert(1)")).toThrow(/element name/);
    expect(() => el("rect", { 'x" onload="': 1 })).toThrow(/attribute name/);
  });

  it("nests children and skips null/false", () => {
    expect(el("g", {}, el("rect"), null, false, "t").render()).toBe("<g><rect/>t</g>");
  });

  it("Prerendered reuses builder output verbatim and can only be made from elements", () => {
    const p = Prerendered.of(el("stop", { offset: 0 }), el("stop", { offset: 1 }));
    expect(el("linearGradient", {}, p).render()).toBe('<linearGradient><stop offset="0"/><stop offset="1"/></linearGradient>');
  });

  it("unescapeXml inverts escaping, reads character references and CDATA, and refuses junk", () => {
    const s = `<a> & "b" 'c' \u00b7 😀`;
    expect(unescapeXml(escapeAttr(s))).toBe(s);
    expect(unescapeXml("&#65;&#x42;&#x1F600;")).toBe("AB😀");
    expect(unescapeXml("x<![CDATA[<&>]]>y&amp;")).toBe("x<&>y&");
    expect(unescapeXml("a & b")).toBeNull();
    expect(unescapeXml("&constructor;")).toBeNull();
    expect(unescapeXml("&#x110000;")).toBeNull();
  });
});
