-- CreateEnum
CREATE TYPE "PersonalTokenKind" AS ENUM ('CLI', 'IDE');

-- AlterEnum
ALTER TYPE "Surface" ADD VALUE 'IDE';

-- AlterTable
ALTER TABLE "PersonalToken" ADD COLUMN     "kind" "PersonalTokenKind" NOT NULL DEFAULT 'CLI';
