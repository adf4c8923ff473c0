"use client";
/**
 * Copies a text to the clipboard and says so: on the button (a polite live region) and, under
 * ToastProvider, in a toast; when the clipboard is refused it asks the user to select and copy.
 */
import { useState } from "react";
import { useToast } from "./toast";

/** `label` is what the button says; `name`, when given, what a screen reader hears instead ("Copy curl for GET /a"). */
export function CopyButton({ text, label = "Copy", name, className = "", disabled = false }: { text: string; label?: string; name?: string; className?: string; disabled?: boolean }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const toast = useToast();
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
      toast("Copied to the clipboard.");
    } catch {
      setState("failed");
      toast("Could not copy: select the text and copy it by hand.");
    }
    setTimeout(() => setState("idle"), 2000);
  }
  return (
    <button
      type="button"
      onClick={copy}
      disabled={disabled}
      className={`shrink-0 rounded-md border border-line bg-white px-2 py-1 text-xs font-medium text-ink hover:bg-slate-50 disabled:cursor-not-allowed disabled:opacity-50 ${className}`}
      aria-label={state === "idle" ? (name ?? label) : undefined}
    >
      <span aria-live="polite">{state === "copied" ? "Copied" : state === "failed" ? "Select and copy" : label}</span>
    </button>
  );
}

export function CopyableCode({ code, label }: { code: string; label: string }) {
  return (
    <div className="relative min-w-0">
      <pre className="max-w-full relative overflow-x-auto rounded-md bg-slate-950 p-3 pr-16 text-xs leading-5 text-slate-100"><code>{code}</code></pre>
      <CopyButton text={code} label="Copy" name={`Copy ${label}`} className="absolute right-2 top-2" />
    </div>
  );
}
