-- AlterTable
ALTER TABLE "Change" ADD COLUMN     "draft" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "CodeReviewThread" ADD COLUMN     "checkRunCompleted" BOOLEAN NOT NULL DEFAULT false;
