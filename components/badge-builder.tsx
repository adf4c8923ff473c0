"use client";
/**
 * The badge builder on the seller's report: style, label and logo (signed into the badge,
 * docs/BADGES.md), a live preview of exactly the URL the seller will paste, and copy buttons.
 */
import { useMemo, useState } from "react";
import { labelRuleError } from "@/lib/badges/label";
import { visibleText } from "@/lib/badges/text";
import { CopyButton } from "./copy-button";

const STYLES = ["flat", "flat-square", "plastic", "for-the-badge"] as const;
/** lib/badges/logos.ts LOGO_NAMES (a client component does not import the badge room). */
const LOGOS = ["tollgate", "bolt", "shield", "terminal"] as const;

export function badgeUrl(origin: string, slug: string, o: { style: string; label: string; logo: string }): string {
  const q = new URLSearchParams();
  if (o.style !== "flat") q.set("style", o.style);
  if (o.label.trim() && o.label.trim() !== "readiness") q.set("label", o.label.trim());
  if (o.logo) q.set("logo", o.logo);
  const s = q.toString();
  return `${origin}/badges/${encodeURIComponent(slug)}.svg${s ? `?${s}` : ""}`;
}

/** Why the badge route would refuse this label, or null (an empty label falls back to the default). */
export function labelProblem(label: string): string | null {
  const shown = visibleText(label.trim());
  if (label.trim() === "" || shown === "readiness") return null;
  return labelRuleError(shown);
}

export function BadgeBuilder({ slug, origin, preview = true }: { slug: string; origin: string; preview?: boolean }) {
  const [style, setStyle] = useState<string>("flat");
  const [label, setLabel] = useState("readiness");
  const [logo, setLogo] = useState("");
  const url = useMemo(() => badgeUrl(origin, slug, { style, label, logo }), [origin, slug, style, label, logo]);
  // The same rule the badge route applies (lib/badges/label.ts): a refused label is said here, and nothing can be copied.
  const labelError = labelProblem(label);
  const local = url.slice(origin.length);
  const page = `${origin}/listings/${encodeURIComponent(slug)}`;
  const alt = "Tollgate readiness";
  const snippets = [
    { name: "Markdown", text: `[![${alt}](${url})](${page})` },
    { name: "HTML", text: `<a href="${page}"><img src="${url}" alt="${alt}"></a>` },
    { name: "URL", text: url },
  ];
  const field = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm";
  return (
    <div className="space-y-4" data-testid="badge-builder">
      <div className="grid gap-3 sm:grid-cols-3">
        <label className="text-sm font-medium">
          Style
          <select value={style} onChange={(e) => setStyle(e.target.value)} className={field}>
            {STYLES.map((s) => (
              <option key={s} value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="text-sm font-medium">
          Label
          <input value={label} onChange={(e) => setLabel(e.target.value)} maxLength={40} className={`${field} ${labelError ? "border-red-500" : ""}`} aria-describedby="badge-label-rule" aria-invalid={labelError ? true : undefined} aria-errormessage={labelError ? "badge-label-error" : undefined} />
        </label>
        <label className="text-sm font-medium">
          Logo
          <select value={logo} onChange={(e) => setLogo(e.target.value)} className={field}>
            <option value="">none</option>
            {LOGOS.map((l) => (
              <option key={l} value={l}>{l}</option>
            ))}
          </select>
        </label>
      </div>
      <p id="badge-label-rule" className="text-xs text-muted">
        The label is letters in words (no digits, symbols or band names), so it can never pass for a score; it is signed with the badge.
      </p>
      {labelError && (
        <p id="badge-label-error" role="alert" className="rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-900" data-testid="badge-label-error">
          This label cannot be used: {labelError}. Change it to copy the badge.
        </p>
      )}
      <div className="rounded-lg border border-dashed border-line bg-slate-50 p-4">
        <p className="text-xs font-semibold text-muted">Live preview</p>
        {preview ? (
          // eslint-disable-next-line @next/next/no-img-element
          <img key={local} src={local} alt={`Readiness badge preview, ${style}`} className="mt-2 max-w-full" style={{ height: style === "for-the-badge" ? 28 : 20 }} data-testid="badge-preview" />
        ) : (
          <p className="mt-2 text-xs text-muted">No preview: this server cannot sign badges yet.</p>
        )}
      </div>
      <ul className="space-y-3">
        {snippets.map((s) => (
          <li key={s.name} className="min-w-0">
            <div className="flex items-center justify-between gap-2">
              <p className="text-xs font-medium">{s.name}</p>
              <CopyButton text={s.text} label={`Copy ${s.name}`} disabled={labelError !== null} />
            </div>
            <pre className="mt-1 relative overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-[11px] text-slate-800">{s.text}</pre>
          </li>
        ))}
      </ul>
    </div>
  );
}
