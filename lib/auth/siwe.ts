/**
 * Sign-In with Ethereum (EIP-4361): the wallet signs a message naming this site and a one-time nonce;
 * viem parses, validates and verifies it. Verification is offline (ecrecover), so it covers externally
 * owned accounts; contract wallets (ERC-1271) would need an RPC, which the embedded default lacks.
 */
import { getAddress, verifyMessage, type Hex } from "viem";
import { generateSiweNonce, parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { db } from "@/lib/db";
import { env } from "@/lib/env";

const NONCE_TTL_MS = 10 * 60_000;

export async function issueNonce(now = new Date()): Promise<string> {
  const nonce = generateSiweNonce();
  const prisma = await db();
  await prisma.authNonce.create({ data: { nonce, expiresAt: new Date(now.getTime() + NONCE_TTL_MS) } });
  return nonce;
}

/**
 * Delete nonces no sign-in can use any more: expired ones, and spent ones (a spent nonce is refused
 * whether its row is there or not). Run by the limits tick (lib/limits/ticks.ts), so anonymous nonce
 * requests leave at most the issue rate times the 10-minute lifetime of rows behind them.
 */
export async function sweepNonces(now = new Date()): Promise<number> {
  const prisma = await db();
  const gone = await prisma.authNonce.deleteMany({ where: { OR: [{ expiresAt: { lte: now } }, { usedAt: { not: null } }] } });
  return gone.count;
}

/**
 * What a sign-in message must name: this deployment's configured origin and chain, never anything a
 * request carries. A message signed for another site (a phishing page relaying its visitor's
 * signature, with any Host header it likes) names that site, and is refused here.
 */
export interface SiweExpectation {
  /** The origin the message's URI must have (scheme://host[:port]). */
  origin: string;
  /** The EIP-155 chain id the message must name. */
  chainId: number;
}

export function siweExpectation(): SiweExpectation {
  const e = env();
  return { origin: e.publicOrigin, chainId: e.TOLLGATE_SIWE_CHAIN_ID };
}

/** What the sign-in form puts in the message it asks the wallet to sign, alongside a fresh nonce. */
export function siweMessageFields(expect: SiweExpectation = siweExpectation()) {
  return { domain: new URL(expect.origin).host, uri: expect.origin, chainId: expect.chainId };
}

export type SiweOutcome = { ok: true; address: `0x${string}` } | { ok: false; reason: string };

export async function verifySiwe(message: string, signature: string, expect: SiweExpectation = siweExpectation(), now = new Date()): Promise<SiweOutcome> {
  const fields = parseSiweMessage(message);
  if (!fields.address || !fields.nonce || !fields.domain || !fields.uri) return { ok: false, reason: "message is not an EIP-4361 sign-in message" };
  const { domain } = siweMessageFields(expect);
  if (!validateSiweMessage({ message: fields, domain, time: now })) {
    return { ok: false, reason: `message is for another domain than ${domain}, or outside its validity window` };
  }
  if (originOf(fields.uri) !== expect.origin) return { ok: false, reason: `message URI is not on ${expect.origin}` };
  if (fields.chainId !== expect.chainId) return { ok: false, reason: `message names chain ${fields.chainId ?? "none"}, not ${expect.chainId}` };
  if (!/^0x[0-9a-fA-F]+$/.test(signature)) return { ok: false, reason: "signature is not hex" };
  const valid = await verifyMessage({ address: fields.address, message, signature: signature as Hex }).catch(() => false);
  if (!valid) return { ok: false, reason: "signature does not match the address" };
  // The nonce is spent only after the signature checks out, and only once.
  const prisma = await db();
  const spent = await prisma.authNonce.updateMany({
    where: { nonce: fields.nonce, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (spent.count !== 1) return { ok: false, reason: "nonce unknown, expired or already used" };
  return { ok: true, address: getAddress(fields.address) };
}

function originOf(uri: string): string | null {
  try {
    return new URL(uri).origin;
  } catch {
    return null;
  }
}

/** The user for a wallet, created as a seller with an organisation of its own on first sign-in. */
export async function userForWallet(address: `0x${string}`) {
  const prisma = await db();
  const wallet = address.toLowerCase();
  const existing = await prisma.user.findUnique({ where: { walletAddress: wallet } });
  if (existing) return existing;
  const short = `${address.slice(0, 6)}…${address.slice(-4)}`;
  return prisma.user.create({
    data: {
      walletAddress: wallet,
      name: short,
      role: "seller",
      organization: { create: { slug: `org-${wallet.slice(2, 12)}`, name: `Seller ${short}` } },
    },
  });
}
