-- AlterTable
ALTER TABLE "GradingQueue" ADD COLUMN     "openFrom" INTEGER NOT NULL DEFAULT 0;
