/**
 * Saving a seller's listing document: validate (400 naming the first bad field by JSON pointer),
 * then write the listing and its endpoints in one transaction. writeListing is the one listing
 * writer (the seller's editor, moderators, the demo seed, an analysis completion through
 * writeListingIn); a save that changes what the canary verified resets verification in the same
 * transaction (lib/listings/verification-reset.ts).
 */
import crypto from "node:crypto";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { requireActor } from "@/lib/auth/roles";
import { requireListingAccess } from "@/lib/listings/access";
import { takeListingAllowance } from "@/lib/limits";
import { slugify, unstorableText, validateListingDocument } from "@/lib/listing-document/validate";
import type { ListingDocument } from "@/lib/listing-document/document";
import { endpointColumns, listingColumns, listingToDocument, uniqueEndpoints } from "@/lib/listings/document-mapping";
import { checkPriceChangeNote, listedPriceKey, PRICE_CHANGE_NOTE_LABEL, PRICE_CHANGE_NOTE_POINTER } from "@/lib/listings/price-change-note";
import { verificationResetReasons } from "@/lib/listings/verification-reset";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import type { PublicationState } from "@/lib/generated/prisma/client";
import { rows, type PrismaLike } from "@/lib/sql";

export function parseListingDocument(input: unknown): ListingDocument {
  const v = validateListingDocument(input);
  if (!v.ok) {
    const first = v.errors[0];
    throw new AppError("invalid_document", `listing document is invalid at ${first.pointer || "/"}: ${first.message}`, v.errors);
  }
  return v.value;
}

export interface SaveOptions {
  organizationId: string;
  /** Update this listing instead of creating one. */
  listingId?: string;
  source?: string;
  demo?: boolean;
  publicationState?: PublicationState;
  /**
   * How a new listing's slug is made unique: "free" (default) takes the first free one of `slug`,
   * `slug-2`, …; "suffix" appends a random suffix without reading, for a writer that holds a row
   * lock (the analysis completion) and must not probe for a free slug under it.
   */
  uniqueSlug?: "free" | "suffix";
  /**
   * The seller's price change note (lib/listings/price-change-note.ts): kept on the endpoints whose
   * listed price this save changes; refused, naming the field, when too long or when the save
   * changes no payable endpoint's listed price.
   */
  priceChangeNote?: unknown;
}

function noteRefused(message: string): AppError {
  return new AppError("bad_request", message, [{ pointer: PRICE_CHANGE_NOTE_POINTER, message }]);
}

/** The note's own check, before anything is read or spent: the field named when it is refused. */
export function parsePriceChangeNote(raw: unknown): string | null {
  const checked = checkPriceChangeNote(raw);
  if (!checked.ok) throw noteRefused(checked.message);
  return checked.note;
}

/** Write (create or replace) a listing from a validated document, in one transaction; returns the listing id. */
export async function writeListing(doc: ListingDocument, opts: SaveOptions): Promise<SavedListing> {
  const prisma = await db();
  const saved = await prisma.$transaction((tx) => writeListingIn(tx, doc, opts));
  // A reset is ranked at once (the ×1.00 of verified gone), not at the next rank tick.
  if (saved.verificationReset) await recomputeListingRank(saved.id);
  return saved;
}

/**
 * A saved listing; `verificationReset` says why this save reset its verification (and queued a
 * canary run at the front of the queue), when it did.
 */
export interface SavedListing {
  id: string;
  slug: string;
  verificationReset?: string;
}

/**
 * writeListing inside a transaction the caller already holds. A caller that updates a listing this
 * way re-ranks it after commit when `verificationReset` is set (writeListing does).
 */
