/** Saving a listing document through the one listing writer, in one transaction. */
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
import { carriedTrustPaths } from "@/lib/listings/trust-path";
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
  listingId?: string;
  source?: string;
  demo?: boolean;
  publicationState?: PublicationState;
  /** "suffix": no read, for a writer holding a row lock. */
  uniqueSlug?: "free" | "suffix";
  priceChangeNote?: unknown;
}

function noteRefused(message: string): AppError {
  return new AppError("bad_request", message, [{ pointer: PRICE_CHANGE_NOTE_POINTER, message }]);
}

export function parsePriceChangeNote(raw: unknown): string | null {
  const checked = checkPriceChangeNote(raw);
  if (!checked.ok) throw noteRefused(checked.message);
  return checked.note;
}

export async function writeListing(doc: ListingDocument, opts: SaveOptions): Promise<SavedListing> {
  const prisma = await db();
  const saved = await prisma.$transaction((tx) => writeListingIn(tx, doc, opts));
  if (saved.verificationReset) await recomputeListingRank(saved.id);
  return saved;
}

export interface SavedListing {
  id: string;
  slug: string;
  verificationReset?: string;
}

export async function writeListingIn(tx: PrismaLike, doc: ListingDocument, opts: SaveOptions): Promise<SavedListing> {
  const endpoints = uniqueEndpoints(doc.endpoints);
  const columns = listingColumns(doc);
  const note = parsePriceChangeNote(opts.priceChangeNote);
  // Saves of one listing take turns: each compares with what the one before it wrote.
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
              method: true, path: true, trustPath: true, payable: true, priceAmount: true, priceAsset: true, priceNetwork: true, priceDecimals: true, priceMode: true, priceChangeNote: true, priceChangeNoteAt: true,
            },
          },
        },
      })
    : null;
  if (opts.listingId && !existing) throw new AppError("not_found", `listing ${opts.listingId} does not exist`);
  const savedAt = new Date();
  const endpointRows = endpoints.map((e, i) => endpointColumns(e, i));
  const keys = carriedTrustPaths(existing, columns.baseUrl, endpointRows, existing ? await trustKeys(tx, existing.id) : []);
  const notes = endpointRows.map((r, i) => {
    const old = existing?.endpoints.find((o) => o.method === r.method && o.trustPath === keys[i]);
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
    const moved = serverOf(existing.baseUrl) !== serverOf(columns.baseUrl);
    listing = await tx.listing.update({
      where: { id: existing.id },
      data: {
        ...columns,
        updatedAt: savedAt,
        // docs/RANK.md "Liveness"
        ...(moved ? { monitoredSince: savedAt, healthStatus: "unverified" as const } : {}),
        ...(opts.publicationState ? { publicationState: opts.publicationState } : {}),
      },
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
    await tx.endpoint.createMany({ data: endpointRows.map((r, i) => ({ ...r, ...notes[i], trustPath: keys[i], listingId: listing.id })) });
  }
  if (!existing) return listing;
  const reasons = verificationResetReasons(existing, { baseUrl: columns.baseUrl, endpoints: endpointRows });
  if (reasons.length === 0) return listing;
  const verificationReset = reasons.join("; ");
  await rows(tx, `SELECT tollgate_reset_verification($1, $2)`, listing.id, verificationReset);
  return { ...listing, verificationReset };
}

/** The listing's trust keys with every URL their revisions had. */
const trustKeys = (tx: PrismaLike, listingId: string) =>
  rows<{ method: string; trustPath: string; url: string }>(
    tx,
    `SELECT DISTINCT "method", "path" AS "trustPath", "url" FROM "trust_endpoint_revisions" WHERE "listingId" = $1 AND "url" IS NOT NULL`,
    listingId,
  );

/** The server a base URL names: scheme, host and port (lower-cased, a default port dropped). */
export function serverOf(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}`;
  } catch {
    return baseUrl;
  }
}

export const SLUG_WORDS_MAX = 48;

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

export async function createListingForSeller(actorId: string | null, input: unknown, source?: string, priceChangeNote?: unknown) {
  const actor = await requireActor(actorId);
  if (!actor.organizationId) throw new AppError("forbidden", "Your account has no seller organisation.");
  const doc = parseListingDocument(input);
  if (parsePriceChangeNote(priceChangeNote) !== null) throw noteRefused(`${PRICE_CHANGE_NOTE_LABEL}: a new listing has no earlier price to change. Clear the note; write one when a later save changes a price.`);
  const badSource = source === undefined ? null : unstorableText(source);
  if (badSource) throw new AppError("bad_request", `source ${badSource}`, [{ pointer: "/source", message: badSource }]);
  await takeListingAllowance(actor.organizationId);
  return writeListing(doc, { organizationId: actor.organizationId, source });
}

export async function updateListingForSeller(actorId: string | null, listingId: string, input: unknown, priceChangeNote?: unknown) {
  const { actor } = await requireListingAccess(actorId, listingId, { moderators: true });
  const doc = parseListingDocument(input);
  return writeListing(doc, { organizationId: actor.organizationId ?? "", listingId, priceChangeNote });
}

export async function readListingDocumentForEditor(actorId: string | null, listingId: string) {
  await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  const row = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, include: { endpoints: true } });
  return { id: row.id, publicationState: row.publicationState, document: listingToDocument(row) };
}

export async function writeDraftedListing(tx: PrismaLike, draft: ListingDocument, submission: { analysisId: string; submitter: string; targetUrl: string }): Promise<string> {
  const user = await tx.user.findUnique({ where: { id: submission.submitter }, select: { organizationId: true } });
  if (!user?.organizationId) throw new AppError("unprocessable", `submitter of analysis ${submission.analysisId} belongs to no organization`);
  const listing = await writeListingIn(tx, draft, { organizationId: user.organizationId, source: `import:${submission.targetUrl}`, publicationState: "draft", uniqueSlug: "suffix" });
  return listing.id;
}
