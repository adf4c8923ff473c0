/** Confirms `unconfirmed` payments once the chain answers again. */
import type { Tick } from "@/lib/scheduler";
import { confirmWaitingPayments } from "./confirm-payment";

export const CONFIRM_INTERVAL_MS = 30_000;

export const ledgerTicks: Tick[] = [{ name: "ledger.confirm-payments", intervalMs: CONFIRM_INTERVAL_MS, run: async () => void (await confirmWaitingPayments()) }];
