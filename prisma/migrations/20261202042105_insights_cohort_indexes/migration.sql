-- CreateIndex
CREATE INDEX "Change_createdAt_idx" ON "Change"("createdAt");

-- CreateIndex
CREATE INDEX "Change_repositoryId_createdAt_idx" ON "Change"("repositoryId", "createdAt");
