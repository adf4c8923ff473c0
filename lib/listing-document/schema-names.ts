/**
 * Property names of an endpoint's request and response schemas: what D3 (readiness/1.1.0 reading
 * "endpoint-docs") looks for on the endpoint's docs page. Shared by the probe, which records which of
 * them a page contains, and the readiness engine, which decides which of them the page must show.
 */
import type { ListingEndpoint } from "./document";

/** A schema's property names at the top level, or of its array items; `requiredOnly` reads `required` instead. */
export function schemaPropertyNames(schema: unknown, requiredOnly: boolean): string[] {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [];
  const s = schema as { properties?: unknown; required?: unknown; items?: unknown };
  if (requiredOnly) return Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === "string") : [];
  if (s.properties && typeof s.properties === "object" && !Array.isArray(s.properties)) return Object.keys(s.properties);
  return s.items ? schemaPropertyNames(s.items, false) : [];
}

/** Every name the probe looks for on an endpoint's docs page: required and declared properties of both schemas. */
export function docsNamesOf(ep: Pick<ListingEndpoint, "requestSchema" | "responseSchema">): string[] {
  return [
    ...new Set([
      ...schemaPropertyNames(ep.requestSchema, true),
      ...schemaPropertyNames(ep.requestSchema, false),
      ...schemaPropertyNames(ep.responseSchema, true),
      ...schemaPropertyNames(ep.responseSchema, false),
    ]),
  ];
}
