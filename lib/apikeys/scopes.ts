/**
 * API key scopes, each named after the route it opens. Pure, so the admins' page can list them. Keys made before
 * scopes hold all of them.
 */
import { AppError } from "@/lib/errors";

export const API_KEY_SCOPES = ["router:select", "router:call", "facilitator:settle"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEY_SCOPE_WORDS: Record<ApiKeyScope, { routes: string; what: string }> = {
  "router:select": { routes: "POST /router/select · MCP select_services", what: "a shortlist of services for a task, with rankScore" },
  "router:call": { routes: "ANY /router/call/<listing>/<path>", what: "call and pay a listed endpoint through the router" },
  "facilitator:settle": { routes: "POST /api/facilitator/verify · POST /api/facilitator/settle", what: "a seller's payments verified and settled by Tollgate's facilitator (it pays the gas)" },
};

export function isApiKeyScope(v: unknown): v is ApiKeyScope {
  return typeof v === "string" && (API_KEY_SCOPES as readonly string[]).includes(v);
}

/** A non-empty array of known scopes, each once, in canonical order; a 400 names the pointer. */
export function parseScopes(value: unknown, pointer = "/scopes"): ApiKeyScope[] {
  const known = API_KEY_SCOPES.join(", ");
  if (!Array.isArray(value) || value.length === 0) {
    throw new AppError("bad_request", `${pointer} must be a non-empty array of scopes (${known})`, [{ pointer, message: `must be a non-empty array of scopes (${known})` }]);
  }
  value.forEach((s, i) => {
    if (!isApiKeyScope(s)) throw new AppError("bad_request", `${pointer}/${i} is not a scope: ${JSON.stringify(s)} (known: ${known})`, [{ pointer: `${pointer}/${i}`, message: `is not a scope (known: ${known})` }]);
    if (value.indexOf(s) !== i) throw new AppError("bad_request", `${pointer}/${i} repeats ${s}`, [{ pointer: `${pointer}/${i}`, message: `repeats ${s}` }]);
  });
  return API_KEY_SCOPES.filter((s) => value.includes(s));
}
