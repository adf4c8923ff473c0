/**
 * The relay's on-chain confirmation after the buyer has its answer (docs/ROUTER.md "Confirmation after the answer").
 * The row is already `unconfirmed`, so a confirmation that never runs loses nothing: the ledger tick confirms it.
 */
import { confirmPayment, type ReadOptions, type WrittenRow } from "@/lib/ledger/confirm-payment";

const inFlight = new Set<Promise<void>>();

/** Never rejects: an error is logged and the row waits for the tick. */
export function confirmRecorded(id: string, chain?: ReadOptions, written?: WrittenRow | Promise<WrittenRow>): Promise<void> {
  // In flight from this call on, whatever `written` still waits for.
  const run = Promise.resolve(written).then((w) => confirmPayment(id, chain, w)).then(
    () => undefined,
    (e: unknown) => console.error(`router: confirming ledger row ${id} failed; the ledger tick will confirm it`, e),
  );
  inFlight.add(run);
  void run.finally(() => inFlight.delete(run));
  return run;
}

/** Including any started meanwhile. */
export async function confirmationsSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.all(inFlight);
}
