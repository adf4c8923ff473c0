-- CreateSchema

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('seller', 'moderator', 'admin');

-- CreateEnum
CREATE TYPE "PublicationState" AS ENUM ('draft', 'published', 'unlisted', 'archived');

-- CreateEnum
CREATE TYPE "VerificationStatus" AS ENUM ('verified', 'unverified', 'degraded');

-- CreateEnum
CREATE TYPE "HealthStatus" AS ENUM ('operational', 'unverified', 'degraded', 'unavailable');

-- CreateEnum
CREATE TYPE "HttpMethod" AS ENUM ('GET', 'POST', 'PUT', 'PATCH', 'DELETE');

-- CreateEnum
CREATE TYPE "PriceMode" AS ENUM ('fixed', 'dynamic');

-- CreateEnum
CREATE TYPE "AnalysisState" AS ENUM ('deferred', 'queued', 'running', 'succeeded', 'failed');

-- CreateEnum
CREATE TYPE "AnalysisTrigger" AS ENUM ('submit', 'reanalyse', 'publish', 'staleness', 'rubric');

-- CreateEnum
CREATE TYPE "PaymentStatus" AS ENUM ('settled', 'failed');

-- CreateTable
CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "walletAddress" TEXT,
    "demoLogin" TEXT,
    "name" TEXT NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'seller',
    "organizationId" TEXT,
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "listings" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "shortDescription" TEXT,
    "description" TEXT,
    "logoUrl" TEXT,
    "category" TEXT,
    "homepageUrl" TEXT,
    "baseUrl" TEXT NOT NULL,
    "docsUrl" TEXT,
    "walkthrough" TEXT,
    "discoveryUrl" TEXT,
    "protocols" TEXT[],
    "networks" TEXT[],
    "authPreconditions" TEXT,
    "networkRequirements" TEXT,
    "fundingRequirements" TEXT,
    "limits" TEXT,
    "timeouts" TEXT,
    "syncMode" TEXT,
    "errorsDoc" TEXT,
    "idempotency" TEXT,
    "supportChannel" TEXT,
    "tier" INTEGER NOT NULL DEFAULT 2,
    "sortWeight" INTEGER NOT NULL DEFAULT 0,
    "featuredLevel" INTEGER NOT NULL DEFAULT 0,
    "verificationStatus" "VerificationStatus" NOT NULL DEFAULT 'unverified',
    "healthStatus" "HealthStatus" NOT NULL DEFAULT 'unverified',
    "publicationState" "PublicationState" NOT NULL DEFAULT 'draft',
    "publishedAt" TIMESTAMP(3),
    "currentResultId" TEXT,
    "rubricNoticeVersion" TEXT,
    "qualityScore" DOUBLE PRECISION,
    "rankScore" DOUBLE PRECISION,
    "rankComponents" JSONB,
    "rankInputsHash" TEXT,
    "rankedAt" TIMESTAMP(3),
    "source" TEXT,
    "searchVector" tsvector,
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "listings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endpoints" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "method" "HttpMethod" NOT NULL,
    "path" TEXT NOT NULL,
    "description" TEXT,
    "requestSchema" JSONB,
    "noParameters" BOOLEAN NOT NULL DEFAULT false,
    "responseSchema" JSONB,
    "requestExample" JSONB,
    "payable" BOOLEAN NOT NULL DEFAULT true,
    "priceLabel" TEXT,
    "priceUsd" TEXT,
    "priceAmount" TEXT,
    "priceAsset" TEXT,
    "priceNetwork" TEXT,
    "priceDecimals" INTEGER,
    "priceMode" "PriceMode",
    "dynamicMin" TEXT,
    "dynamicMax" TEXT,
    "dynamicDriver" TEXT,
    "dynamicUnit" TEXT,
    "docsUrl" TEXT,

    CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalog_scoring_analyses" (
    "id" TEXT NOT NULL,
    "listingId" TEXT,
    "submitter" TEXT NOT NULL,
    "trigger" "AnalysisTrigger" NOT NULL,
    "targetUrl" TEXT NOT NULL,
    "state" "AnalysisState" NOT NULL DEFAULT 'queued',
    "step" TEXT NOT NULL DEFAULT 'queued',
    "priority" INTEGER NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 5,
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "leasedBy" TEXT,
    "runAfter" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "error" TEXT,
    "rubricVersion" TEXT,
    "resultId" TEXT,
    "evidenceId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "catalog_scoring_analyses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalog_scoring_attempts" (
    "id" BIGSERIAL NOT NULL,
    "analysisId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "workerId" TEXT,
    "leaseToken" TEXT,
    "event" TEXT NOT NULL,
    "detail" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_scoring_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "probe_evidence" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "analysisId" TEXT,
    "vantage" TEXT NOT NULL,
    "probedAt" TIMESTAMP(3) NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "refusal" TEXT,
    "evidence" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "probe_evidence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalog_scoring_results" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "analysisId" TEXT,
    "rubricVersion" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "rawTotal" DOUBLE PRECISION NOT NULL,
    "band" TEXT NOT NULL,
    "provisional" BOOLEAN NOT NULL,
    "caps" JSONB NOT NULL,
    "dimensions" JSONB NOT NULL,
    "rules" JSONB NOT NULL,
    "improvements" JSONB NOT NULL,
    "evidenceId" TEXT,
    "document" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_scoring_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalog_scoring_revocations" (
    "resultId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_scoring_revocations_pkey" PRIMARY KEY ("resultId")
);

