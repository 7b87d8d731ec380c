-- CreateEnum
CREATE TYPE "GradingQueueStatus" AS ENUM ('OPEN', 'CLOSED');

-- AlterTable
ALTER TABLE "Consensus" ADD COLUMN     "automatic" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Grade" ADD COLUMN     "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "GradingQueue" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "instructions" TEXT NOT NULL DEFAULT '',
    "gradersPerFix" INTEGER NOT NULL DEFAULT 3,
    "showDecisions" BOOLEAN NOT NULL DEFAULT false,
    "filter" JSONB NOT NULL DEFAULT '{}',
    "status" "GradingQueueStatus" NOT NULL DEFAULT 'OPEN',
    "leadGraderId" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closedAt" TIMESTAMP(3),

    CONSTRAINT "GradingQueue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GradingQueueGrader" (
    "queueId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,

    CONSTRAINT "GradingQueueGrader_pkey" PRIMARY KEY ("queueId","userId")
);

-- CreateTable
CREATE TABLE "GradingItem" (
    "id" TEXT NOT NULL,
    "queueId" TEXT NOT NULL,
    "fixId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "GradingItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GradingLease" (
    "itemId" TEXT NOT NULL,
    "graderId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GradingLease_pkey" PRIMARY KEY ("itemId","graderId")
);

-- CreateTable
CREATE TABLE "GradingSkip" (
    "itemId" TEXT NOT NULL,
    "graderId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GradingSkip_pkey" PRIMARY KEY ("itemId","graderId")
);

-- CreateTable
CREATE TABLE "GradeEvent" (
    "id" TEXT NOT NULL,
    "fixId" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "queueId" TEXT,
    "kind" TEXT NOT NULL,
    "label" "GradeLabel",
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "rationale" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GradeEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GradingQueue_createdAt_idx" ON "GradingQueue"("createdAt" DESC);

-- CreateIndex
CREATE INDEX "GradingQueueGrader_userId_idx" ON "GradingQueueGrader"("userId");

-- CreateIndex
CREATE INDEX "GradingItem_fixId_idx" ON "GradingItem"("fixId");

-- CreateIndex
CREATE UNIQUE INDEX "GradingItem_queueId_fixId_key" ON "GradingItem"("queueId", "fixId");

-- CreateIndex
CREATE UNIQUE INDEX "GradingItem_queueId_position_key" ON "GradingItem"("queueId", "position");

-- CreateIndex
CREATE INDEX "GradingLease_graderId_expiresAt_idx" ON "GradingLease"("graderId", "expiresAt");

-- CreateIndex
CREATE INDEX "GradeEvent_fixId_createdAt_idx" ON "GradeEvent"("fixId", "createdAt");

-- AddForeignKey
ALTER TABLE "GradingQueue" ADD CONSTRAINT "GradingQueue_leadGraderId_fkey" FOREIGN KEY ("leadGraderId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingQueue" ADD CONSTRAINT "GradingQueue_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingQueueGrader" ADD CONSTRAINT "GradingQueueGrader_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "GradingQueue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingQueueGrader" ADD CONSTRAINT "GradingQueueGrader_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingItem" ADD CONSTRAINT "GradingItem_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "GradingQueue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingItem" ADD CONSTRAINT "GradingItem_fixId_fkey" FOREIGN KEY ("fixId") REFERENCES "Fix"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingLease" ADD CONSTRAINT "GradingLease_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "GradingItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingLease" ADD CONSTRAINT "GradingLease_graderId_fkey" FOREIGN KEY ("graderId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingSkip" ADD CONSTRAINT "GradingSkip_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "GradingItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradingSkip" ADD CONSTRAINT "GradingSkip_graderId_fkey" FOREIGN KEY ("graderId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradeEvent" ADD CONSTRAINT "GradeEvent_fixId_fkey" FOREIGN KEY ("fixId") REFERENCES "Fix"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradeEvent" ADD CONSTRAINT "GradeEvent_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
