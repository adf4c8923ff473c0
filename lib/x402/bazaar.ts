/**
 * C5 "Discovery schema" (docs/spec/trust-rubric.md) for v2 `extensions.bazaar` and v1 `outputSchema`; both spec
 * copies are accepted and the reading recorded.
 */
import type Ajv2020 from "ajv/dist/2020";
import { sellerAjv, sellerSchemas } from "@/lib/seller-schema";
import { validateDiscoveryExtensionSpec } from "@x402/extensions/bazaar";
import type { Finding } from "@/lib/evidence";
import type { JsonSchema } from "@/lib/listing-document/document";
import { isObject, pointer } from "./json";

export type BazaarReading = "coinbase" | "x402-foundation";

export interface BazaarFacts {
  present: boolean;
  reading: BazaarReading | null;
  kind: "http" | "mcp" | null;
  method: string | null;
  requestSchema: JsonSchema | null;
  responseSchema: JsonSchema | null;
  requestExample: unknown;
  responseExample: unknown;
  serviceName: string | null;
  tags: string[] | null;
  iconUrl: string | null;
}

const EMPTY: BazaarFacts = {
  present: false, reading: null, kind: null, method: null, requestSchema: null, responseSchema: null,
  requestExample: undefined, responseExample: undefined, serviceName: null, tags: null, iconUrl: null,
};

// Compiling the 2020-12 meta-schema is the expensive part.
let ajv: Ajv2020 | null = null;
function metaValidator(): Ajv2020 {
  if (!ajv) {
    ajv = sellerAjv({ validateSchema: false });
  }
  return ajv;
}

const problemsCache = new Map<string, string | null>();

export function jsonSchemaProblems(schema: unknown): string | null {
  if (typeof schema === "boolean") return null;
  if (!isObject(schema)) return "is not a JSON Schema object";
  // Sellers send the same schema on every 402: the verdict is remembered (bounded).
  const key = JSON.stringify(schema);
  const cached = problemsCache.get(key);
  if (cached !== undefined) return cached;
  const verdict = metaValidate(schema);
  if (problemsCache.size >= 512) problemsCache.clear();
  problemsCache.set(key, verdict);
  return verdict;
}

