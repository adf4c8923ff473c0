/** Keeps a path prefix the baseUrl carries. */
export function endpointUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
}

/** A URL as one endpoint of one server: scheme, host (lower-cased, no default port), path without a trailing slash; no query. Null unless http(s). */
export function urlKey(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "") || "/"}`;
}

export const endpointUrlKey = (baseUrl: string, path: string): string | null => urlKey(endpointUrl(baseUrl, path));
