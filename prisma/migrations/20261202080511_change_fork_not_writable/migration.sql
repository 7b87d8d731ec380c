-- AlterTable
ALTER TABLE "Change" ADD COLUMN     "forkNotWritable" TEXT;
