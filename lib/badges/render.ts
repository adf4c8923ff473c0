/**
 * Badge SVG renderer in shields.io's layout conventions, four styles. All markup goes through xml.ts and
 * all user text through `visibleText` (docs/BADGES.md "The SVG").
 */
import { BAND_COLORS, LABEL_COLORS, UNSCORED_COLORS, colorsFor, type BadgeColors } from "./colors";
import { envelopeCarries, type DsseEnvelope } from "./dsse";
import { DEFAULT_LABEL } from "./label";
import { LOGOS, LOGO_GAP, LOGO_SIZE, type LogoName } from "./logos";
import type { BadgeStatement } from "./statement";
import { visibleText } from "./text";
import { textWidth, textWidth100, type BadgeFont } from "./widths";
import { Prerendered, el, type XmlChild, type XmlElement } from "./xml";

export const BADGE_STYLES = ["flat", "flat-square", "plastic", "for-the-badge"] as const;
export type BadgeStyle = (typeof BADGE_STYLES)[number];

export { DEFAULT_LABEL };
export const UNSCORED_VALUE = "not yet scored";
/** The <metadata> id that carries the DSSE envelope; the verifier looks for it. */
export const ENVELOPE_METADATA_ID = "tollgate-badge-envelope";

const FONT_FAMILY = "Verdana,Geneva,DejaVu Sans,sans-serif";
const SVG_NS = "http://www.w3.org/2000/svg";
const XLINK_NS = "http://www.w3.org/1999/xlink";

export interface RenderBadgeOptions {
  style: BadgeStyle;
  label: string;
  value: string;
  /** #rgb or #rrggbb; the text colour is chosen for contrast. */
  color: string | BadgeColors;
  /** The catalog page; http(s) only. */
  link?: string;
  title?: string;
  metadata?: string;
  /** logos.ts; needs a label. */
  logo?: LogoName;
}

interface Part {
  text: string;
  /** What textLength pins, px. */
  width: number;
  colors: BadgeColors;
  /** Path data; the text moves right by LOGO_SIZE + LOGO_GAP. */
  logo?: string;
}

const logoRoom = (p: Part | null) => (p?.logo ? LOGO_SIZE + LOGO_GAP : 0);

function logoPath(part: Part, x: number, height: number): XmlElement {
  const y = (height - LOGO_SIZE) / 2;
  return el("path", { transform: `translate(${x} ${y})`, fill: part.colors.text, "fill-rule": "evenodd", d: part.logo! });
}

interface Layout {
  height: number;
  leftWidth: number;
  rightWidth: number;
  body: XmlChild[];
}

function roundUpToOdd(n: number): number {
  // Odd widths centre text on a pixel boundary, as shields does.
  return n % 2 === 0 ? n + 1 : n;
}

function shadowedText(x: number, y: number, part: Part): XmlElement[] {
  const textLength = part.width * 10;
  return [
    el("text", { "aria-hidden": "true", x, y: y + 10, fill: part.colors.shadow, "fill-opacity": ".3", transform: "scale(.1)", textLength }, part.text),
    el("text", { x, y, fill: part.colors.text, transform: "scale(.1)", textLength }, part.text),
  ];
}

function foreground(fontSize: number, children: XmlChild[]): XmlElement {
  return el("g", { "text-anchor": "middle", "font-family": FONT_FAMILY, "text-rendering": "geometricPrecision", "font-size": fontSize }, ...children);
}

function backgrounds(label: Part | null, value: Part, leftWidth: number, rightWidth: number, height: number): XmlChild[] {
  return [label && el("rect", { width: leftWidth, height, fill: label.colors.background }), el("rect", { x: leftWidth, width: rightWidth, height, fill: value.colors.background })];
}

function squareLayout(label: Part | null, value: Part, height: number, leftWidth: number, rightWidth: number, texts: XmlElement, logo: XmlElement | null = null): Layout {
  return { height, leftWidth, rightWidth, body: [el("g", { "shape-rendering": "crispEdges" }, ...backgrounds(label, value, leftWidth, rightWidth, height)), logo, texts] };
}

const FLAT_GRADIENT = Prerendered.of(
  el("linearGradient", { id: "tg-flat-s", x2: 0, y2: "100%" }, el("stop", { offset: 0, "stop-color": "#bbb", "stop-opacity": ".1" }), el("stop", { offset: 1, "stop-opacity": ".1" })),
);
const PLASTIC_GRADIENT = Prerendered.of(
  el(
    "linearGradient",
    { id: "tg-plastic-s", x2: 0, y2: "100%" },
    el("stop", { offset: 0, "stop-color": "#fff", "stop-opacity": ".7" }),
    el("stop", { offset: ".1", "stop-color": "#aaa", "stop-opacity": ".1" }),
    el("stop", { offset: ".9", "stop-color": "#000", "stop-opacity": ".3" }),
    el("stop", { offset: 1, "stop-color": "#000", "stop-opacity": ".5" }),
  ),
);

