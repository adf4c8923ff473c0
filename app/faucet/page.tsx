/**
 * /faucet — the demo faucet (demo mode only, TOLLGATE_DEMO_SIGNIN=1; 404 otherwise): funds a buyer's
 * wallet on the local chain, and says what a buyer's client needs to pay the demo's listings.
 */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { FaucetForm } from "@/components/faucet-form";
import { demoSignInEnabled } from "@/lib/auth/options";
import { FAUCET_GAS, FAUCET_USDC, FAUCET_WALLET_CAP } from "@/devchain/faucet";
import { LOCAL_CHAIN_ID, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Demo faucet" };

export default function FaucetPage() {
  if (!demoSignInEnabled()) notFound();
  const rpcUrl = env().TOLLGATE_CHAIN_RPC_URL ?? null;
  return (
    <div className="mx-auto max-w-2xl">
      <h1 className="text-2xl font-semibold tracking-tight">Demo faucet</h1>
      <p className="mt-1 text-sm text-muted">
        Pay the demo&apos;s listings from your own wallet: the faucet sends it {Number(FAUCET_USDC) / 1e6} test USDC per request (none once it holds {Number(FAUCET_WALLET_CAP) / 1e6}) and tops its gas up to {Number(FAUCET_GAS / 10n ** 15n) / 1000} ETH, on
        this demo&apos;s local chain only. Test tokens are worth nothing anywhere else.
      </p>
      <section className="mt-6 rounded-xl border border-line bg-white p-4">
        <FaucetForm />
      </section>
      <section className="mt-6 rounded-xl border border-line bg-white p-4 text-sm" aria-labelledby="chain-h">
        <h2 id="chain-h" className="font-semibold">What your client needs</h2>
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
          <dt className="text-muted">Chain RPC</dt>
          <dd className="break-all font-mono" data-testid="faucet-rpc">{rpcUrl ?? "not configured"}</dd>
          <dt className="text-muted">Network</dt>
          <dd className="font-mono">eip155:{LOCAL_CHAIN_ID}</dd>
          <dt className="text-muted">Test USDC</dt>
          <dd className="break-all font-mono">{LOCAL_USDC_ADDRESS}</dd>
          <dt className="text-muted">EIP-712 domain</dt>
          <dd className="font-mono">&quot;{LOCAL_USDC_DOMAIN.name}&quot;, version &quot;{LOCAL_USDC_DOMAIN.version}&quot;</dd>
        </dl>
        <p className="mt-3 text-muted">
          No wallet yet? Make a key with <code className="break-all">node -e &quot;console.log(require(&apos;viem/accounts&apos;).generatePrivateKey())&quot;</code>, or use one of anvil&apos;s
          public development accounts 1–7 (README, &quot;Paying as a buyer&quot;). Then copy a listing&apos;s &quot;How to call&quot; example and an API key with the{" "}
          <code>router:call</code> scope.
        </p>
      </section>
    </div>
  );
}
