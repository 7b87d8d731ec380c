-- CreateTable
CREATE TABLE "SignInThrottle" (
    "scope" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "lastFailureAt" TIMESTAMP(3),
    "lockedUntil" TIMESTAMP(3),

    CONSTRAINT "SignInThrottle_pkey" PRIMARY KEY ("scope","subject")
);

-- CreateIndex
CREATE INDEX "AuditLog_actorId_id_idx" ON "AuditLog"("actorId", "id");

-- CreateIndex
CREATE INDEX "AuditLog_action_id_idx" ON "AuditLog"("action", "id");
