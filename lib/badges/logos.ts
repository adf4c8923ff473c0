/**
 * The logos a badge may carry (`?logo=`), left of the label as on shields.io badges. A closed set of
 * our own 14×14 pictograms drawn as one path each, never an uploaded or linked image: an embedder's
 * picture could show a number beside the signed score (the label rule's reason, label.ts), and an
 * <image> could load from anywhere. None of them shows a digit or a letter. The logo is signed with
 * the statement like the label, so the verifier draws it again and a badge cannot be re-logoed.
 */
export const LOGO_SIZE = 14;
/** Space between the logo and the label text. */
export const LOGO_GAP = 3;

export const LOGOS = {
  /** Two posts and a bar: a toll gate. */
  tollgate: "M1 1h2.5v12H1zM10.5 1H13v12h-2.5zM3.5 4.5h7v2h-7z",
  /** A lightning bolt: pay per call, fast. */
  bolt: "M8.5 0L2 8h4.2L5 14l7-8.2H7.6z",
  /** A shield. */
  shield: "M7 0l6 2.2v4.6c0 3.4-2.5 6.1-6 7.2-3.5-1.1-6-3.8-6-7.2V2.2z",
  /** A terminal window with a prompt. */
  terminal: "M0 1.5h14v11H0zM1.4 3.9v7.2h11.2V3.9zM2.6 5l2.6 2.1-2.6 2.1-.8-1 1.4-1.1-1.4-1.1zM6.2 8.6h4.2v1.2H6.2z",
} as const;

export type LogoName = keyof typeof LOGOS;
export const LOGO_NAMES = Object.keys(LOGOS) as LogoName[];

export function isLogoName(v: unknown): v is LogoName {
  return typeof v === "string" && Object.prototype.hasOwnProperty.call(LOGOS, v);
}
