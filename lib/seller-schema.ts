/**
 * The one compiler for seller-declared JSON Schemas: Ajv 2020-12 options in one place, an LRU by schema hash, and
 * hostile schemas (too large, deep or slow) refused by name.
 */
import crypto from "node:crypto";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";

export type { ValidateFunction };
import addFormats from "ajv-formats";

const UNKNOWN_FORMAT = /^unknown format "/;

/** An unknown format ("int64") is ignored and not logged. */
export const ajvLogger = {
  log: (...args: unknown[]) => console.log(...args),
  warn: (...args: unknown[]) => {
    if (typeof args[0] === "string" && UNKNOWN_FORMAT.test(args[0])) return;
    console.warn(...args);
  },
  error: (...args: unknown[]) => console.error(...args),
};

export function sellerAjv(extra: { validateSchema?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: ajvLogger, ...extra });
  addFormats(ajv);
  return ajv;
}

export type SchemaRefusalCode = "schema_too_large" | "schema_too_deep" | "schema_compile_too_slow" | "schema_does_not_compile";

/** `code` names why. */
export class SchemaRefused extends Error {
  constructor(
    readonly code: SchemaRefusalCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "SchemaRefused";
  }
}

export interface SchemaCompilerLimits {
  /** Validators and refusals, LRU. */
  maxEntries: number;
  /** UTF-8 bytes of the JSON text. */
  maxBytes: number;
  /** Object and array nesting. */
  maxDepth: number;
  /** A slower compile is refused, and the refusal kept. */
  compileBudgetMs: number;
}

export const SELLER_SCHEMA_LIMITS: SchemaCompilerLimits = { maxEntries: 256, maxBytes: 256 * 1024, maxDepth: 64, compileBudgetMs: 500 };

export interface SchemaCompiler {
  /** Throws SchemaRefused. */
  compile(schema: object | boolean): ValidateFunction;
  /** LRU first. */
  keys(): string[];
}

export function createSchemaCompiler(limits: SchemaCompilerLimits = SELLER_SCHEMA_LIMITS): SchemaCompiler {
  let ajv: Ajv2020 | null = null;
  const cache = new Map<string, ValidateFunction | SchemaRefused>();
  const remember = (key: string, v: ValidateFunction | SchemaRefused) => {
    cache.set(key, v);
    while (cache.size > limits.maxEntries) cache.delete(cache.keys().next().value!);
  };
  return {
    keys: () => [...cache.keys()],
    compile(schema) {
      const text = JSON.stringify(schema);
      const key = crypto.createHash("sha256").update(text).digest("hex");
      let v = cache.get(key);
      if (v) {
        cache.delete(key);
        cache.set(key, v);
      } else {
        // The 2020-12 meta-schema is compiled before the timed compile, not in it.
        if (!ajv) (ajv = sellerAjv()).validateSchema({});
        v = compileOnce(ajv, schema, text, limits);
        remember(key, v);
      }
      if (v instanceof SchemaRefused) throw v;
      return v;
    },
  };
}

function compileOnce(ajv: Ajv2020, schema: object | boolean, text: string, limits: SchemaCompilerLimits): ValidateFunction | SchemaRefused {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limits.maxBytes) return new SchemaRefused("schema_too_large", `the schema is ${bytes} bytes, over ${limits.maxBytes}`);
  if (depthOver(schema, limits.maxDepth)) return new SchemaRefused("schema_too_deep", `the schema nests deeper than ${limits.maxDepth} levels`);
  const started = performance.now();
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (e) {
    return new SchemaRefused("schema_does_not_compile", e instanceof Error ? e.message : String(e));
  } finally {
    // Dropped from Ajv at once, so one seller's $id never collides with another's.
    if (typeof schema === "object") ajv.removeSchema(schema);
  }
  const ms = performance.now() - started;
  if (ms > limits.compileBudgetMs) return new SchemaRefused("schema_compile_too_slow", `compiling took ${Math.round(ms)} ms, over ${limits.compileBudgetMs} ms`);
  return validate;
}

function depthOver(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}

export const sellerSchemas = createSchemaCompiler();
