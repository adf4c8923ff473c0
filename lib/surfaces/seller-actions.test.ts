/**
 * The seller's server actions answer access errors with their status, never 500 (issue #20 item 6):
 * signed out is 401, a listing that does not exist or is another seller's is 404 (alike), through
 * next/navigation's unauthorized() / notFound(), whose thrown digest Next.js turns into the status.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";

const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

import { acknowledgeNoticeAction, validateListingAction } from "./seller-actions";

// What next.config.mjs's experimental.authInterrupts sets for the server (unauthorized() needs it).
process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS = "true";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t?.close());

/** The HTTP status a thrown next/navigation interrupt stands for, or what was thrown instead. */
async function statusOf(run: () => Promise<unknown>): Promise<number | string> {
  try {
    await run();
    return "no error";
  } catch (e) {
    const digest = (e as { digest?: unknown }).digest;
    const m = typeof digest === "string" ? /^NEXT_HTTP_ERROR_FALLBACK;(\d{3})$/.exec(digest) : null;
    if (m) return Number(m[1]);
    return `threw ${(e as Error).name}: ${(e as Error).message}`; // Next.js answers this with 500
  }
}

describe("acknowledgeNoticeAction", () => {
  it("signed out: 401", async () => {
    const { org } = await seedOwner(t.prisma);
    const id = await seedListing(t.prisma, org.id);
    session.uid = null;
    expect(await statusOf(() => acknowledgeNoticeAction(id))).toBe(401);
  });

  it("a missing listing, and another seller's listing: 404 alike", async () => {
    const { user } = await seedOwner(t.prisma);
    const other = await seedOwner(t.prisma);
    const theirs = await seedListing(t.prisma, other.org.id);
    session.uid = user.id;
    expect(await statusOf(() => acknowledgeNoticeAction("no-such-listing"))).toBe(404);
    expect(await statusOf(() => acknowledgeNoticeAction(theirs))).toBe(404);
  });

  it("the owner acknowledges: no error, the notice cleared", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const id = await seedListing(t.prisma, org.id);
    await t.prisma.listing.update({ where: { id }, data: { rubricNoticeVersion: "readiness/1.0.0" } });
    session.uid = user.id;
    expect(await statusOf(() => acknowledgeNoticeAction(id))).toBe("no error");
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).rubricNoticeVersion).toBeNull();
  });
});

describe("validateListingAction", () => {
  it("signed out: 401", async () => {
    session.uid = null;
    expect(await statusOf(() => validateListingAction({}))).toBe(401);
  });

  it("a user that no longer exists: 401", async () => {
    session.uid = "vanished-user";
    expect(await statusOf(() => validateListingAction({}))).toBe(401);
  });

  it("signed in: the errors by JSON pointer", async () => {
    const { user } = await seedOwner(t.prisma);
    session.uid = user.id;
    const errors = await validateListingAction({});
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].pointer).toMatch(/^(\/|$)/);
  });
});
