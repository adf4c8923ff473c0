/** The badge to paste, in Markdown and HTML, with the four styles previewed (lib/badges: /badges/<slug>.svg?style=…). */
const STYLES = ["flat", "flat-square", "plastic", "for-the-badge"] as const;

export function BadgeSnippet({ slug, origin, preview = true }: { slug: string; origin: string; preview?: boolean }) {
  const page = `${origin}/listings/${slug}`;
  return (
    <div className="space-y-4">
      <ul className="grid gap-3 sm:grid-cols-2">
        {STYLES.map((style) => {
          const src = `${origin}/badges/${slug}.svg${style === "flat" ? "" : `?style=${style}`}`;
          const md = `[![Tollgate readiness](${src})](${page})`;
          const html = `<a href="${page}"><img src="${src}" alt="Tollgate readiness"></a>`;
          return (
            <li key={style} className="rounded-lg border border-line p-3">
              <p className="text-xs font-semibold text-muted">{style}</p>
              {preview && (
                // eslint-disable-next-line @next/next/no-img-element
                <img src={`/badges/${slug}.svg?style=${style}`} alt={`Readiness badge, ${style} style`} className="mt-2 h-5 max-w-full" style={style === "for-the-badge" ? { height: 28 } : undefined} />
              )}
              <p className="mt-3 text-xs font-medium">Markdown</p>
              <pre className="mt-1 select-all overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-[11px] text-slate-800">{md}</pre>
              <p className="mt-2 text-xs font-medium">HTML</p>
              <pre className="mt-1 select-all overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-[11px] text-slate-800">{html}</pre>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
