-- CreateIndex
CREATE INDEX "Grade_graderId_idx" ON "Grade"("graderId");
