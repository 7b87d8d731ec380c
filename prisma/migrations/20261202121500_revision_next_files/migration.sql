-- AlterTable
ALTER TABLE "ChangeRevision" ADD COLUMN "nextFiles" JSONB;

-- The housekeeping's work list: superseded revisions whose next files are not recorded yet
CREATE INDEX "ChangeRevision_nextFiles_pending_idx" ON "ChangeRevision"("supersededAt") WHERE "supersededAt" IS NOT NULL AND "nextFiles" IS NULL;
