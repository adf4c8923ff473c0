import type { Metadata } from "next";
import { parseCatalogQuery } from "@/lib/surfaces/catalog";
import { publicCatalogPage } from "@/lib/surfaces/public-pages";
import { CatalogFilters, CatalogResults } from "./sections";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Catalog" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function CatalogPage({ searchParams }: Props) {
  const q = parseCatalogQuery(await searchParams);
  const { view, trust } = (await publicCatalogPage(q))!;
  const filtered = !!(q.category || q.network || q.protocol || q.minPrice || q.maxPrice);
  return (
    <div>
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Pay-per-call APIs</h1>
        <p className="mt-1 max-w-3xl text-sm text-muted">
          Services you can pay per request over HTTP 402 (x402 or MPP). Each shows its readiness: how complete the listing is for an agent to find, understand, pay and call it.
        </p>
      </div>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[16rem_1fr]">
        <CatalogFilters q={q} view={view} filtered={filtered} />

        <CatalogResults q={q} view={view} trust={trust} filtered={filtered} />
      </div>
    </div>
  );
}
