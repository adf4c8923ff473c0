/** The trust grade tick: every minute, leader-locked, grading only what is due. */
import type { Tick } from "@/lib/scheduler";
import { signerFor } from "@/lib/badges/keys";
import { badgeKeyring } from "@/lib/badges/server";
import { runTrustGradeSweep } from "./sweep";

export const TRUST_GRADE_INTERVAL_MS = 60_000;

export const attestTicks: Tick[] = [
  { name: "attest.trust-grades", intervalMs: TRUST_GRADE_INTERVAL_MS, run: async () => void (await runTrustGradeSweep({ signer: signerFor(await badgeKeyring()) })) },
];
