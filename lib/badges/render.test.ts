import { makeBadge } from "badge-maker";
import { describe, expect, it } from "vitest";
import { BAND_COLORS } from "./colors";
import { signStatement } from "./dsse";
import { BADGE_STYLES, renderBadge, renderReadinessBadge } from "./render";
import { bandFor, type BadgeStatement } from "./statement";
import { STATEMENT, fixedKeyring } from "@/test/badges";
import { signerFor } from "./keys";

const withScore = (score: number): BadgeStatement => ({ ...STATEMENT, result: { ...STATEMENT.result, score, band: bandFor(score) } });

describe("renderReadinessBadge snapshots", () => {
  for (const style of BADGE_STYLES) {
    it.each([42, 71, 85, 96])(`${style} at %i`, (score) => {
      expect(renderReadinessBadge(withScore(score), { style, link: null })).toMatchSnapshot();
    });
    it(`${style} not yet scored`, () => {
      expect(renderReadinessBadge(null, { style })).toMatchSnapshot();
    });
    it(`${style} signed, linked, with custom label`, () => {
      const envelope = signStatement(STATEMENT, signerFor(fixedKeyring()));
      expect(renderReadinessBadge(STATEMENT, { style, label: "tollgate", envelope })).toMatchSnapshot();
    });
  }
});

describe("accessibility", () => {
  it.each(BADGE_STYLES)("%s has role=img, an aria-label and a matching <title>", (style) => {
    const svg = renderReadinessBadge(STATEMENT, { style });
    expect(svg).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toContain('aria-label="readiness: 96 · Excellent"');
    expect(svg).toContain("<title>readiness: 96 · Excellent</title>");
    // Natural case for screen readers even where the drawing is in capitals.
    if (style === "for-the-badge") expect(svg).toContain(">96 · EXCELLENT</text>");
  });

  it("marks the decorative shadow text aria-hidden", () => {
    const svg = renderReadinessBadge(STATEMENT, { style: "flat" });
    expect(svg.match(/<text aria-hidden="true"/g)).toHaveLength(2);
  });

  it("prefixes the accessible name with a title when given", () => {
    expect(renderReadinessBadge(STATEMENT, { style: "flat", title: "Acme Weather" })).toContain("<title>Acme Weather — readiness: 96 · Excellent</title>");
  });
});

describe("hostile text", () => {
  const hostile = `<script>alert("x")</script> & 'q' \u202E69\u202C ` + "W".repeat(500);

  it.each(BADGE_STYLES)("%s escapes and truncates a hostile label and title", (style) => {
    const svg = renderBadge({ style, label: hostile, value: "96 · Excellent", color: BAND_COLORS.Excellent.background, title: hostile });
    expect(svg).not.toMatch(/<script/i);
    expect(svg).not.toContain("\u202E");
    expect(svg).not.toContain("\u202C");
    expect(svg).toContain("&lt;script&gt;");
    expect(svg).toContain("&amp;");
    expect(svg).toMatch(/aria-label="&lt;script&gt;alert\(&quot;x&quot;\)[^"]*"/); // quotes inside attributes are entities
    expect(svg).not.toContain("W".repeat(41));
    expect(svg).toContain("…");
    // Well-formed enough that only our own elements appear.
    const names = new Set([...svg.matchAll(/<([a-zA-Z]+)/g)].map((m) => m[1]));
    for (const n of names) expect(["svg", "title", "linearGradient", "stop", "clipPath", "rect", "g", "text"]).toContain(n);
  });

  it("escapes metadata text (the envelope JSON) so it cannot close the element", () => {
    const svg = renderBadge({ style: "flat", label: "l", value: "v", color: "#4c1", metadata: '</metadata><script>x</script>{"a":"&"}' });
    expect(svg).toContain('<metadata id="tollgate-badge-envelope">&lt;/metadata&gt;&lt;script&gt;x&lt;/script&gt;{"a":"&amp;"}</metadata>');
  });

  it("refuses links that are not http(s)", () => {
    expect(() => renderBadge({ style: "flat", label: "l", value: "v", color: "#4c1", link: "javascript:alert(1)" })).toThrow(/http/);
    expect(() => renderBadge({ style: "flat", label: "l", value: "v", color: "#4c1", link: "data:text/html,x" })).toThrow(/http/);
    expect(renderBadge({ style: "flat", label: "l", value: "v", color: "#4c1", link: 'https://t.dev/a?"x"' })).toContain('href="https://t.dev/a?%22x%22"');
  });

  it("refuses a colour that is not hex (it lands in an attribute)", () => {
    expect(() => renderBadge({ style: "flat", label: "l", value: "v", color: '#fff" onload="x' })).toThrow(/colour/);
  });
});

describe("layout follows shields", () => {
  it.each(BADGE_STYLES)("%s badge has the same outer size as badge-maker's", (style) => {
    for (const [label, value] of [["readiness", "96 · Excellent"], ["build", "passing"], ["a", "not yet scored"]]) {
      const ours = renderBadge({ style, label, value, color: "#44cc11" });
      const theirs = makeBadge({ style, label, message: value, color: "#44cc11" });
      const size = (svg: string) => /<svg[^>]* width="([\d.]+)" height="(\d+)"/.exec(svg)!.slice(1);
      expect(size(ours)).toEqual(size(theirs));
    }
  });

  it("is deterministic", () => {
    expect(renderReadinessBadge(STATEMENT, { style: "plastic" })).toBe(renderReadinessBadge(STATEMENT, { style: "plastic" }));
  });

  it("links to the signed catalog page by default, and not at all with link: null", () => {
    expect(renderReadinessBadge(STATEMENT, { style: "flat" })).toContain(`<a href="${STATEMENT.listing.url}" xlink:href="${STATEMENT.listing.url}" target="_blank">`);
    expect(renderReadinessBadge(STATEMENT, { style: "flat", link: null })).not.toContain("<a ");
  });

  it("notices a statement edited after signing (the envelope pairing is only trusted for frozen statements)", () => {
    const mutable = structuredClone(STATEMENT);
    const envelope = signStatement(mutable, signerFor(fixedKeyring()));
    mutable.result.score = 99;
    expect(() => renderReadinessBadge(mutable, { style: "flat", envelope })).toThrow(/does not match/);
    expect(Object.isFrozen(envelope)).toBe(true);
  });

  it("refuses to embed an envelope for a different statement", () => {
    const envelope = signStatement(withScore(40), signerFor(fixedKeyring()));
    expect(() => renderReadinessBadge(STATEMENT, { style: "flat", envelope })).toThrow(/does not match/);
    expect(() => renderReadinessBadge(null, { style: "flat", envelope })).toThrow(/unscored/);
  });
});
