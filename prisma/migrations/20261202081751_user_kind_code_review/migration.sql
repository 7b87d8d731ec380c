-- CreateEnum
CREATE TYPE "UserKind" AS ENUM ('PERSON', 'CODE_REVIEW');

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "kind" "UserKind" NOT NULL DEFAULT 'PERSON';

-- The identities made before this column existed, recognised by their reserved domain
UPDATE "User" SET "kind" = 'CODE_REVIEW' WHERE "email" LIKE '%.code-review.invalid';
