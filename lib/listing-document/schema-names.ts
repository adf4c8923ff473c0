/** Property names of an endpoint's schemas: what D3 looks for on its docs page (probe and readiness alike). */
import type { ListingEndpoint } from "./document";

/** Top level or array items; `requiredOnly` reads `required` instead. */
export function schemaPropertyNames(schema: unknown, requiredOnly: boolean): string[] {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [];
  const s = schema as { properties?: unknown; required?: unknown; items?: unknown };
  if (requiredOnly) return Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === "string") : [];
  if (s.properties && typeof s.properties === "object" && !Array.isArray(s.properties)) return Object.keys(s.properties);
  return s.items ? schemaPropertyNames(s.items, false) : [];
}

const branchesOf = (schema: unknown, key: "oneOf" | "anyOf" | "allOf"): unknown[] => {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [];
  const b = (schema as Record<string, unknown>)[key];
  return Array.isArray(b) ? b : [];
};

const namesToAsk = (schema: unknown): string[] => {
  const req = schemaPropertyNames(schema, true);
  return req.length > 0 ? req : schemaPropertyNames(schema, false);
};

/**
 * readiness/1.2.0: for a schema with no top-level names, the names every oneOf/anyOf branch shares and every allOf
 * part's.
 */
export function schemaBranchNames(schema: unknown): string[] {
  const out = new Set<string>();
  for (const key of ["oneOf", "anyOf"] as const) {
    const sets = branchesOf(schema, key).map(namesToAsk);
    if (sets.length > 0) for (const n of sets[0]) if (sets.every((s) => s.includes(n))) out.add(n);
  }
  for (const part of branchesOf(schema, "allOf")) for (const n of namesToAsk(part)) out.add(n);
  return [...out];
}

function allBranchNames(schema: unknown): string[] {
  return (["oneOf", "anyOf", "allOf"] as const).flatMap((k) => branchesOf(schema, k).flatMap((b) => [...schemaPropertyNames(b, true), ...schemaPropertyNames(b, false)]));
}

export function docsNamesOf(ep: Pick<ListingEndpoint, "requestSchema" | "responseSchema">): string[] {
  return [
    ...new Set([
      ...schemaPropertyNames(ep.requestSchema, true),
      ...schemaPropertyNames(ep.requestSchema, false),
      ...schemaPropertyNames(ep.responseSchema, true),
      ...schemaPropertyNames(ep.responseSchema, false),
      ...allBranchNames(ep.requestSchema),
      ...allBranchNames(ep.responseSchema),
    ]),
  ];
}
