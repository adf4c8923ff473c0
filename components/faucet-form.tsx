"use client";
/**
 * The demo faucet's form: posts a wallet address to /api/faucet and shows what was sent (amounts,
 * transactions, balances) or, in an alert, the route's message (a bad address, a rate limit).
 */
import { useState } from "react";

interface Funded {
  address: string;
  usdcSent: string;
  usdcTx: string | null;
  gasSent: string;
  gasTx: string | null;
  usdcBalance: string;
  ethBalance: string;
}

export function FaucetForm() {
  const [address, setAddress] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Funded | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const res = await fetch("/api/faucet", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ address }) });
      const body = await res.json().catch(() => null);
      if (res.ok) setResult(body as Funded);
      else setError(body?.error?.message ?? `The faucet answered ${res.status}.`);
    } catch {
      setError("The faucet could not be reached. Is the demo still running?");
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <label className="min-w-0 flex-1 text-sm font-medium">
          Wallet address
          <input
            name="address"
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            placeholder="0x…"
            autoComplete="off"
            spellCheck={false}
            className="mt-1 block w-full rounded-md border border-line px-3 py-2 font-mono text-sm"
          />
        </label>
        <button type="submit" disabled={busy || address.trim() === ""} className="rounded-md bg-brand px-4 py-2 text-sm font-semibold text-white disabled:opacity-50">
          {busy ? "Sending…" : "Fund this wallet"}
        </button>
      </form>
      {error && (
        <p role="alert" className="mt-3 rounded-lg bg-red-50 p-3 text-sm text-red-800">
          {error}
        </p>
      )}
      {result && (
        <div role="status" className="mt-3 rounded-lg bg-green-50 p-3 text-sm text-green-900" data-testid="faucet-result">
          <p className="font-medium">
            Sent {Number(result.usdcSent) / 1e6} test USDC{result.gasTx ? ` and ${formatEth(result.gasSent)} ETH for gas` : ""} to <span className="break-all font-mono">{result.address}</span>.
          </p>
          <p className="mt-1">
            It now holds <span data-testid="faucet-usdc">{result.usdcBalance}</span> test USDC and {result.ethBalance} ETH.
          </p>
          <ul className="mt-2 space-y-1 text-xs">
            {result.usdcTx && <li className="break-all">USDC transfer: <code>{result.usdcTx}</code></li>}
            {result.gasTx && <li className="break-all">Gas transfer: <code>{result.gasTx}</code></li>}
          </ul>
        </div>
      )}
    </div>
  );
}

function formatEth(wei: string): string {
  return (Number(BigInt(wei) / 10n ** 12n) / 1e6).toString();
}
