"use client";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { createSiweMessage } from "viem/siwe";
import { getAddress } from "viem";

type Eip1193 = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

export function DemoSignIn({ accounts, callbackUrl }: { accounts: { login: string; name: string; role: string }[]; callbackUrl: string }) {
  const [busy, setBusy] = useState<string | null>(null);
  return (
    <ul className="mt-3 space-y-2">
      {accounts.map((a) => (
        <li key={a.login}>
          <button
            type="button"
            disabled={busy !== null}
            onClick={() => {
              setBusy(a.login);
              void signIn("demo", { login: a.login, callbackUrl });
            }}
            className="flex w-full items-center justify-between rounded-lg border border-line bg-white px-4 py-3 text-left hover:border-indigo-300 hover:bg-indigo-50 disabled:opacity-60"
          >
            <span>
              <span className="font-medium">{a.name}</span>
              <span className="ml-2 font-mono text-xs text-muted">{a.login}</span>
            </span>
            <span className="rounded bg-brand-soft px-2 py-0.5 text-xs text-brand">{busy === a.login ? "signing in…" : a.role}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

export function WalletSignIn({ callbackUrl }: { callbackUrl: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function run() {
    setError(null);
    const eth = (window as unknown as { ethereum?: Eip1193 }).ethereum;
    if (!eth) {
      setError("No Ethereum wallet found in this browser. Install one (e.g. a browser wallet extension) and try again.");
      return;
    }
    setBusy(true);
    try {
      const [account] = (await eth.request({ method: "eth_requestAccounts" })) as string[];
      // The server names the domain, URI and chain the message must carry (its configured origin).
      const { nonce, domain, uri, chainId } = (await (await fetch("/api/auth/siwe-nonce")).json()) as { nonce: string; domain: string; uri: string; chainId: number };
      const message = createSiweMessage({
        address: getAddress(account),
        chainId,
        domain,
        nonce,
        uri,
        version: "1",
        statement: "Sign in to Tollgate to manage your listings.",
      });
      const signature = (await eth.request({ method: "personal_sign", params: [message, account] })) as string;
      const res = await signIn("siwe", { message, signature, redirect: false, callbackUrl });
      if (res?.error) setError("The signature was not accepted. Try again; each sign-in message can be used once.");
      else window.location.href = res?.url ?? callbackUrl;
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div>
      <button type="button" onClick={run} disabled={busy} className="w-full rounded-lg bg-brand px-4 py-3 font-medium text-white hover:bg-indigo-800 disabled:opacity-60">
        {busy ? "Waiting for your wallet…" : "Sign in with Ethereum"}
      </button>
      {error && <p role="alert" className="mt-2 text-sm text-red-800">{error}</p>}
    </div>
  );
}
