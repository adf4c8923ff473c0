import type { Metadata } from "next";
import { DemoSignIn, WalletSignIn } from "@/components/sign-in-forms";
import { demoSignInEnabled } from "@/lib/auth/options";
import { demoAccounts } from "@/lib/surfaces/signin";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<{ callbackUrl?: string; error?: string }> };

export default async function SignInPage({ searchParams }: Props) {
  const sp = await searchParams;
  // Only same-site paths are followed after sign-in.
  const callbackUrl = sp.callbackUrl?.startsWith("/") && !sp.callbackUrl.startsWith("//") ? sp.callbackUrl : "/dashboard";
  const demo = demoSignInEnabled();
  const accounts = demo ? await demoAccounts() : [];
  return (
    <div className="mx-auto max-w-md">
      <h1 className="text-2xl font-semibold tracking-tight">Sign in</h1>
      <p className="mt-1 text-sm text-muted">Sellers sign in to list services and read their readiness reports. Buyers browse without an account.</p>
      {sp.error && <p role="alert" className="mt-4 rounded-lg bg-red-50 p-3 text-sm text-red-800">Sign-in failed. Check the account and try again.</p>}
      <div className="mt-6">
        <WalletSignIn callbackUrl={callbackUrl} />
      </div>
      {demo && (
        <section className="mt-8 rounded-xl border border-amber-300 bg-amber-50 p-4">
          <h2 className="font-semibold text-amber-900">Demo accounts</h2>
          <p className="text-sm text-amber-900">This server runs with the development sign-in on. Pick an account:</p>
          <DemoSignIn accounts={accounts} callbackUrl={callbackUrl} />
        </section>
      )}
    </div>
  );
}
