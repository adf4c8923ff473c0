/** The demo accounts the sign-in page offers, only with TOLLGATE_DEMO_SIGNIN=1. */
import { demoSignInEnabled } from "@/lib/auth/options";
import { db } from "@/lib/db";

export type DemoAccount = { login: string; name: string; role: string };

export async function demoAccounts(): Promise<DemoAccount[]> {
  if (!demoSignInEnabled()) return [];
  const users = await (await db()).user.findMany({ where: { demo: true, demoLogin: { not: null } }, orderBy: { role: "asc" } });
  return users.map((u) => ({ login: u.demoLogin!, name: u.name, role: u.role }));
}