export async function writeListingIn(tx: PrismaLike, doc: ListingDocument, opts: SaveOptions): Promise<SavedListing> {
  const endpoints = uniqueEndpoints(doc.endpoints);
  const columns = listingColumns(doc);
  const note = parsePriceChangeNote(opts.priceChangeNote);
  // Saves of one listing take turns: each compares what it replaces with what it writes (the price
  // change note, the verification reset), so it must read what the one before it wrote.
  if (opts.listingId) await rows(tx, `SELECT 1 FROM "listings" WHERE "id" = $1 FOR UPDATE`, opts.listingId);
  const existing = opts.listingId
    ? await tx.listing.findUnique({
        where: { id: opts.listingId },
        select: {
          id: true,
          slug: true,
          baseUrl: true,
          endpoints: {
            select: {
              method: true, path: true, payable: true, priceAmount: true, priceAsset: true, priceNetwork: true, priceDecimals: true, priceMode: true, priceChangeNote: true, priceChangeNoteAt: true,
            },
          },
        },
      })
    : null;
  if (opts.listingId && !existing) throw new AppError("not_found", `listing ${opts.listingId} does not exist`);
  // One instant for the save: the listing's updatedAt (when the trust revisions date a listed-field
  // change) and the note's time are the same.
  const savedAt = new Date();
  const endpointRows = endpoints.map((e, i) => endpointColumns(e, i));
  // The price change note: each endpoint row either takes this save's note (its listed price changed
  // here, and it is payable), keeps its old row's note (the price stayed), or has none (a new endpoint,
  // or a price changed without a note).
  const notes = endpointRows.map((r) => {
    const old = existing?.endpoints.find((o) => o.method === r.method && o.path === r.path);
    if (!old) return { priceChangeNote: null, priceChangeNoteAt: null };
    if (listedPriceKey(old) === listedPriceKey(r)) return { priceChangeNote: old.priceChangeNote, priceChangeNoteAt: old.priceChangeNoteAt };
    return note !== null && r.payable ? { priceChangeNote: note, priceChangeNoteAt: savedAt } : { priceChangeNote: null, priceChangeNoteAt: null };
  });
  if (note !== null && !notes.some((n) => n.priceChangeNoteAt === savedAt)) {
    throw noteRefused(
      `${PRICE_CHANGE_NOTE_LABEL}: this save changes no payable endpoint's listed price (atomic amount, asset, network or mode), so there is nothing for the note to explain. Clear the note, or save it with the price change.`,
    );
  }
  let listing: { id: string; slug: string };
  if (existing) {
    listing = await tx.listing.update({
      where: { id: existing.id },
      data: { ...columns, updatedAt: savedAt, ...(opts.publicationState ? { publicationState: opts.publicationState } : {}) },
      select: { id: true, slug: true },
    });
    await tx.endpoint.deleteMany({ where: { listingId: existing.id } });
  } else {
    const slug =
      opts.uniqueSlug === "suffix"
        ? `${shortSlug(doc.slug ?? doc.title, SLUG_WORDS_MAX - 7)}-${crypto.randomBytes(3).toString("hex")}`
        : await freeSlug(tx, shortSlug(doc.slug ?? doc.title));
    listing = await tx.listing.create({
      data: {
        ...columns,
        slug,
        organizationId: opts.organizationId,
        source: opts.source ?? null,
        demo: opts.demo ?? false,
        publicationState: opts.publicationState ?? "draft",
        publishedAt: opts.publicationState === "published" ? new Date() : null,
      },
      select: { id: true, slug: true },
    });
  }
  if (endpoints.length) {
    await tx.endpoint.createMany({ data: endpointRows.map((r, i) => ({ ...r, ...notes[i], listingId: listing.id })) });
  }
  if (!existing) return listing;
  // Verification follows the listing: what the canary verified is no longer what is listed.
  const reasons = verificationResetReasons(existing, { baseUrl: columns.baseUrl, endpoints: endpointRows });
  if (reasons.length === 0) return listing;
  const verificationReset = reasons.join("; ");
  await rows(tx, `SELECT tollgate_reset_verification($1, $2)`, listing.id, verificationReset);
  return { ...listing, verificationReset };
}

