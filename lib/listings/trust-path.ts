/**
 * Which trust history each saved endpoint continues (docs/TRUST.md "Which history an endpoint has"): a key
 * of the same method at the same URL (an earlier endpoint's now, then any key at any URL it had: `history`,
 * the listing's revision URLs), else an earlier endpoint's with the same listed path (a `url` revision), else
 * its own path (`#n` when taken). Each key is given once.
 */
import { endpointUrlKey } from "@/lib/listing-document/endpoint-url";

export interface KeyedEndpoint {
  method: string;
  path: string;
  trustPath: string;
}

type Candidate = { method: string; path: string | null; trustPath: string; url: string | null; urls: Set<string>; free: boolean };

const keyOf = (x: { method: string; trustPath: string }) => `${x.method} ${x.trustPath}`;
const bare = (path: string) => path.replace(/\/+$/, "");

export function carriedTrustPaths(
  before: { baseUrl: string; endpoints: KeyedEndpoint[] } | null,
  baseUrl: string,
  now: { method: string; path: string }[],
  history: { method: string; trustPath: string; url: string | null }[] = [],
): string[] {
  const seen = new Map<string, Candidate>();
  for (const e of before?.endpoints ?? []) {
    const url = endpointUrlKey(before!.baseUrl, e.path);
    seen.set(keyOf(e), { ...e, url, urls: new Set(url === null ? [] : [url]), free: true });
  }
  for (const h of history) {
    if (h.url === null) continue;
    const c = seen.get(keyOf(h)) ?? seen.set(keyOf(h), { ...h, path: null, url: null, urls: new Set(), free: true }).get(keyOf(h))!;
    c.urls.add(h.url);
  }
  const candidates = [...seen.values()];
  const out: (string | null)[] = now.map(() => null);
  const urls = now.map((e) => endpointUrlKey(baseUrl, e.path));
  const pass = (match: (c: Candidate, i: number) => boolean) =>
    now.forEach((e, i) => {
      if (out[i] !== null) return;
      const c = candidates.find((x) => x.free && x.method === e.method && match(x, i));
      if (c) [c.free, out[i]] = [false, c.trustPath];
    });
  pass((c, i) => urls[i] !== null && c.url === urls[i] && c.path === now[i].path);
  pass((c, i) => urls[i] !== null && c.url === urls[i]);
  pass((c, i) => urls[i] !== null && c.urls.has(urls[i]!));
  pass((c, i) => c.path !== null && bare(c.path) === bare(now[i].path));
  const taken = new Set(out.flatMap((k, i) => (k === null ? [] : [`${now[i].method} ${k}`])));
  return out.map((k, i) => {
    if (k !== null) return k;
    let key = now[i].path;
    for (let n = 2; taken.has(`${now[i].method} ${key}`); n++) key = `${now[i].path}#${n}`;
    taken.add(`${now[i].method} ${key}`);
    return key;
  });
}
