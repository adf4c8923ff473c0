"use client";
/** Toasts: a short, politely announced confirmation ("Key revoked"); useToast() does nothing outside <ToastProvider>. */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";

type Toast = { id: number; text: string };
const ToastContext = createContext<(text: string) => void>(() => {});

export const useToast = () => useContext(ToastContext);

const TOAST_MS = 5_000;
/** A toast carried across a navigation (set before router.push, shown on the next page). */
const CARRY_KEY = "tollgate:toast";

/** Show a toast on the page a navigation is about to open. */
export function toastAfterNavigation(text: string) {
  try {
    sessionStorage.setItem(CARRY_KEY, text);
  } catch {
    // storage off: the next page simply shows no toast
  }
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((text: string) => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t.slice(-2), { id, text }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), TOAST_MS);
  }, []);
  useEffect(() => {
    const check = () => {
      try {
        const carried = sessionStorage.getItem(CARRY_KEY);
        if (carried) {
          sessionStorage.removeItem(CARRY_KEY);
          push(carried);
        }
      } catch {
        // storage off
      }
    };
    check();
    const t = setInterval(check, 500);
    return () => clearInterval(t);
  }, [push]);
  return (
    <ToastContext.Provider value={push}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed inset-x-0 bottom-4 z-50 flex flex-col items-center gap-2 px-4">
        {toasts.map((t) => (
          <p key={t.id} role="status" data-testid="toast" className="pointer-events-auto max-w-md rounded-lg bg-slate-900 px-4 py-2 text-sm text-white shadow-lg">
            {t.text}
          </p>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
