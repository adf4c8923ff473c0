/** Join a listing-relative path onto the listing's baseUrl, keeping a path prefix the baseUrl carries. */
export function endpointUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
}
