import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { MODERATION_ROLES, requireRole } from "@/lib/auth/roles";
import { sessionUserId } from "@/lib/auth/session";
import { orPageError } from "@/lib/surfaces/guard";

/**
 * Answers 403 (or sends to sign-in) before app/admin/(desk)/loading.tsx starts streaming, so the
 * status code is right. The skeleton covers the moderators' pages in the (desk) route group only:
 * /admin/api-keys (admins only) is outside it, so its own check answers 403 before anything streams.
 * Not the only gate: every read model and server action under /admin authorises itself.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const uid = await sessionUserId();
  if (!uid) redirect("/signin?callbackUrl=/admin");
  await orPageError(() => requireRole(uid, MODERATION_ROLES), "/admin");
  return children;
}
