/**
 * The answers the routes send, as pure functions of a body (and, for a delivery, the instant): the
 * free refusal a paid route answers before any payment, the pre-check's answer, and the delivery
 * released after settlement. service.ts sends exactly these; the corpus test
 * (corpus.test.ts) holds them against the independent reference.
 */
import { checkPrecheck, checkUpto, checkValidity, type Op, type RefusalCode, type UptoInput, type ValidityInput } from "./contract";
import { envelope, precheckFacts, uptoStatement, validityAnalysis, type UptoStatement, type ValidityAnalysis } from "./logic";

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A paid op's body under the contract: the free 400 naming the refusal, or the checked input. */
export function checkPaid(op: "upto", body: unknown): { refused: Answer & { code: RefusalCode } } | { input: UptoInput };
export function checkPaid(op: "validity", body: unknown): { refused: Answer & { code: RefusalCode } } | { input: ValidityInput };
export function checkPaid(op: Op, body: unknown): { refused: Answer & { code: RefusalCode } } | { input: UptoInput | ValidityInput };
export function checkPaid(op: Op, body: unknown): { refused: Answer & { code: RefusalCode } } | { input: UptoInput | ValidityInput } {
  const checked = op === "upto" ? checkUpto(body) : checkValidity(body);
  if (checked.ok) return { input: checked.value };
  return { refused: { status: 400, code: checked.refusal, body: { ...envelope(op), error: "malformed", refusal: checked.refusal, pointer: checked.pointer } } };
}

/** What a paid op delivers for a checked input, computed at `nowUnix` (the server time in seconds). */
export function deliveryFor(op: Op, input: UptoInput | ValidityInput, nowUnix: number): UptoStatement | ValidityAnalysis {
  return op === "upto" ? uptoStatement(input as UptoInput, nowUnix) : validityAnalysis(input as ValidityInput, nowUnix);
}

/** The pre-check's answer (once the free allowance let it through): assessability only. */
export function precheckAnswer(body: unknown): Answer & { op: Op | null; code: RefusalCode | null } {
  const checked = checkPrecheck(body);
  if (!checked.ok) return { status: 400, op: checked.op, code: checked.refusal, body: { ...envelope(checked.op), assessable: false, refusal: checked.refusal, pointer: checked.pointer } };
  return { status: 200, op: checked.op, code: null, body: { ...envelope(checked.op), assessable: true, facts: precheckFacts(checked.value) } };
}
