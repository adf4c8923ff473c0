/**
 * Which trust history each saved endpoint continues (docs/TRUST.md "Which history an endpoint has"): an
 * earlier key of the same method at the same URL, else at the same listed path (a `url` revision), else its
 * own path (`#n` when taken). Each earlier key is given once.
 */
import { endpointUrlKey } from "@/lib/listing-document/endpoint-url";

export interface KeyedEndpoint {
  method: string;
  path: string;
  trustPath: string;
}

export function carriedTrustPaths(before: { baseUrl: string; endpoints: KeyedEndpoint[] } | null, baseUrl: string, now: { method: string; path: string }[]): string[] {
  const old = (before?.endpoints ?? []).map((e) => ({ ...e, url: endpointUrlKey(before!.baseUrl, e.path), free: true }));
  const out: (string | null)[] = now.map(() => null);
  const give = (i: number, match: (o: (typeof old)[number]) => boolean) => {
    const o = old.find((x) => x.free && x.method === now[i].method && match(x));
    if (o) [o.free, out[i]] = [false, o.trustPath];
  };
  const urls = now.map((e) => endpointUrlKey(baseUrl, e.path));
  now.forEach((e, i) => urls[i] !== null && give(i, (o) => o.url === urls[i] && o.path === e.path));
  now.forEach((_e, i) => urls[i] !== null && out[i] === null && give(i, (o) => o.url === urls[i]));
  now.forEach((e, i) => out[i] === null && give(i, (o) => o.path === e.path));
  const taken = new Set(out.flatMap((k, i) => (k === null ? [] : [`${now[i].method} ${k}`])));
  return out.map((k, i) => {
    if (k !== null) return k;
    let key = now[i].path;
    for (let n = 2; taken.has(`${now[i].method} ${key}`); n++) key = `${now[i].path}#${n}`;
    taken.add(`${now[i].method} ${key}`);
    return key;
  });
}
