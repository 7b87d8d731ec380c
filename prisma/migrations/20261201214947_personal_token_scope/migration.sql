-- CreateEnum
CREATE TYPE "PersonalTokenScope" AS ENUM ('READ', 'DECIDE');

-- AlterTable
ALTER TABLE "PersonalToken" ADD COLUMN     "scope" "PersonalTokenScope" NOT NULL DEFAULT 'DECIDE';
