import type { ReactNode } from "react";
import { requireListingAccess } from "@/lib/listings/access";
import { sessionUserId } from "@/lib/auth/session";
import { orPageError } from "@/lib/surfaces/guard";

/**
 * Sign-in and ownership are checked before loading.tsx starts streaming, so another seller's listing
 * answers 404 with a 404 status. The pages' read models still authorise on their own.
 */
export default async function OwnListingLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  const uid = await sessionUserId();
  await orPageError(() => requireListingAccess(uid, id), `/dashboard/listings/${id}`);
  return children;
}
