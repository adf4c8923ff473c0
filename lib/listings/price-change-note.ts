/**
 * The seller's price change note (docs/TRUST.md "Revisions", H2: "a noted price change passes"):
 * what changed and why, shown to buyers beside the endpoint's price revision. Pure, so the editor
 * checks it as the seller types and the save checks it again with the same words.
 *
 * It is not part of the listing document: it belongs to one save, the one that changes a payable
 * endpoint's listed price, and is kept on the endpoint rows that save changed (lib/listings/save.ts).
 */

import { listedPrice } from "@/lib/amounts";
import { unstorableText } from "@/lib/listing-document/unstorable";

/** The note's JSON pointer in the save's errors, and its label. */
export const PRICE_CHANGE_NOTE_POINTER = "/priceChangeNote";
export const PRICE_CHANGE_NOTE_LABEL = "Price change note";
/** At most this many characters (Unicode code points) after trimming. */
export const PRICE_CHANGE_NOTE_MAX = 500;

function codePoints(s: string): number {
  return [...s].length;
}

/**
 * The note as stored: trimmed, null when empty. A message naming the field when it is not text, is
 * over the limit or holds a character PostgreSQL cannot store.
 */
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

/**
 * An endpoint's listed price as the trust revisions compare it (lib/amounts.ts listedPrice, which
 * lib/trust/observe/store.ts stateOf reads too), as a string to compare.
 */
export function listedPriceKey(e: Parameters<typeof listedPrice>[0]): string {
  return JSON.stringify(listedPrice(e));
}