function metaValidate(schema: Record<string, unknown>): string | null {
  try {
    const ok = metaValidator().validateSchema(schema);
    if (ok) return null;
    const errs = metaValidator().errors ?? [];
    return errs.slice(0, 3).map((e) => `${e.instancePath || "(root)"} ${e.message}`).join("; ") || "is not valid JSON Schema";
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Never followed. */
export function hasExternalRef(schema: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (Array.isArray(schema)) return schema.some((s) => hasExternalRef(s, depth + 1));
  if (!isObject(schema)) return false;
  for (const [k, v] of Object.entries(schema)) {
    if ((k === "$ref" || k === "$dynamicRef") && typeof v === "string" && !v.startsWith("#")) return true;
    if (hasExternalRef(v, depth + 1)) return true;
  }
  return false;
}

function detectReading(resource: unknown, input: unknown): { reading: BazaarReading; mixed: boolean } {
  const foundation =
    (isObject(resource) && (resource.serviceName != null || resource.tags != null || resource.iconUrl != null)) ||
    (isObject(input) && "toolName" in input);
  const coinbase = isObject(input) && "tool" in input;
  return { reading: foundation ? "x402-foundation" : "coinbase", mixed: foundation && coinbase };
}

const fail = (code: string, message: string, ptr: string): Finding => ({ check: "C5", severity: "fail", code, message, pointer: ptr });

export function checkBazaarV2(pr: Record<string, unknown>): { facts: BazaarFacts; findings: Finding[] } {
  const findings: Finding[] = [];
  const base = pointer("extensions", "bazaar");
  const resource = pr.resource;
  const ext = isObject(pr.extensions) ? pr.extensions.bazaar : undefined;
  if (!isObject(ext)) {
    findings.push(fail("bazaar_missing", "The 402 carries no bazaar discovery extension, so agents cannot read the input and output schemas from it.", base));
    return { facts: { ...EMPTY, ...resourceMeta(resource) }, findings };
  }
  const info = isObject(ext.info) ? ext.info : null;
  const input = info && isObject(info.input) ? info.input : null;
  const output = info && isObject(info.output) ? info.output : null;
  const schema = ext.schema;
  const { reading, mixed } = detectReading(resource, input);
  if (mixed) findings.push({ check: "C5", severity: "info", code: "bazaar_mixed_readings", message: "The extension mixes both specification copies (`tool` and foundation-only fields); read as x402-foundation.", pointer: base });

  if (!info) findings.push(fail("bazaar_info_missing", "The bazaar extension has no `info` object.", base + "/info"));
  else {
    if (!input) findings.push(fail("bazaar_input_missing", "The bazaar extension does not describe the input (`info.input`).", base + "/info/input"));
    if (!output) findings.push(fail("bazaar_output_missing", "The bazaar extension does not describe the output (`info.output`).", base + "/info/output"));
  }

  let schemaValid = false;
  if (schema === undefined) findings.push(fail("bazaar_schema_missing", "The bazaar extension has no `schema` (the JSON Schema of `info`).", base + "/schema"));
  else {
    const problem = jsonSchemaProblems(schema);
    if (problem) findings.push(fail("bazaar_schema_invalid", `The bazaar schema is not valid JSON Schema 2020-12: ${problem}.`, base + "/schema"));
    else if (hasExternalRef(schema)) findings.push(fail("bazaar_ref_external", "The bazaar schema uses a $ref outside its own document; only same-document references can be resolved.", base + "/schema"));
    else schemaValid = true;
  }

  const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const inputSchema = isObject(props.input) ? props.input : null;
  const outputSchema = isObject(props.output) ? props.output : null;
  if (schemaValid && input && !inputSchema) findings.push(fail("bazaar_input_schema_missing", "The bazaar schema has no schema for the input (`schema.properties.input`).", base + "/schema/properties/input"));
  if (schemaValid && output && !outputSchema) findings.push(fail("bazaar_output_schema_missing", "The bazaar schema has no schema for the output (`schema.properties.output`).", base + "/schema/properties/output"));

  if (schemaValid && info) {
    // Compiled schemas cached: the library builds a new Ajv per call (~10 ms).
    const consistency = safeValidate(() => infoMatchesSchema(schema, info));
    if (!consistency.valid) findings.push(fail("bazaar_info_mismatch", `The bazaar info does not validate against its own schema: ${consistency.errors.slice(0, 3).join("; ")}.`, base + "/info"));
    // The library checks the foundation's `toolName`, so translate coinbase's `tool`.
    const specExt = reading === "coinbase" && input && input.type === "mcp" && "tool" in input
      ? { ...ext, info: { ...info, input: { ...input, toolName: input.tool } } }
      : ext;
    const spec = safeValidate(() => validateDiscoveryExtensionSpec(specExt));
    if (!spec.valid) findings.push(fail("bazaar_spec_violation", `The bazaar extension breaks the discovery specification: ${spec.errors.slice(0, 3).join("; ")}.`, base + "/info/input"));
  }

  const kind = input?.type === "mcp" ? "mcp" : input?.type === "http" ? "http" : null;
  const inputProps = inputSchema && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const outputProps = outputSchema && isObject(outputSchema.properties) ? outputSchema.properties : {};
  const requestSchema =
    kind === "mcp" ? (isObject(input?.inputSchema) ? (input!.inputSchema as JsonSchema) : null)
    : (asSchema(inputProps.body) ?? asSchema(inputProps.queryParams));
  const facts: BazaarFacts = {
    present: true,
    reading,
    kind,
    method: typeof input?.method === "string" ? input.method.toUpperCase() : null,
    requestSchema,
    responseSchema: asSchema(outputProps.example),
    requestExample: kind === "mcp" ? input?.example : (input?.body ?? input?.queryParams),
    responseExample: output?.example,
    ...resourceMeta(resource),
  };
  return { facts, findings };
}

export function checkBazaarV1(accepts: unknown[]): { facts: BazaarFacts; findings: Finding[] } {
  const findings: Finding[] = [];
  const index = accepts.findIndex((a) => isObject(a) && a.outputSchema != null);
  if (index < 0) {
    findings.push(fail("bazaar_missing", "No requirement carries an `outputSchema` (v1 discovery), so agents cannot read the input and output from the 402.", pointer("accepts", 0, "outputSchema")));
    return { facts: EMPTY, findings };
  }
  const os = (accepts[index] as Record<string, unknown>).outputSchema;
  const base = pointer("accepts", index, "outputSchema");
  if (!isObject(os)) {
    findings.push(fail("bazaar_schema_invalid", "`outputSchema` is not an object.", base));
    return { facts: EMPTY, findings };
  }
  if (!isObject(os.input)) findings.push(fail("bazaar_input_missing", "`outputSchema.input` is missing.", base + "/input"));
  if (os.output == null) findings.push(fail("bazaar_output_missing", "`outputSchema.output` is missing.", base + "/output"));
  else {
    const problem = jsonSchemaProblems(os.output);
    if (problem) findings.push(fail("bazaar_schema_invalid", `\`outputSchema.output\` is not valid JSON Schema: ${problem}.`, base + "/output"));
  }
  const input = isObject(os.input) ? os.input : {};
  const bodySchema = asSchema(input.bodyFields) ?? asSchema(input.body_fields) ?? asSchema(input.queryParams) ?? asSchema(input.query_params);
  return {
    facts: {
      ...EMPTY, present: true, reading: "coinbase", kind: "http",
      method: typeof input.method === "string" ? input.method.toUpperCase() : null,
      requestSchema: bodySchema, responseSchema: asSchema(os.output),
    },
    findings,
  };
}

export function infoMatchesSchema(schema: unknown, info: unknown): { valid: boolean; errors: string[] } {
  const validate = sellerSchemas.compile(schema as object);
  if (validate(info)) return { valid: true, errors: [] };
  return { valid: false, errors: (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"}: ${e.message}`) };
}

function asSchema(v: unknown): JsonSchema | null {
  return isObject(v) || typeof v === "boolean" ? (v as JsonSchema) : null;
}

function resourceMeta(resource: unknown): Pick<BazaarFacts, "serviceName" | "tags" | "iconUrl"> {
  const r = isObject(resource) ? resource : {};
  return {
    serviceName: typeof r.serviceName === "string" ? r.serviceName : null,
    tags: Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === "string") : null,
    iconUrl: typeof r.iconUrl === "string" ? r.iconUrl : null,
  };
}

function safeValidate(run: () => { valid: boolean; errors?: string[] }): { valid: boolean; errors: string[] } {
  try {
    const r = run();
    return { valid: r.valid, errors: r.errors ?? [] };
  } catch (e) {
    return { valid: false, errors: [e instanceof Error ? e.message : String(e)] };
  }
}
