/**
 * The trust grade sweep's tick: every minute, leader-locked, signing with the badge keyring; each run
 * grades only what is due (lib/attest/sweep.ts gradeListing), so a paid sample or a failure shows
 * within a minute of its write. A grade lasts a day and is renewed within RENEW_AFTER_MS.
 */
import type { Tick } from "@/lib/scheduler";
import { signerFor } from "@/lib/badges/keys";
import { badgeKeyring } from "@/lib/badges/server";
import { runTrustGradeSweep } from "./sweep";

export const TRUST_GRADE_INTERVAL_MS = 60_000;

export const attestTicks: Tick[] = [
  { name: "attest.trust-grades", intervalMs: TRUST_GRADE_INTERVAL_MS, run: async () => void (await runTrustGradeSweep({ signer: signerFor(await badgeKeyring()) })) },
];
