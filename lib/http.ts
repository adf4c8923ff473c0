/** Parsing request bodies with zod into AppError 400s that name the field (docs/spec/style.md practice 3). */
import type { z } from "zod";
import { AppError, readJson } from "@/lib/errors";

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({ pointer: "/" + i.path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/"), message: i.message }));
  throw new AppError("bad_request", `request body is invalid at ${details[0].pointer}: ${details[0].message}`, details);
}

export async function readBody<S extends z.ZodType>(req: Request, schema: S, maxBytes?: number): Promise<z.infer<S>> {
  return parseWith(schema, await readJson(req, maxBytes));
}
