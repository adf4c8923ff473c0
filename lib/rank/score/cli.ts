/** The logic of `npm run rank` (docs/RANK.md "CLI"), I/O injected. Exit: 0 printed; 2 bad usage or input; 1 the database layer threw. */
import { z } from "zod";
import { FEATURED_MAX_LEVEL } from "./constants";
import { computeRankFromComponents, type RankComponentsInput, type RankResult } from "./compute";

export const USAGE = `usage: npm run rank -- <components.json>   score components given in a file
       npm run rank -- <listing-id>        score a listing from the ledger and monitor (database)

components.json: {"gate": "settleable", "liveness": 0.95, "traction": 0.88, "priceIntegrity": 0.96,
                  "featuredLevel": 0, "verification": "verified"}
  gate          settleable | unknown | unpayable
  liveness, traction, priceIntegrity   numbers 0–1
  featuredLevel integer 0–${FEATURED_MAX_LEVEL}
  verification  verified | unverified | degraded

An argument ending in .json, or containing a path separator, is a file; anything else is a listing id.`;

export interface RankInputsModule {
  rankForListing(id: string): Promise<RankResult | null>;
}

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): Promise<string>;
  /** Lazy, so file mode never opens the database. */
  loadRankInputs(): Promise<RankInputsModule>;
}

const unit = (name: string) =>
  z
    .number({ error: (iss) => (iss.input === undefined ? "is required" : `must be a number 0–1, got ${JSON.stringify(iss.input)}`) })
    .min(0, { error: `${name} must be 0–1` })
    .max(1, { error: `${name} must be 0–1` });

const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (iss) => (iss.input === undefined ? "is required" : `must be one of ${values.join(", ")}, got ${JSON.stringify(iss.input)}`),
  });

export const ComponentsFileSchema = z.strictObject(
  {
    gate: enumOf(["settleable", "unknown", "unpayable"] as const),
    liveness: unit("liveness"),
    traction: unit("traction"),
    priceIntegrity: unit("priceIntegrity"),
    featuredLevel: z
      .number({ error: (iss) => (iss.input === undefined ? "is required" : `must be an integer 0–${FEATURED_MAX_LEVEL}, got ${JSON.stringify(iss.input)}`) })
      .int({ error: `must be an integer 0–${FEATURED_MAX_LEVEL}` })
      .min(0, { error: `must be an integer 0–${FEATURED_MAX_LEVEL}` })
      .max(FEATURED_MAX_LEVEL, { error: `must be an integer 0–${FEATURED_MAX_LEVEL}` }),
    verification: enumOf(["verified", "unverified", "degraded"] as const),
  },
  { error: (iss) => (iss.code === "unrecognized_keys" ? "is not a known field" : "must be a JSON object") },
);

export interface FieldError {
  pointer: string;
  message: string;
}

export type ParseComponentsResult = { ok: true; components: RankComponentsInput } | { ok: false; errors: FieldError[] };

/** Never throws; every problem by JSON pointer. */
export function parseComponentsFile(text: string): ParseComponentsResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [{ pointer: "", message: `is not JSON (${(e as Error).message.replace(/\s+/g, " ")})` }] };
  }
  const parsed = ComponentsFileSchema.safeParse(json);
  if (parsed.success) return { ok: true, components: parsed.data };
  const errors: FieldError[] = [];
  for (const issue of parsed.error.issues) {
    const base = issue.path.map((p) => String(p));
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) errors.push({ pointer: toPointer([...base, key]), message: "is not a known field" });
    } else {
      errors.push({ pointer: toPointer(base), message: issue.message });
    }
  }
  return { ok: false, errors };
}

export function toPointer(path: readonly string[]): string {
  return path.map((p) => "/" + p.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export function isFileArgument(arg: string): boolean {
  return arg.toLowerCase().endsWith(".json") || arg.includes("/") || arg.includes("\\");
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const args = argv.filter((a) => a !== "--");
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    io.stdout(USAGE + "\n");
    return 0;
  }
  if (args.length !== 1 || args[0] === "") {
    io.stderr(`rank: expected exactly one argument\n${USAGE}\n`);
    return 2;
  }
  const arg = args[0];
  return isFileArgument(arg) ? fileMode(arg, io) : listingMode(arg, io);
}

async function fileMode(path: string, io: CliIo): Promise<number> {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (e) {
    io.stderr(`rank: ${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})\n`);
    return 2;
  }
  const parsed = parseComponentsFile(text);
  if (!parsed.ok) {
    for (const err of parsed.errors) io.stderr(`rank: ${path}: ${err.pointer === "" ? "(document)" : err.pointer} ${err.message}\n`);
    return 2;
  }
  io.stdout(JSON.stringify(computeRankFromComponents(parsed.components), null, 2) + "\n");
  return 0;
}

async function listingMode(id: string, io: CliIo): Promise<number> {
  const mod = await io.loadRankInputs();
  let result: RankResult | null;
  try {
    result = await mod.rankForListing(id);
  } catch (e) {
    io.stderr(`rank: ${id}: ${(e as Error).message}\n`);
    return 1;
  }
  if (!result) {
    io.stderr(`rank: no listing with id ${JSON.stringify(id)}\n`);
    return 2;
  }
  io.stdout(JSON.stringify(result, null, 2) + "\n");
  return 0;
}
