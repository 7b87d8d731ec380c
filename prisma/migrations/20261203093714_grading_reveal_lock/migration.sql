-- DropForeignKey
ALTER TABLE "Consensus" DROP CONSTRAINT "Consensus_settledById_fkey";

-- AlterTable
ALTER TABLE "Consensus" ALTER COLUMN "settledById" DROP NOT NULL;

-- CreateTable
CREATE TABLE "GradeReveal" (
    "fixId" TEXT NOT NULL,
    "graderId" TEXT NOT NULL,
    "via" TEXT NOT NULL,
    "revealedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GradeReveal_pkey" PRIMARY KEY ("fixId","graderId")
);

-- CreateIndex
CREATE INDEX "GradeReveal_graderId_idx" ON "GradeReveal"("graderId");

-- AddForeignKey
ALTER TABLE "Consensus" ADD CONSTRAINT "Consensus_settledById_fkey" FOREIGN KEY ("settledById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradeReveal" ADD CONSTRAINT "GradeReveal_fixId_fkey" FOREIGN KEY ("fixId") REFERENCES "Fix"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GradeReveal" ADD CONSTRAINT "GradeReveal_graderId_fkey" FOREIGN KEY ("graderId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An automatic (unanimous) settlement names no settler: it used to name the
-- grader whose label completed it.
UPDATE "Consensus" SET "settledById" = NULL WHERE automatic;

-- Graders of an already settled fix have seen its labels since its settlement.
INSERT INTO "GradeReveal" ("fixId", "graderId", "via", "revealedAt")
SELECT g."fixId", g."graderId", 'settled', c."settledAt"
FROM "Grade" g JOIN "Consensus" c ON c."fixId" = g."fixId"
ON CONFLICT DO NOTHING;
