/** SHA-256 of bytes and of canonical JSON for the rubric and reading pins, and the refusal error. */
import { createHash } from "node:crypto";

export const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** Sorted keys at every level, no whitespace. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(",")}}`;
}

export const contentDigest = (v: unknown) => sha256(canonicalJson(v));

export interface RubricProblem {
  /** "" for the file itself. */
  pointer: string;
  message: string;
}

export class RubricError extends Error {
  constructor(
    readonly ref: string,
    readonly problems: RubricProblem[],
  ) {
    super(`rubric ${ref} refused:\n${problems.map((p) => `- ${p.pointer || "/"}: ${p.message}`).join("\n")}`);
    this.name = "RubricError";
  }
}

