/**
 * The seller's price change note (docs/TRUST.md "Revisions", H2: "a noted price change passes"):
 * what changed and why, shown to buyers beside the endpoint's price revision. Pure, so the editor
 * checks it as the seller types and the save checks it again with the same words.
 *
 * It is not part of the listing document: it belongs to one save, the one that changes a payable
 * endpoint's listed price, and is kept on the endpoint rows that save changed (lib/listings/save.ts).
 */

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
  if (note.includes("\u0000")) return { ok: false, message: `${PRICE_CHANGE_NOTE_LABEL} contains a NUL character (U+0000), which cannot be stored` };
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(note)) return { ok: false, message: `${PRICE_CHANGE_NOTE_LABEL} contains a lone surrogate, which is not valid Unicode` };
  return { ok: true, note };
}

/**
 * An endpoint's listed price as the trust revisions compare it (lib/trust/observe/store.ts stateOf):
 * the machine amount, the asset (lower-cased), the network and the mode; null without an amount.
 */
export function listedPriceKey(e: { priceAmount: string | null; priceAsset: string | null; priceNetwork: string | null; priceMode: string | null }): string {
  if (!e.priceAmount) return "null";
  return JSON.stringify([e.priceAmount, e.priceAsset?.toLowerCase() ?? null, e.priceNetwork ?? null, e.priceMode ?? null]);
}
