/** A read model's authorisation AppError as the page's answer (sign-in, 403 or 404). */
import { forbidden, notFound, redirect } from "next/navigation";
import { isAppError } from "@/lib/errors";

export async function orPageError<T>(run: () => Promise<T>, signInPath: string): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (isAppError(e)) {
      if (e.code === "unauthorized") redirect(`/signin?callbackUrl=${encodeURIComponent(signInPath)}`);
      if (e.code === "forbidden") forbidden();
      if (e.code === "not_found") notFound();
    }
    throw e;
  }
}
