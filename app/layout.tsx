import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";
import { Providers } from "./providers";
import { SiteHeader } from "@/components/site-header";

export const metadata: Metadata = {
  title: { default: "Tollgate — the catalog of pay-per-call APIs", template: "%s · Tollgate" },
  description: "Find, understand and pay HTTP 402 APIs (x402 and MPP). Every listing scored for readiness; ordered by evidence.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request: its scripts carry that request's CSP nonce (proxy.ts), which a
  // page built ahead of time could not.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans antialiased">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2">
          Skip to content
        </a>
        <SiteHeader />
        <Providers>
          <main id="main" className="mx-auto w-full max-w-6xl px-4 pb-16 pt-6 sm:px-6">
            {children}
          </main>
        </Providers>
        <footer className="border-t border-line py-6 text-center text-sm text-muted">
          Tollgate lists APIs paid per call over HTTP 402. Readiness is a listing-completeness score, not a grade of a service&apos;s answers.
        </footer>
      </body>
    </html>
  );
}
