-- AlterEnum
ALTER TYPE "FixStatus" ADD VALUE 'APPLYING';

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN     "commit" TEXT,
ADD COLUMN     "runId" TEXT;

-- AlterTable
ALTER TABLE "Fix" ADD COLUMN     "applyClaim" JSONB,
ADD COLUMN     "applyClaimedAt" TIMESTAMP(3),
ADD COLUMN     "applyClaimedById" TEXT;

-- CreateTable
CREATE TABLE "PersonalToken" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "PersonalToken_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PersonalToken_tokenHash_key" ON "PersonalToken"("tokenHash");

-- CreateIndex
CREATE INDEX "PersonalToken_userId_createdAt_idx" ON "PersonalToken"("userId", "createdAt");

-- AddForeignKey
ALTER TABLE "Fix" ADD CONSTRAINT "Fix_applyClaimedById_fkey" FOREIGN KEY ("applyClaimedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PersonalToken" ADD CONSTRAINT "PersonalToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
