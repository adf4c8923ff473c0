import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { EndpointTrust } from "@/components/trust/endpoint-trust";
import { publicEndpointPage } from "@/lib/surfaces/public-pages";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ slug: string; endpointId: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { slug, endpointId } = await params;
  const page = await publicEndpointPage(slug, endpointId);
  return { title: page ? `Trust grade · ${page.listing.title}` : "Listing not found" };
}

export default async function EndpointTrustPage({ params }: Params) {
  const { slug, endpointId } = await params;
  const page = await publicEndpointPage(slug, endpointId);
  if (!page) notFound();
  const { listing, trust: t } = page;
  return (
    <article className="min-w-0">
      <p className="text-sm"><Link href={`/listings/${listing.slug}`} className="text-brand underline">{listing.title}</Link></p>
      <h1 className="mt-1 flex flex-wrap items-center gap-2 text-2xl font-semibold tracking-tight">
        <span>Trust grade</span>
        <span className="rounded bg-slate-900 px-2 py-0.5 font-mono text-xs font-semibold text-white">{t.method}</span>
        <code className="break-all font-mono text-lg">{t.path}</code>
      </h1>
      <p className="mt-1 text-sm text-muted">What the catalog&apos;s own probes and paid samples saw of this endpoint, scored by the trust rubric. Separate from readiness, and never part of rank.</p>
      <div className="mt-6">
        <EndpointTrust t={t} />
      </div>
    </article>
  );
}
