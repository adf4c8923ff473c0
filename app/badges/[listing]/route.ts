/**
 * GET /badges/<slug>.svg?style=…&label=…&logo=… (the readiness badge) and /badges/<slug>.dsse.json
 * (its DSSE envelope alone), docs/BADGES.md "Serving". Anything but an envelope answers an SVG even
 * when it fails (lib/badges/error-badge.ts): never JSON where an image goes.
 */
import { etagOf, ifNoneMatchHits } from "@/lib/badges/issue";
import { parseBadgeQuery } from "@/lib/badges/query";
import { badgeForListing, parseBadgeSegment } from "@/lib/badges/server";
import { errorBadgeResponse } from "@/lib/badges/error-badge";
import type { LogoName } from "@/lib/badges/logos";
import { AppError, toResponse } from "@/lib/errors";
import { routeParams } from "@/lib/http";

const COMMON = { "x-content-type-options": "nosniff", "access-control-allow-origin": "*" };

export async function GET(req: Request, ctx: { params: Promise<{ listing: string }> }): Promise<Response> {
  const url = new URL(req.url);
  const target = parseBadgeSegment((await ctx.params).listing);
  try {
    await routeParams(ctx.params);
    if (!target) throw new AppError("not_found", "badges are at /badges/<slug>.svg or /badges/<slug>.dsse.json");

    let style: Parameters<typeof badgeForListing>[1] = "flat";
    let label: string | undefined;
    let logo: LogoName | undefined;
    if (target.format === "svg") {
      const q = parseBadgeQuery(url.searchParams);
      if (!q.ok) throw new AppError("bad_request", q.error.message, [], { param: q.error.param, reason: q.error.code });
      ({ style, label, logo } = q);
    } else {
      const first = [...url.searchParams.keys()][0];
      if (first !== undefined) throw new AppError("bad_request", `unknown query parameter "${first.slice(0, 40)}"; the envelope takes none`, [], { param: first.slice(0, 40), reason: "unknown_parameter" });
    }

    const found = await badgeForListing(target.slug, style, label, new Date(), logo ? { logo } : {});
    if (!found) throw new AppError("not_found", `no listing "${target.slug.slice(0, 80)}"`);
    const { badge } = found;

    let body: string;
    let etag: string;
    let contentType: string;
    if (target.format === "svg") {
      [body, etag, contentType] = [badge.svg, badge.etag, "image/svg+xml; charset=utf-8"];
    } else {
      if (!badge.signed) throw new AppError("not_found", `no signed statement for this listing: ${badge.refusal.message}`, [], { reason: badge.refusal.code });
      body = JSON.stringify(badge.envelope);
      [etag, contentType] = [etagOf(body), "application/json; charset=utf-8"];
    }
    const headers = { ...COMMON, etag, "cache-control": badge.cacheControl };
    if (ifNoneMatchHits(req.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers: { ...headers, "content-type": contentType } });
  } catch (e) {
    // The envelope is JSON, so its errors are; everything else is where an image goes.
    if (target?.format === "envelope") return toResponse(e);
    return errorBadgeResponse(e, url.searchParams.get("style"), COMMON);
  }
}
