/**
 * The rubric and reading documents this verifier was written against: SHA-256 of each document's
 * canonical JSON (RFC 8785), and the copies it ships (verifier/rubrics/). A bundle naming another
 * document is refused (unknown_rubric, rubric_hash); a new version is a new line here and a new file.
 */
import { readFileSync } from "node:fs";
import type { RubricDoc, Semantics } from "./engine.ts";
import { canonicalSha256 } from "./jcs.ts";

export const RUBRIC_PINS: Record<string, string> = {
  "x402-endpoint/1.0.0-draft.1": "74887cd9fad894a2ee80cb5dce200027c009a07aa45248056783a4f460b3346f",
};

export const READING_PINS: Record<string, string> = {
  "x402-endpoint/1.0.0-draft.1/reading-1": "3e0a3cc3d69808d5f8f356872738fa5c983ef91525e38113341e7ea959c36760",
  "x402-endpoint/1.0.0-draft.1/reading-2": "2a07ac378c212b196e07be8dcd7c710f6cdb16ba5b2806dc8c47274b1189558f",
  "x402-endpoint/1.0.0-draft.1/reading-3": "6bca825cb4c82ed4ff2d6796c6085356062102f838f295b7aa745a49c9ccdd0e",
};

/** The shipped copy of each pinned document, by ref. */
const FILES: Record<string, string> = {
  "x402-endpoint/1.0.0-draft.1": "x402-endpoint-1.0.0-draft.1.json",
  "x402-endpoint/1.0.0-draft.1/reading-1": "x402-endpoint-1.0.0-draft.1.reading-1.json",
  "x402-endpoint/1.0.0-draft.1/reading-2": "x402-endpoint-1.0.0-draft.1.reading-2.json",
  "x402-endpoint/1.0.0-draft.1/reading-3": "x402-endpoint-1.0.0-draft.1.reading-3.json",
};

const loaded = new Map<string, unknown>();

/** The shipped document pinned under `ref`, read once and checked against its pin (a copy that does not match is never used). */
function pinned(ref: string, pins: Record<string, string>): unknown {
  if (!(ref in pins) || !(ref in FILES)) throw new Error(`no pinned document ${ref}`);
  let doc = loaded.get(ref);
  if (doc === undefined) {
    doc = JSON.parse(readFileSync(new URL(`../rubrics/${FILES[ref]}`, import.meta.url), "utf8"));
    const got = canonicalSha256(doc);
    if (got !== pins[ref]) throw new Error(`the shipped copy of ${ref} (verifier/rubrics/${FILES[ref]}) hashes to ${got}, not its pin ${pins[ref]}`);
    loaded.set(ref, doc);
  }
  return doc;
}

export const pinnedRubric = (ref: string) => pinned(ref, RUBRIC_PINS) as RubricDoc;
export const pinnedReading = (ref: string) => pinned(ref, READING_PINS) as { rubric?: string; version?: number; semantics: Semantics };
