/**
 * The trust grade sweep's tick: hourly, leader-locked, signing with the badge keyring. A grade lasts a
 * day and is renewed within RENEW_AFTER_MS, so a missed hour or two leaves every attestation valid.
 */
import type { Tick } from "@/lib/scheduler";
import { signerFor } from "@/lib/badges/keys";
import { badgeKeyring } from "@/lib/badges/server";
import { runTrustGradeSweep } from "./sweep";

export const TRUST_GRADE_INTERVAL_MS = 60 * 60_000;

export const attestTicks: Tick[] = [
  { name: "attest.trust-grades", intervalMs: TRUST_GRADE_INTERVAL_MS, run: async () => void (await runTrustGradeSweep({ signer: signerFor(await badgeKeyring()) })) },
];
