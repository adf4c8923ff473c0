/** The closed set of badge logos (`?logo=`): our own one-path pictograms, never an uploaded image; signed like the label. */
export const LOGO_SIZE = 14;
export const LOGO_GAP = 3;

export const LOGOS = {
  tollgate: "M1 1h2.5v12H1zM10.5 1H13v12h-2.5zM3.5 4.5h7v2h-7z",
  bolt: "M8.5 0L2 8h4.2L5 14l7-8.2H7.6z",
  shield: "M7 0l6 2.2v4.6c0 3.4-2.5 6.1-6 7.2-3.5-1.1-6-3.8-6-7.2V2.2z",
  terminal: "M0 1.5h14v11H0zM1.4 3.9v7.2h11.2V3.9zM2.6 5l2.6 2.1-2.6 2.1-.8-1 1.4-1.1-1.4-1.1zM6.2 8.6h4.2v1.2H6.2z",
} as const;

export type LogoName = keyof typeof LOGOS;
export const LOGO_NAMES = Object.keys(LOGOS) as LogoName[];

export function isLogoName(v: unknown): v is LogoName {
  return typeof v === "string" && Object.prototype.hasOwnProperty.call(LOGOS, v);
}
