-- pg_trgm provides gin_trgm_ops for the triage list's substring search.
-- (PGlite loads the extension in lib/db.ts; a server ships it in contrib.)
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "Change_repositoryId_status_lastFailureAt_id_idx" ON "Change"("repositoryId", "status", "lastFailureAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Change_title_trgm_idx" ON "Change" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Change_externalId_trgm_idx" ON "Change" USING GIN ("externalId" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Change_author_trgm_idx" ON "Change" USING GIN ("author" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Change_branch_trgm_idx" ON "Change" USING GIN ("branch" gin_trgm_ops);