/** A new listing's slug is at most this long (a URL people read and paste), before any "-2" suffix. */
export const SLUG_WORDS_MAX = 48;

/**
 * A short, readable slug: slugify, then cut at the last whole word within `max` characters (a word
 * longer than that is cut inside). "Weather forecasts by coordinates for agents and people who travel"
 * → "weather-forecasts-by-coordinates-for-agents-and".
 */
export function shortSlug(wanted: string, max = SLUG_WORDS_MAX): string {
  const s = slugify(wanted);
  if (s.length <= max) return s;
  const cut = s.slice(0, max + 1);
  const at = cut.lastIndexOf("-");
  return (at > 0 ? cut.slice(0, at) : s.slice(0, max)).replace(/-+$/, "");
}

async function freeSlug(tx: PrismaLike, wanted: string): Promise<string> {
  const base = slugify(wanted);
  for (let n = 1; n < 1000; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await tx.listing.findUnique({ where: { slug: candidate }, select: { id: true } }))) return candidate;
  }
  throw new AppError("conflict", `no free slug near ${base}`);
}

/** A seller creates a draft listing in their own organisation from a document (API and dashboard). */
export async function createListingForSeller(actorId: string | null, input: unknown, source?: string, priceChangeNote?: unknown) {
  const actor = await requireActor(actorId);
  if (!actor.organizationId) throw new AppError("forbidden", "Your account has no seller organisation.");
  const doc = parseListingDocument(input);
  // Checked before the day's allowance is spent: a new listing has no earlier price to change.
  if (parsePriceChangeNote(priceChangeNote) !== null) throw noteRefused(`${PRICE_CHANGE_NOTE_LABEL}: a new listing has no earlier price to change. Clear the note; write one when a later save changes a price.`);
  const badSource = source === undefined ? null : unstorableText(source);
  if (badSource) throw new AppError("bad_request", `source ${badSource}`, [{ pointer: "/source", message: badSource }]);
  // A valid document spends one of the organisation's new listings for the day (docs/LIMITS.md).
  await takeListingAllowance(actor.organizationId);
  return writeListing(doc, { organizationId: actor.organizationId, source });
}

/** The owner or a moderator replaces a listing's document; anyone else gets 404 as for no such listing. */
export async function updateListingForSeller(actorId: string | null, listingId: string, input: unknown, priceChangeNote?: unknown) {
  const { actor } = await requireListingAccess(actorId, listingId, { moderators: true });
  const doc = parseListingDocument(input);
  return writeListing(doc, { organizationId: actor.organizationId ?? "", listingId, priceChangeNote });
}

/** The listing document as the owner's editor shows it (the owner or a moderator). */
export async function readListingDocumentForEditor(actorId: string | null, listingId: string) {
  await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  const row = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, include: { endpoints: true } });
  return { id: row.id, publicationState: row.publicationState, document: listingToDocument(row) };
}

/**
 * The API door's drafted listing: the draft the worker made becomes a draft listing of the submitter's
 * organisation, inside the completion's transaction (lib/analyses/store-result.ts), through the
 * one listing writer. A random slug suffix instead of a probe-for-free-slug loop: the completion
 * holds the analysis row's lock.
 */
export async function writeDraftedListing(tx: PrismaLike, draft: ListingDocument, submission: { analysisId: string; submitter: string; targetUrl: string }): Promise<string> {
  const user = await tx.user.findUnique({ where: { id: submission.submitter }, select: { organizationId: true } });
  if (!user?.organizationId) throw new AppError("unprocessable", `submitter of analysis ${submission.analysisId} belongs to no organization`);
  const listing = await writeListingIn(tx, draft, { organizationId: user.organizationId, source: `import:${submission.targetUrl}`, publicationState: "draft", uniqueSlug: "suffix" });
  return listing.id;
}
