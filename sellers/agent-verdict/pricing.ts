/**
 * The dynamic quote (docs/spec/products.md "Agent verdict service: payment"; the formula is
 * docs/AGENT-VERDICT.md "Quote"): from the $0.04 floor, growing with the number of criteria and the
 * size of the deliverable, known before any work is done. The quote id is a hash of what was quoted,
 * so the same request on the same terms always gets the same ARBITER-QUOTE-ID, and a changed
 * request a different one. Money is atomic units as bigint.
 */
import { FLOOR_ATOMIC } from "./product";
import { hashCanonical } from "./digest";
import type { PreparedRequest } from "./request";
import { PROGRAM_ROOT } from "./verdict";

/** Included in the floor: this many criteria and this many bytes. */
export const INCLUDED_CRITERIA = 8;
export const INCLUDED_BYTES = 8 * 1024;
/** Each criterion beyond the included ones: $0.0005. */
export const PER_CRITERION_ATOMIC = 500n;
/** Each started 4 KiB beyond the included bytes: $0.001. */
export const PER_BLOCK_ATOMIC = 1_000n;
export const BLOCK_BYTES = 4 * 1024;

export interface Terms {
  network: string;
  asset: string;
  payTo: string;
}

export interface Quote {
  quoteId: string;
  amount: string;
  basis: { criteria: number; byteLength: number };
}

export function quoteAmount(criteria: number, byteLength: number): bigint {
  const extraCriteria = BigInt(Math.max(0, criteria - INCLUDED_CRITERIA));
  const extraBlocks = BigInt(Math.max(0, Math.ceil((byteLength - INCLUDED_BYTES) / BLOCK_BYTES)));
  return FLOOR_ATOMIC + extraCriteria * PER_CRITERION_ATOMIC + extraBlocks * PER_BLOCK_ATOMIC;
}

export function quoteFor(p: PreparedRequest, terms: Terms): Quote {
  const basis = { criteria: p.criteria.length, byteLength: p.deliverable.bytes.length };
  const amount = quoteAmount(basis.criteria, basis.byteLength).toString();
  const quoteId = `avq_${hashCanonical({ inputRoot: p.inputRoot, amount, ...terms, programRoot: PROGRAM_ROOT }).slice(0, 32)}`;
  return { quoteId, amount, basis };
}
