/** Authorisation inside every action: the role is read fresh from the database, never trusted from a token. */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { Role, User } from "@/lib/generated/prisma/client";

export type Actor = Pick<User, "id" | "name" | "role" | "organizationId">;

export const MODERATION_ROLES: Role[] = ["moderator", "admin"];

export async function loadActor(userId: string | null | undefined): Promise<Actor | null> {
  if (!userId) return null;
  const prisma = await db();
  return prisma.user.findUnique({ where: { id: userId }, select: { id: true, name: true, role: true, organizationId: true } });
}

export async function requireActor(userId: string | null | undefined): Promise<Actor> {
  const actor = await loadActor(userId);
  if (!actor) throw new AppError("unauthorized", "Sign in to do this.");
  return actor;
}

export async function requireRole(userId: string | null | undefined, roles: Role[]): Promise<Actor> {
  const actor = await requireActor(userId);
  if (!roles.includes(actor.role)) {
    throw new AppError("forbidden", `This needs the ${roles.join(" or ")} role; you are signed in as ${actor.role}.`);
  }
  return actor;
}

export function isModerator(actor: Actor | null): boolean {
  return !!actor && MODERATION_ROLES.includes(actor.role);
}
