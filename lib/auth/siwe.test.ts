import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { issueNonce, userForWallet, verifySiwe, type SiweExpectation } from "@/lib/auth/siwe";
import { authOptions } from "@/lib/auth/options";
import { createTestDatabase, type TestDatabase } from "@/test/db";

// A fixed test key (never funded anywhere): Sign-In with Ethereum is verified offline.
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const DOMAIN = "127.0.0.1:3000";
// What the server expects: its configured origin (here the development default) and chain.
const EXPECT: SiweExpectation = { origin: `http://${DOMAIN}`, chainId: 8453 };

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

async function signedMessage(opts: { domain?: string; uri?: string; chainId?: number; nonce?: string; signer?: typeof account } = {}) {
  const nonce = opts.nonce ?? (await issueNonce());
  const message = createSiweMessage({ address: account.address, chainId: opts.chainId ?? 8453, domain: opts.domain ?? DOMAIN, nonce, uri: opts.uri ?? `http://${DOMAIN}`, version: "1" });
  const signature = await (opts.signer ?? account).signMessage({ message });
  return { message, signature, nonce };
}

describe("Sign-In with Ethereum", () => {
  it("accepts a message signed by the address it names, once", async () => {
    const { message, signature } = await signedMessage();
    expect(await verifySiwe(message, signature, EXPECT)).toEqual({ ok: true, address: account.address });
    expect(await verifySiwe(message, signature, EXPECT)).toMatchObject({ ok: false, reason: expect.stringMatching(/already used/) });
  });

  it("refuses a message for another site", async () => {
    const { message, signature } = await signedMessage({ domain: "evil.example" });
    expect(await verifySiwe(message, signature, EXPECT)).toMatchObject({ ok: false, reason: expect.stringMatching(/another domain/) });
  });

  it("refuses a message whose URI or chain is not the configured one", async () => {
    const uri = await signedMessage({ uri: "https://evil.example/login" });
    expect(await verifySiwe(uri.message, uri.signature, EXPECT)).toMatchObject({ ok: false, reason: expect.stringMatching(/URI is not on http:\/\/127\.0\.0\.1:3000/) });
    const chain = await signedMessage({ chainId: 1 });
    expect(await verifySiwe(chain.message, chain.signature, EXPECT)).toMatchObject({ ok: false, reason: expect.stringMatching(/names chain 1, not 8453/) });
  });

  it("refuses a relayed signature whatever Host and X-Forwarded-* headers the request carries", async () => {
    // A phishing site at evil.example had its visitor sign a message naming evil.example, then
    // posts it here with headers that claim to be evil.example.
    // next-auth keeps a credentials provider's own id and authorize() under .options.
    type Siwe = { options: { id: string; authorize: (credentials: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown> } };
    const provider = (authOptions().providers as unknown as Siwe[]).find((p) => p.options.id === "siwe")!;
    const relayed = await signedMessage({ domain: "evil.example", uri: "https://evil.example" });
    const headers = { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
    expect(await provider.options.authorize({ message: relayed.message, signature: relayed.signature }, { headers })).toBeNull();
    // The nonce was not spent by the refusal: the site's own message with it still signs in.
    const own = await signedMessage({ nonce: relayed.nonce });
    expect(await provider.options.authorize({ message: own.message, signature: own.signature }, { headers })).toMatchObject({ id: expect.any(String) });
  });

  it("refuses a signature by another key, and a nonce the server never issued", async () => {
    const other = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
    const forged = await signedMessage({ signer: other });
    expect(await verifySiwe(forged.message, forged.signature, EXPECT)).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
    const unknown = await signedMessage({ nonce: "neverissued12345" });
    expect(await verifySiwe(unknown.message, unknown.signature, EXPECT)).toMatchObject({ ok: false, reason: expect.stringMatching(/nonce/) });
  });

  it("gives a new wallet a seller account with its own organisation, and finds it again", async () => {
    const first = await userForWallet(account.address);
    const again = await userForWallet(account.address);
    expect(again.id).toBe(first.id);
    expect(first.role).toBe("seller");
    expect(first.organizationId).not.toBeNull();
  });
});
