/**
 * The relay's on-chain confirmation, run after the buyer has its answer (docs/ROUTER.md "Confirmation
 * after the answer"). The attempt is already recorded `unconfirmed` with its transaction when this
 * runs, so a confirmation that never runs or fails (the process dies, the database or the chain
 * errs) loses nothing: the ledger tick (lib/ledger/ticks.ts) confirms every such row.
 *
 * Each confirmation is tracked until it ends, so a test or a shutdown can wait for all of them
 * (`confirmationsSettled`) instead of sleeping.
 */
import { confirmPayment, type ReadOptions, type WrittenRow } from "@/lib/ledger/confirm-payment";

const inFlight = new Set<Promise<void>>();

/** Confirm one recorded row on chain. Never rejects: an error is logged and the row waits for the tick. */
export function confirmRecorded(id: string, chain?: ReadOptions, written?: WrittenRow): Promise<void> {
  const run = confirmPayment(id, chain, written).then(
    () => undefined,
    (e: unknown) => console.error(`router: confirming ledger row ${id} failed; the ledger tick will confirm it`, e),
  );
  inFlight.add(run);
  void run.finally(() => inFlight.delete(run));
  return run;
}

/** Resolves once every confirmation started so far (and any started meanwhile) has ended. */
export async function confirmationsSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.all(inFlight);
}
