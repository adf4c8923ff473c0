"use client";
/**
 * A listing's logo when the monitor saw it load, else a monogram. The logo can still fail in the
 * buyer's browser (moved, blocked, offline): then the monogram takes its place, never a broken image.
 */
import { useEffect, useRef, useState } from "react";

export function Monogram({ title, logoUrl, size = 44 }: { title: string; logoUrl?: string | null; size?: number }) {
  const [failed, setFailed] = useState(false);
  const img = useRef<HTMLImageElement>(null);
  // A server-rendered <img> can fail before React hydrates and attaches onError: check once mounted.
  useEffect(() => {
    const el = img.current;
    if (el && el.complete && el.naturalWidth === 0) setFailed(true);
  }, [logoUrl]);
  if (logoUrl && !failed) {
    // eslint-disable-next-line @next/next/no-img-element
    return <img ref={img} src={logoUrl} alt="" width={size} height={size} onError={() => setFailed(true)} className="shrink-0 rounded-lg border border-line bg-white object-contain" style={{ width: size, height: size }} />;
  }
  const letters = title.replace(/[^A-Za-z0-9 ]/g, "").split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0]!.toUpperCase()).join("") || "?";
  let h = 0;
  for (const c of title) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const hues = ["bg-indigo-700", "bg-teal-700", "bg-rose-700", "bg-amber-700", "bg-sky-700", "bg-violet-700", "bg-emerald-700"];
  return (
    <span aria-hidden className={`inline-flex shrink-0 items-center justify-center rounded-lg font-semibold text-white ${hues[h % hues.length]}`} style={{ width: size, height: size, fontSize: size * 0.38 }}>
      {letters}
    </span>
  );
}
