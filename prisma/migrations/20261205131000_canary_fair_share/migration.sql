-- The canary's fair shares (lib/canary/budget.ts, docs/CANARY.md "The budget"): the organisation and
-- payTo shares are rows of canary_budget (scopes `org:<id>`, `payto:<network>:<address>`), so they
-- need no table. What does: a moderator's approval for the canary to pay a listing's endpoints above
-- the price ceiling (TOLLGATE_CANARY_PRICE_CEILING). Append-only: the latest row per listing holds;
-- each is audited `canary.approve_price` in moderation_audits.
CREATE TABLE "canary_price_approvals" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "maxAmount" DECIMAL(78,0) NOT NULL,
    "approvedBy" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "canary_price_approvals_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "canary_price_approvals_amount_nonnegative" CHECK ("maxAmount" >= 0)
);
CREATE INDEX "canary_price_approvals_listing_idx" ON "canary_price_approvals"("listingId", "createdAt");

