"use server";
/**
 * The moderators' server actions, each calling one lib/moderation lever (which authorises inside). A bad input comes
 * back for the form, naming the field.
 */
import { diffSentence } from "./labels";
import { revalidatePath } from "next/cache";
import { forbidden, redirect, unauthorized } from "next/navigation";
import { MODERATION_ROLES, requireRole } from "@/lib/auth/roles";
import { sessionUserId } from "@/lib/auth/session";
import { AppError, isAppError } from "@/lib/errors";
import { setCanarySuspended, setFeaturedLevel, setTierAndSortWeight, startCanaryRun } from "@/lib/moderation/set-levers";
import { approveCanaryPrice } from "@/lib/moderation/canary-price";
import { browsePosition, requeueDeadForModerator } from "./admin";

export type ModerationState =
  | { status: "idle" }
  | { status: "ok"; message: string; positionBefore: number | null; positionAfter: number | null; of: number; rank100: number | null; quality100: number | null }
  | { status: "error"; message: string; field: string | null; values: Record<string, string> };

const int = (v: FormDataEntryValue | null): number | string | null => {
  if (v === null) return null;
  const s = String(v).trim();
  return /^-?\d+$/.test(s) ? Number(s) : s;
};

async function run(
  listingId: string,
  form: FormData,
  change: (actorId: string | null) => Promise<{ before: Record<string, unknown>; after: Record<string, unknown>; rank: { quality100: number; rank100: number } | null }>,
): Promise<ModerationState> {
  const actorId = await sessionUserId();
  // The role first: 403 (401) before anything of the form is read.
  await requireModerator(actorId);
  try {
    const before = await browsePosition(listingId);
    const r = await change(actorId);
    const after = await browsePosition(listingId);
    revalidatePath("/admin");
    revalidatePath(`/admin/listings/${listingId}`);
    revalidatePath("/admin/audit");
    revalidatePath("/catalog");
    // In words: "Featured level 0 → 3".
    const diff = diffSentence(r.before, r.after);
    return {
      status: "ok",
      message: `Saved: ${diff}. Rank recomputed.`,
      positionBefore: before.position,
      positionAfter: after.position,
      of: after.of,
      rank100: r.rank?.rank100 ?? null,
      quality100: r.rank?.quality100 ?? null,
    };
  } catch (e) {
    if (isAppError(e)) {
      // The action answers 403 (401) itself; the client shows app/forbidden.tsx.
      if (e.code === "forbidden") forbidden();
      if (e.code === "unauthorized") unauthorized();
      const pointer = e.details[0]?.pointer ?? null;
      return { status: "error", message: e.details[0]?.message ? `${pointer?.slice(1) ?? "input"} ${e.details[0].message}` : e.message, field: pointer ? pointer.slice(1) : null, values: valuesOf(form) };
    }
    console.error(e);
    return { status: "error", message: "Something went wrong on our side; nothing was changed. Try again.", field: null, values: valuesOf(form) };
  }
}

/** Moderator or admin, read fresh. */
async function requireModerator(actorId: string | null): Promise<void> {
  try {
    await requireRole(actorId, MODERATION_ROLES);
  } catch (e) {
    if (isAppError(e) && e.code === "forbidden") forbidden();
    if (isAppError(e) && e.code === "unauthorized") unauthorized();
    throw e;
  }
}

function valuesOf(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["level", "canary", "tier", "sortWeight", "reason"]) {
    const v = form.get(k);
    if (typeof v === "string") out[k] = v.slice(0, 2000);
  }
  return out;
}

export async function setFeaturedAction(listingId: string, _prev: ModerationState, form: FormData): Promise<ModerationState> {
  return run(listingId, form, (actorId) => setFeaturedLevel({ listingId, level: int(form.get("level")), reason: form.get("reason") ?? "", actorId }));
}

/** `canary=run` queues a run now; `suspend` / `resume` stop or restart the canary. */
export async function canaryAction(listingId: string, _prev: ModerationState, form: FormData): Promise<ModerationState> {
  return run(listingId, form, async (actorId) => {
    const what = form.get("canary");
    const reason = form.get("reason") ?? "";
    if (what === "suspend" || what === "resume") return setCanarySuspended({ listingId, suspended: what === "suspend", reason, actorId });
    if (what !== "run") {
      throw new AppError("bad_request", `/canary must be run, suspend or resume, got ${JSON.stringify(what)}`, [{ pointer: "/canary", message: `must be run, suspend or resume, got ${JSON.stringify(what)}` }]);
    }
    const r = await startCanaryRun({ listingId, reason, actorId });
    return { before: { canaryRun: null }, after: { canaryRun: `${r.created ? "queued" : "already active"} ${r.runId}` }, rank: null };
  });
}

export async function setCurationAction(listingId: string, _prev: ModerationState, form: FormData): Promise<ModerationState> {
  return run(listingId, form, (actorId) => setTierAndSortWeight({ listingId, tier: int(form.get("tier")), sortWeight: int(form.get("sortWeight")), reason: form.get("reason") ?? "", actorId }));
}

/** The dead letter's one way out. */
export async function requeueDeadAction(analysisId: string): Promise<void> {
  const actorId = await sessionUserId();
  let notice: string;
  try {
    const r = await requeueDeadForModerator(actorId, analysisId);
    notice = `Requeued analysis ${r.id}: attempt ${r.attempts + 1} of ${r.maxAttempts} is next.`;
  } catch (e) {
    if (!isAppError(e)) throw e;
    if (e.code === "forbidden") forbidden();
    if (e.code === "unauthorized") unauthorized();
    notice = `Not requeued: ${e.message}`;
  }
  revalidatePath("/admin");
  redirect(`/admin?state=dead&notice=${encodeURIComponent(notice)}`);
}

/** Up to the listing's highest listed price now, with the moderator's reason; audited. */
export async function approveCanaryPriceAction(listingId: string, form: FormData): Promise<void> {
  const actorId = await sessionUserId();
  let notice: string;
  try {
    const r = await approveCanaryPrice({ listingId, reason: form.get("reason") ?? "", actorId });
    notice = `Approved: the canary may pay up to ${r.approvedUpTo} per call for this listing.`;
  } catch (e) {
    if (!isAppError(e)) throw e;
    if (e.code === "forbidden") forbidden();
    if (e.code === "unauthorized") unauthorized();
    notice = `Not approved: ${e.message}`;
  }
  revalidatePath("/admin/canary");
  revalidatePath("/admin/audit");
  redirect(`/admin/canary?notice=${encodeURIComponent(notice)}`);
}
