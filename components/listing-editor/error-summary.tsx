/** The editor's error summary: why the save failed, and each field that needs attention, linked to its input. */
import type { RefObject } from "react";
import { idOf, type Err } from "./model";

/** `summaryRef` is focused after a failed save, so a screen reader announces the summary. */
export function ErrorSummary({ summaryRef, saveError, errors }: { summaryRef: RefObject<HTMLDivElement | null>; saveError: string | null; errors: Err[] }) {
  return (
    <div ref={summaryRef} tabIndex={-1} className="outline-none" aria-live="assertive">
      {(saveError || errors.length > 0) && (
        <div role={saveError ? "alert" : undefined} className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900">
          {saveError && <p className="font-medium">Not saved: {saveError}</p>}
          {errors.length > 0 && (
            <>
              <p className={saveError ? "mt-1" : "font-medium"}>{errors.length} field{errors.length === 1 ? " needs" : "s need"} attention before this can be saved:</p>
              <ul className="mt-1 list-disc pl-5">
                {errors.slice(0, 12).map((e) => (
                  <li key={`${e.pointer}:${e.message}`}>
                    <a href={`#${idOf(e.pointer)}`} className="underline">
                      <code>{e.pointer || "/"}</code>
                    </a>{" "}
                    {e.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </div>
  );
}
