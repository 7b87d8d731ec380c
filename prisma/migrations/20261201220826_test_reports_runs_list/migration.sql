-- AlterTable
ALTER TABLE "Failure" ADD COLUMN     "problems" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "TestReport" (
    "id" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "tests" INTEGER NOT NULL,
    "passed" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "errored" INTEGER NOT NULL,
    "skipped" INTEGER NOT NULL,
    "durationMs" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TestReport_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "TestReport_revisionId_digest_key" ON "TestReport"("revisionId", "digest");

-- CreateIndex
CREATE INDEX "Run_createdAt_id_idx" ON "Run"("createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "TestReport" ADD CONSTRAINT "TestReport_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "ChangeRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;
