/**
 * The seller's price change note (docs/TRUST.md "Revisions"): kept on the endpoint rows a save re-priced, not in the
 * listing document. Pure, so the editor and the save check it with the same words.
 */

import { listedPrice } from "@/lib/amounts";
import { unstorableText } from "@/lib/listing-document/unstorable";

export const PRICE_CHANGE_NOTE_POINTER = "/priceChangeNote";
export const PRICE_CHANGE_NOTE_LABEL = "Price change note";
/** Code points, after trimming. */
export const PRICE_CHANGE_NOTE_MAX = 500;

function codePoints(s: string): number {
  return [...s].length;
}

/** Trimmed, null when empty; else a message naming the field. */
export function checkPriceChangeNote(raw: unknown): { ok: true; note: string | null } | { ok: false; message: string } {
  if (raw === null || raw === undefined) return { ok: true, note: null };
  if (typeof raw !== "string") return { ok: false, message: `${PRICE_CHANGE_NOTE_LABEL} must be text` };
  const note = raw.trim();
  if (note === "") return { ok: true, note: null };
  const n = codePoints(note);
  if (n > PRICE_CHANGE_NOTE_MAX) return { ok: false, message: `${PRICE_CHANGE_NOTE_LABEL} is ${n} characters; at most ${PRICE_CHANGE_NOTE_MAX}` };
  const unstorable = unstorableText(note);
  if (unstorable) return { ok: false, message: `${PRICE_CHANGE_NOTE_LABEL} ${unstorable}` };
  return { ok: true, note };
}

/** As lib/amounts.ts listedPrice gives it (lib/trust/observe/store.ts compares the same). */
export function listedPriceKey(e: Parameters<typeof listedPrice>[0]): string {
  return JSON.stringify(listedPrice(e));
}
