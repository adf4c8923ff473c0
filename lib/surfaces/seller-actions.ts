"use server";
/**
 * The seller's server actions; each authorises inside the lib functions it calls. An AppError becomes a result the
 * form shows.
 */
import { revalidatePath } from "next/cache";
import { forbidden, notFound, unauthorized } from "next/navigation";
import { isAppError } from "@/lib/errors";
import { requireActor } from "@/lib/auth/roles";
import { sessionUserId } from "@/lib/auth/session";
import { acknowledgeRubricNotice } from "@/lib/analyses/store-result";
import { reanalyseForActor } from "@/lib/analyses/progress";
import type { DraftSource } from "@/lib/discovery/import";
import { registerListing, type ExistingListing } from "@/lib/intake/register-listing";
import type { SameTitleListing } from "@/lib/listings/overlap";
import { publishListing } from "@/lib/listings/publish";
import { deleteListing, unpublishListing } from "@/lib/listings/lifecycle";
import { createListingForSeller, updateListingForSeller } from "@/lib/listings/save";
import type { ListingDocument } from "@/lib/listing-document/document";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { refusalAdvice } from "./refusals";
import type { DraftReadiness, EndpointChecks } from "@/lib/intake/index-resource";

export type DraftActionResult =
  | { ok: true; draft: ListingDocument; sources: DraftSource[]; warnings: string[]; url: string; existing: ExistingListing[]; sameTitle: SameTitleListing[]; checks: EndpointChecks[]; readiness: DraftReadiness }
  | { ok: false; code: string; detail: string; advice: string };

export async function draftFromUrlAction(url: string): Promise<DraftActionResult> {
  try {
    // Validate once and draft for review; nothing is saved here.
    const drafted = await registerListing(await sessionUserId(), { url, mode: "review" });
    return drafted.ok ? drafted : { ...drafted, advice: refusalAdvice(drafted.code) };
  } catch (e) {
    return { ok: false, ...errorOf(e), advice: isAppError(e) && e.code === "unauthorized" ? "Sign in again, then retry." : "Check the URL and try again." };
  }
}

export type SaveActionResult =
  | { ok: true; listingId: string; analysisId: string | null; notice: string | null }
  | { ok: false; code: string; message: string; errors: Array<{ pointer: string; message: string }> };

export interface SaveActionInput {
  listingId?: string | null;
  document: unknown;
  intent: "draft" | "publish" | "reanalyse";
  source?: string | null;
  priceChangeNote?: string | null;
}

export async function saveListingAction(input: SaveActionInput): Promise<SaveActionResult> {
  try {
    const uid = await sessionUserId();
    const saved = input.listingId
      ? await updateListingForSeller(uid, input.listingId, input.document, input.priceChangeNote)
      : await createListingForSeller(uid, input.document, input.source ? `import:${input.source.slice(0, 500)}` : undefined, input.priceChangeNote);
    let analysisId: string | null = null;
    let notice: string | null = null;
    if (input.intent === "publish") {
      analysisId = (await publishListing(uid, saved.id)).analysis.id;
    } else if (input.intent === "reanalyse") {
      try {
        analysisId = (await reanalyseForActor(uid, saved.id)).id;
      } catch (e) {
        // Saved either way; a running analysis reads the saved listing.
        if (!isAppError(e) || e.code !== "conflict") throw e;
        analysisId = (e.extra.activeAnalysisId as string | null) ?? null;
        notice = "An analysis was already running; it is shown below. Re-analyse again once it finishes to score these changes.";
      }
    }
    revalidatePath("/dashboard");
    revalidatePath(`/dashboard/listings/${saved.id}`);
    return { ok: true, listingId: saved.id, analysisId, notice };
  } catch (e) {
    const { code, detail } = errorOf(e);
    const errors = isAppError(e) ? e.details.map((d) => ({ pointer: d.pointer ?? "", message: d.message })) : [];
    return { ok: false, code, message: detail, errors };
  }
}

export async function acknowledgeNoticeAction(listingId: string): Promise<void> {
  try {
    await acknowledgeRubricNotice(listingId, await sessionUserId());
  } catch (e) {
    answerAccessError(e);
  }
  revalidatePath(`/dashboard/listings/${listingId}`);
}

/** Without a form result, an access error answers with its status (401, 404, 403) rather than Next's 500. */
function answerAccessError(e: unknown): never {
  if (isAppError(e)) {
    if (e.code === "unauthorized") unauthorized();
    if (e.code === "not_found") notFound();
    if (e.code === "forbidden") forbidden();
  }
  throw e;
}

function errorOf(e: unknown): { code: string; detail: string } {
  if (isAppError(e)) return { code: e.code, detail: e.message };
  console.error(e);
  return { code: "internal", detail: "Something went wrong on our side. Try again in a moment." };
}

/** The save's gate, errors by JSON pointer. */
export async function validateListingAction(document: unknown): Promise<Array<{ pointer: string; message: string }>> {
  await requireActor(await sessionUserId()).catch(answerAccessError);
  const v = validateListingDocument(document);
  return v.ok ? [] : v.errors.slice(0, 100);
}

export type LifecycleActionResult = { ok: true; message: string } | { ok: false; code: string; message: string };

/** The results stay. */
export async function unpublishListingAction(listingId: string): Promise<LifecycleActionResult> {
  try {
    await unpublishListing(await sessionUserId(), listingId);
    revalidatePath("/dashboard");
    revalidatePath(`/dashboard/listings/${listingId}`);
    return { ok: true, message: "Unpublished: the listing is out of the catalog and back to draft. Its results are kept." };
  } catch (e) {
    const { code, detail } = errorOf(e);
    return { ok: false, code, message: detail };
  }
}

/** A draft without history is removed; anything else becomes a tombstone. */
export async function deleteListingAction(listingId: string): Promise<LifecycleActionResult> {
  try {
    const r = await deleteListing(await sessionUserId(), listingId);
    revalidatePath("/dashboard");
    return {
      ok: true,
      message:
        r.outcome === "deleted"
          ? "Deleted the draft listing."
          : `Deleted the listing. It was published or has history, so its history is kept unchanged (${r.results} result${r.results === 1 ? "" : "s"}, and any payments and monitor readings), and it cannot be restored.`,
    };
  } catch (e) {
    const { code, detail } = errorOf(e);
    return { ok: false, code, message: detail };
  }
}
