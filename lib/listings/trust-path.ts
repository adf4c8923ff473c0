/**
 * Which trust history each saved endpoint continues (docs/TRUST.md "Which history an endpoint has"): a key
 * of the same method at the same URL (an earlier endpoint's, then one in `history`: the listing's keys with
 * their latest revision's URL), else the same listed path's (a `url` revision), else its own path (`#n`
 * when taken). Each key is given once.
 */
import { endpointUrlKey } from "@/lib/listing-document/endpoint-url";

export interface KeyedEndpoint {
  method: string;
  path: string;
  trustPath: string;
}

export function carriedTrustPaths(
  before: { baseUrl: string; endpoints: KeyedEndpoint[] } | null,
  baseUrl: string,
  now: { method: string; path: string }[],
  history: { method: string; trustPath: string; url: string | null }[] = [],
): string[] {
  const held = new Set((before?.endpoints ?? []).map((e) => `${e.method} ${e.trustPath}`));
  const old: { method: string; path: string | null; trustPath: string; url: string | null; free: boolean }[] = [
    ...(before?.endpoints ?? []).map((e) => ({ ...e, url: endpointUrlKey(before!.baseUrl, e.path), free: true })),
    ...history.filter((h) => h.url !== null && !held.has(`${h.method} ${h.trustPath}`)).map((h) => ({ ...h, path: null, free: true })),
  ];
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