-- CreateTable
CREATE TABLE "rubric_releases" (
    "version" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "releasedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rubric_releases_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "router_payments" (
    "id" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "endpointId" TEXT,
    "advertisedAmount" TEXT NOT NULL,
    "settledAmount" TEXT,
    "asset" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "status" "PaymentStatus" NOT NULL,
    "transactionId" TEXT,
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "router_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitor_health_samples" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" TEXT NOT NULL,
    "httpStatus" INTEGER,
    "latencyMs" INTEGER,
    "confidence" DOUBLE PRECISION NOT NULL,
    "challengeKind" TEXT,
    "vantage" TEXT NOT NULL,
    "demo" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "monitor_health_samples_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "price_quotes" (
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "endpointId" TEXT,
    "amount" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "quotedAt" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL,

    CONSTRAINT "price_quotes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "moderation_audit" (
    "id" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "listingId" TEXT,
    "action" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "reason" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "moderation_audit_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auth_nonces" (
    "nonce" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),

    CONSTRAINT "auth_nonces_pkey" PRIMARY KEY ("nonce")
);

-- CreateIndex
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "users_walletAddress_key" ON "users"("walletAddress");

-- CreateIndex
CREATE UNIQUE INDEX "users_demoLogin_key" ON "users"("demoLogin");

-- CreateIndex
CREATE UNIQUE INDEX "listings_slug_key" ON "listings"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "listings_currentResultId_key" ON "listings"("currentResultId");

-- CreateIndex
CREATE INDEX "listings_publicationState_tier_sortWeight_rankScore_idx" ON "listings"("publicationState", "tier", "sortWeight" DESC, "rankScore" DESC);

-- CreateIndex
CREATE INDEX "listings_organizationId_idx" ON "listings"("organizationId");

-- CreateIndex
CREATE INDEX "listings_searchVector_idx" ON "listings" USING GIN ("searchVector");

-- CreateIndex
CREATE UNIQUE INDEX "endpoints_listingId_method_path_key" ON "endpoints"("listingId", "method", "path");

-- CreateIndex
CREATE INDEX "catalog_scoring_analyses_state_runAfter_priority_idx" ON "catalog_scoring_analyses"("state", "runAfter", "priority");

-- CreateIndex
CREATE INDEX "catalog_scoring_analyses_listingId_idx" ON "catalog_scoring_analyses"("listingId");

-- CreateIndex
CREATE INDEX "catalog_scoring_attempts_analysisId_idx" ON "catalog_scoring_attempts"("analysisId");

-- CreateIndex
CREATE INDEX "probe_evidence_listingId_probedAt_idx" ON "probe_evidence"("listingId", "probedAt");

-- CreateIndex
CREATE INDEX "catalog_scoring_results_listingId_createdAt_idx" ON "catalog_scoring_results"("listingId", "createdAt");

-- CreateIndex
CREATE INDEX "router_payments_listingId_createdAt_idx" ON "router_payments"("listingId", "createdAt");

-- CreateIndex
CREATE INDEX "router_payments_listingId_status_createdAt_idx" ON "router_payments"("listingId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "monitor_health_samples_listingId_at_idx" ON "monitor_health_samples"("listingId", "at");

-- CreateIndex
CREATE INDEX "price_quotes_listingId_quotedAt_idx" ON "price_quotes"("listingId", "quotedAt");

-- CreateIndex
CREATE INDEX "moderation_audit_listingId_createdAt_idx" ON "moderation_audit"("listingId", "createdAt");

-- CreateIndex
CREATE INDEX "moderation_audit_createdAt_idx" ON "moderation_audit"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organizations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "listings" ADD CONSTRAINT "listings_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "listings" ADD CONSTRAINT "listings_currentResultId_fkey" FOREIGN KEY ("currentResultId") REFERENCES "catalog_scoring_results"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "catalog_scoring_analyses" ADD CONSTRAINT "catalog_scoring_analyses_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "catalog_scoring_attempts" ADD CONSTRAINT "catalog_scoring_attempts_analysisId_fkey" FOREIGN KEY ("analysisId") REFERENCES "catalog_scoring_analyses"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "probe_evidence" ADD CONSTRAINT "probe_evidence_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "catalog_scoring_results" ADD CONSTRAINT "catalog_scoring_results_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "router_payments" ADD CONSTRAINT "router_payments_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "router_payments" ADD CONSTRAINT "router_payments_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "endpoints"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitor_health_samples" ADD CONSTRAINT "monitor_health_samples_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "price_quotes" ADD CONSTRAINT "price_quotes_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "price_quotes" ADD CONSTRAINT "price_quotes_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "endpoints"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "moderation_audit" ADD CONSTRAINT "moderation_audit_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "moderation_audit" ADD CONSTRAINT "moderation_audit_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "listings"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