function roundedLayout(kind: "flat" | "plastic", label: Part | null, value: Part): Layout {
  const height = kind === "flat" ? 20 : 18;
  const rx = kind === "flat" ? 3 : 4;
  const textY = kind === "flat" ? 140 : 130;
  const pad = 5;
  const leftWidth = label ? label.width + 2 * pad + logoRoom(label) : 0;
  const rightWidth = value.width + 2 * pad;
  const width = leftWidth + rightWidth;
  // Ids include style and width: equal-width badges inlined in one page share identical definitions.
  const clipId = `tg-${kind}-r${width}`;
  const texts: XmlChild[] = [];
  if (label) texts.push(...shadowedText(10 * (1 + 0.5 * label.width + pad + logoRoom(label)), textY, label));
  const valueMargin = label ? leftWidth - 1 : 0;
  texts.push(...shadowedText(10 * (valueMargin + 0.5 * value.width + pad), textY, value));
  return {
    height,
    leftWidth,
    rightWidth,
    body: [
      kind === "flat" ? FLAT_GRADIENT : PLASTIC_GRADIENT,
      el("clipPath", { id: clipId }, el("rect", { width, height, rx })),
      el(
        "g",
        { "clip-path": `url(#${clipId})` },
        ...backgrounds(label, value, leftWidth, rightWidth, height),
        el("rect", { width, height, fill: `url(#tg-${kind}-s)` }),
      ),
      label?.logo && logoPath(label, pad, height),
      foreground(110, texts),
    ],
  };
}

function flatSquareLayout(label: Part | null, value: Part): Layout {
  const height = 20;
  const pad = 5;
  const leftWidth = label ? label.width + 2 * pad + logoRoom(label) : 0;
  const rightWidth = value.width + 2 * pad;
  const valueMargin = label ? leftWidth - 1 : 0;
  const text = (x: number, part: Part) => el("text", { x, y: 140, fill: part.colors.text, transform: "scale(.1)", textLength: part.width * 10 }, part.text);
  const texts = foreground(110, [label && text(10 * (1 + 0.5 * label.width + pad + logoRoom(label)), label), text(10 * (valueMargin + 0.5 * value.width + pad), value)]);
  return squareLayout(label, value, height, leftWidth, rightWidth, texts, label?.logo ? logoPath(label, pad, height) : null);
}

function forTheBadgeLayout(label: Part | null, value: Part): Layout {
  const height = 28;
  const margin = 12;
  // With a logo the label's left margin narrows to 9 px, as on shields' for-the-badge.
  const logoMargin = 9;
  const leftWidth = label ? label.width + 2 * margin + (label.logo ? logoRoom(label) + logoMargin - margin : 0) : 0;
  const rightWidth = value.width + 2 * margin;
  const text = (midX: number, part: Part, bold: boolean) =>
    el("text", { x: 10 * midX, y: 175, fill: part.colors.text, "font-weight": bold ? "bold" : undefined, transform: "scale(.1)", textLength: 10 * part.width }, part.text);
  const labelMid = label ? (label.logo ? logoMargin + logoRoom(label) : margin) + 0.5 * label.width : 0;
  const texts = foreground(100, [label && text(labelMid, label, false), text(leftWidth + margin + 0.5 * value.width, value, true)]);
  return squareLayout(label, value, height, leftWidth, rightWidth, texts, label?.logo ? logoPath(label, logoMargin, height) : null);
}

const FOR_THE_BADGE_LETTER_SPACING = 1.25;

function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

function measure(style: BadgeStyle, text: string, bold: boolean): number {
  if (style === "for-the-badge") {
    // Capitals with letter spacing: the font's widths plus 1.25px per code point (shields' formula).
    const font: BadgeFont = bold ? "bold 10px Verdana" : "10px Verdana";
    return Math.floor(textWidth100(text, font) / 100) + FOR_THE_BADGE_LETTER_SPACING * codePointCount(text);
  }
  return roundUpToOdd(textWidth(text, "11px Verdana"));
}

function checkedLink(link: string): string {
  let u: URL;
  try {
    u = new URL(link);
  } catch {
    throw new RangeError(`badge link is not a URL: ${JSON.stringify(link)}`);
  }
  // A javascript: or data: link inside an SVG is script; only web pages are ever linked.
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new RangeError(`badge link must be http(s), got ${u.protocol}`);
  return u.href;
}

