import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AddService } from "@/components/add-service";
import { currentActor } from "@/lib/auth/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Add a service" };

export default async function NewListingPage() {
  const actor = await currentActor();
  if (!actor) redirect("/signin?callbackUrl=/dashboard/new");
  return (
    <div>
      <p className="text-sm"><Link href="/dashboard" className="text-brand underline">← My listings</Link></p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Add a service</h1>
      <p className="mt-1 max-w-3xl text-sm text-muted">Paste your API&apos;s URL. We draft the listing from what it publishes; you review every field the readiness rules read, then save a draft or publish.</p>
      {actor.organizationId ? (
        <div className="mt-6"><AddService /></div>
      ) : (
        <p className="mt-6 rounded-lg border border-dashed border-line bg-white p-6 text-muted">Your account has no seller organisation, so it cannot list services. Sign in with a seller account.</p>
      )}
    </div>
  );
}
