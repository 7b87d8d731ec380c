-- CreateEnum
CREATE TYPE "CodeHostKind" AS ENUM ('GITHUB', 'GITLAB');

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('RECEIVED', 'PROCESSED', 'IGNORED', 'FAILED');

-- AlterEnum
ALTER TYPE "Surface" ADD VALUE 'CODE_REVIEW';

-- CreateTable
CREATE TABLE "CodeHost" (
    "id" TEXT NOT NULL,
    "kind" "CodeHostKind" NOT NULL,
    "name" TEXT NOT NULL,
    "apiBaseUrl" TEXT NOT NULL,
    "appId" TEXT,
    "appSlug" TEXT,
    "privateKeyCipher" TEXT,
    "tokenCipher" TEXT,
    "webhookSecretCipher" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "disabledAt" TIMESTAMP(3),

    CONSTRAINT "CodeHost_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CodeHostRepository" (
    "id" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "repositoryId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "fullName" TEXT NOT NULL,
    "installationId" TEXT,
    "artifactName" TEXT NOT NULL DEFAULT 'junit*',
    "junitGlob" TEXT NOT NULL DEFAULT '**/*.xml',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CodeHostRepository_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "action" TEXT,
    "payload" JSONB NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'RECEIVED',
    "detail" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" TIMESTAMP(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CodeHost_name_key" ON "CodeHost"("name");

-- CreateIndex
CREATE UNIQUE INDEX "CodeHostRepository_repositoryId_key" ON "CodeHostRepository"("repositoryId");

-- CreateIndex
CREATE INDEX "CodeHostRepository_hostId_installationId_idx" ON "CodeHostRepository"("hostId", "installationId");

-- CreateIndex
CREATE UNIQUE INDEX "CodeHostRepository_hostId_externalId_key" ON "CodeHostRepository"("hostId", "externalId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_receivedAt_idx" ON "WebhookDelivery"("status", "receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_hostId_deliveryId_key" ON "WebhookDelivery"("hostId", "deliveryId");

-- AddForeignKey
ALTER TABLE "CodeHostRepository" ADD CONSTRAINT "CodeHostRepository_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "CodeHost"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CodeHostRepository" ADD CONSTRAINT "CodeHostRepository_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "CodeHost"("id") ON DELETE CASCADE ON UPDATE CASCADE;
