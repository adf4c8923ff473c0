/**
 * Sign-In with Ethereum (EIP-4361), verified offline: externally owned accounts only (ERC-1271 would need an RPC).
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

/** Deletes expired and spent nonces (run by the limits tick). */
export async function sweepNonces(now = new Date()): Promise<number> {
  const prisma = await db();
  const gone = await prisma.authNonce.deleteMany({ where: { OR: [{ expiresAt: { lte: now } }, { usedAt: { not: null } }] } });
  return gone.count;
}

/** The configured origin and chain a sign-in message must name; a message signed for another site is refused. */
export interface SiweExpectation {
  origin: string;
  chainId: number;
}

export function siweExpectation(): SiweExpectation {
  const e = env();
  return { origin: e.publicOrigin, chainId: e.TOLLGATE_SIWE_CHAIN_ID };
}

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

/** Created as a seller with its own organisation on first sign-in. */
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
