import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { issueNonce, userForWallet, verifySiwe } from "@/lib/auth/siwe";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/db";

// A fixed test key (never funded anywhere): Sign-In with Ethereum is verified offline.
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const DOMAIN = "127.0.0.1:3000";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

async function signedMessage(opts: { domain?: string; nonce?: string; signer?: typeof account } = {}) {
  const nonce = opts.nonce ?? (await issueNonce());
  const message = createSiweMessage({ address: account.address, chainId: 8453, domain: opts.domain ?? DOMAIN, nonce, uri: `http://${DOMAIN}`, version: "1" });
  const signature = await (opts.signer ?? account).signMessage({ message });
  return { message, signature, nonce };
}

describe("Sign-In with Ethereum", () => {
  it("accepts a message signed by the address it names, once", async () => {
    const { message, signature } = await signedMessage();
    expect(await verifySiwe(message, signature, DOMAIN)).toEqual({ ok: true, address: account.address });
    expect(await verifySiwe(message, signature, DOMAIN)).toMatchObject({ ok: false, reason: expect.stringMatching(/already used/) });
  });

  it("refuses a message for another site", async () => {
    const { message, signature } = await signedMessage({ domain: "evil.example" });
    expect(await verifySiwe(message, signature, DOMAIN)).toMatchObject({ ok: false, reason: expect.stringMatching(/another domain/) });
  });

  it("refuses a signature by another key, and a nonce the server never issued", async () => {
    const other = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
    const forged = await signedMessage({ signer: other });
    expect(await verifySiwe(forged.message, forged.signature, DOMAIN)).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
    const unknown = await signedMessage({ nonce: "neverissued12345" });
    expect(await verifySiwe(unknown.message, unknown.signature, DOMAIN)).toMatchObject({ ok: false, reason: expect.stringMatching(/nonce/) });
  });

  it("gives a new wallet a seller account with its own organisation, and finds it again", async () => {
    const first = await userForWallet(account.address);
    const again = await userForWallet(account.address);
    expect(again.id).toBe(first.id);
    expect(first.role).toBe("seller");
    expect(first.organizationId).not.toBeNull();
  });
});
