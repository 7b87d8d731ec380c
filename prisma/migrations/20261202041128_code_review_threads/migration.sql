-- CreateTable
CREATE TABLE "CodeReviewThread" (
    "changeId" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "checkRunId" TEXT,
    "checkRunHeadRev" TEXT,
    "commentId" TEXT,
    "suggestionsFixId" TEXT,
    "lastCheckState" TEXT,
    "lastCommentDigest" TEXT,
    "syncedAt" TIMESTAMP(3),

    CONSTRAINT "CodeReviewThread_pkey" PRIMARY KEY ("changeId")
);

-- AddForeignKey
ALTER TABLE "CodeReviewThread" ADD CONSTRAINT "CodeReviewThread_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "CodeHost"("id") ON DELETE CASCADE ON UPDATE CASCADE;
