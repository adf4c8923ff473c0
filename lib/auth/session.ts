import { getServerSession } from "next-auth";
import { authOptions } from "@/lib/auth/options";
import { loadActor, type Actor } from "@/lib/auth/roles";

export async function sessionUserId(): Promise<string | null> {
  const session = await getServerSession(authOptions());
  return (session as { uid?: string } | null)?.uid ?? null;
}

export async function currentActor(): Promise<Actor | null> {
  return loadActor(await sessionUserId());
}