/** "<title> — <label>: <value>"; the verifier reads the tail back. */
export function accessibleText(label: string, value: string, title?: string): string {
  const core = label ? `${label}: ${value}` : value;
  return title ? `${title} \u2014 ${core}` : core;
}

export function renderBadge(opts: RenderBadgeOptions): string {
  const style = opts.style;
  if (!BADGE_STYLES.includes(style)) throw new RangeError(`unknown badge style ${JSON.stringify(style)}`);
  const upper = style === "for-the-badge";
  const labelText = visibleText(opts.label);
  const valueText = visibleText(opts.value);
  const shownLabel = upper ? labelText.toUpperCase() : labelText;
  const shownValue = upper ? valueText.toUpperCase() : valueText;
  const colors = typeof opts.color === "string" ? colorsFor(opts.color) : opts.color;

  if (opts.logo !== undefined && !Object.prototype.hasOwnProperty.call(LOGOS, opts.logo)) throw new RangeError(`unknown badge logo ${JSON.stringify(opts.logo)}`);
  if (opts.logo !== undefined && !shownLabel) throw new RangeError("a badge logo needs a label beside it");
  const label: Part | null = shownLabel ? { text: shownLabel, width: measure(style, shownLabel, false), colors: LABEL_COLORS, ...(opts.logo ? { logo: LOGOS[opts.logo] } : {}) } : null;
  const value: Part = { text: shownValue, width: measure(style, shownValue, true), colors };

  const layout =
    style === "flat" || style === "plastic" ? roundedLayout(style, label, value) : style === "flat-square" ? flatSquareLayout(label, value) : forTheBadgeLayout(label, value);

  const title = opts.title === undefined ? undefined : visibleText(opts.title);
  const name = accessibleText(labelText, valueText, title);
  const link = opts.link === undefined ? undefined : checkedLink(opts.link);
  const body: XmlChild[] = link ? [el("a", { href: link, "xlink:href": link, target: "_blank" }, ...layout.body)] : layout.body;

  return el(
    "svg",
    {
      xmlns: SVG_NS,
      "xmlns:xlink": link ? XLINK_NS : undefined,
      width: layout.leftWidth + layout.rightWidth,
      height: layout.height,
      viewBox: `0 0 ${layout.leftWidth + layout.rightWidth} ${layout.height}`,
      role: "img",
      "aria-label": name,
    },
    el("title", {}, name),
    opts.metadata !== undefined && el("metadata", { id: ENVELOPE_METADATA_ID }, opts.metadata),
    ...body,
  ).render();
}

export function readinessValue(statement: Pick<BadgeStatement, "result">): string {
  return `${statement.result.score} \u00b7 ${statement.result.band}`;
}

export interface ReadinessBadgeOptions {
  style: BadgeStyle;
  label?: string;
  link?: string | null;
  envelope?: DsseEnvelope;
  title?: string;
  /** Unsigned badges only; a signed badge draws its statement's logo. */
  logo?: LogoName;
}

/** `null` (nothing publishable) draws the neutral, never signed "not yet scored" badge. */
export function renderReadinessBadge(statement: BadgeStatement | null, opts: ReadinessBadgeOptions): string {
  if (statement === null) {
    const label = opts.label ?? DEFAULT_LABEL;
    if (opts.envelope) throw new RangeError("an unscored badge carries no envelope");
    return renderBadge({ style: opts.style, label, value: UNSCORED_VALUE, color: UNSCORED_COLORS, link: opts.link ?? undefined, title: opts.title, ...(opts.logo ? { logo: opts.logo } : {}) });
  }
  // The statement's own (signed) label; the verifier re-renders from the statement, so another would fail.
  const label = opts.label ?? statement.label ?? DEFAULT_LABEL;
  let metadata: string | undefined;
  if (opts.envelope) {
    // The verifier re-renders from the statement alone, so a signed badge cannot carry a title.
    if (opts.title !== undefined) throw new RangeError("a signed badge carries no title");
    // An envelope for another statement would fail verification invisibly: catch the wiring mistake.
    if (!envelopeCarries(opts.envelope, statement)) {
      throw new RangeError("envelope payload does not match the statement being rendered");
    }
    metadata = JSON.stringify(opts.envelope);
  }
  const link = opts.link === null ? undefined : (opts.link ?? statement.listing.url);
  const logo = statement.logo;
  return renderBadge({ style: opts.style, label, value: readinessValue(statement), color: BAND_COLORS[statement.result.band], link, title: opts.title, metadata, ...(logo ? { logo } : {}) });
}
