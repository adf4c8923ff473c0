"use client";
/** Copy a text to the clipboard, saying "Copied" for a moment (and a toast, under ToastProvider). */
import { useState } from "react";
import { useToast } from "./toast";

export function CopyButton({ text, label = "Copy", className }: { text: string; label?: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  const toast = useToast();
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          toast("Copied to the clipboard.");
          setTimeout(() => setCopied(false), 1500);
        } catch {
          toast("Could not copy: select the text and copy it by hand.");
        }
      }}
      className={className ?? "rounded-md border border-line bg-white px-2.5 py-1 text-xs font-medium hover:bg-slate-50"}
    >
      {copied ? "Copied" : label}
    </button>
  );
}
