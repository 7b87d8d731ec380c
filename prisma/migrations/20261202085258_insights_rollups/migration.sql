-- CreateTable
CREATE TABLE "InsightsCohortDay" (
    "repositoryId" TEXT NOT NULL,
    "authorKind" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "changes" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "counters" JSONB NOT NULL DEFAULT '{}',
    "histDeveloper" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "InsightsCohortDay_pkey" PRIMARY KEY ("repositoryId","authorKind","day")
);

-- CreateTable
CREATE TABLE "InsightsRunDay" (
    "repositoryId" TEXT NOT NULL,
    "authorKind" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "policy" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "attempted" INTEGER NOT NULL DEFAULT 0,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "toolCalls" BIGINT NOT NULL DEFAULT 0,
    "tokens" BIGINT NOT NULL DEFAULT 0,
    "costMicros" BIGINT NOT NULL DEFAULT 0,
    "unpriced" INTEGER NOT NULL DEFAULT 0,
    "finished" INTEGER NOT NULL DEFAULT 0,
    "noFix" INTEGER NOT NULL DEFAULT 0,
    "found" INTEGER NOT NULL DEFAULT 0,
    "dropped" INTEGER NOT NULL DEFAULT 0,
    "posted" INTEGER NOT NULL DEFAULT 0,
    "postedZeroCost" INTEGER NOT NULL DEFAULT 0,
    "previewed" INTEGER NOT NULL DEFAULT 0,
    "applied" INTEGER NOT NULL DEFAULT 0,
    "rejected" INTEGER NOT NULL DEFAULT 0,
    "accepts" INTEGER NOT NULL DEFAULT 0,
    "editAccepts" INTEGER NOT NULL DEFAULT 0,
    "rejects" INTEGER NOT NULL DEFAULT 0,
    "counters" JSONB NOT NULL DEFAULT '{}',
    "histFix" JSONB NOT NULL DEFAULT '{}',
    "histPhase" JSONB NOT NULL DEFAULT '{}',
    "histToolCalls" JSONB NOT NULL DEFAULT '{}',
    "histTokens" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "InsightsRunDay_pkey" PRIMARY KEY ("repositoryId","authorKind","day","policy","model","trigger")
);

-- CreateTable
CREATE TABLE "InsightsPrecisionDay" (
    "repositoryId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "policy" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "correct" INTEGER NOT NULL DEFAULT 0,
    "overfitting" INTEGER NOT NULL DEFAULT 0,
    "incorrect" INTEGER NOT NULL DEFAULT 0,
    "irrelevant" INTEGER NOT NULL DEFAULT 0,
    "acceptedSettled" INTEGER NOT NULL DEFAULT 0,
    "acceptedJudgedBad" INTEGER NOT NULL DEFAULT 0,
    "rejectedSettled" INTEGER NOT NULL DEFAULT 0,
    "rejectedJudgedCorrect" INTEGER NOT NULL DEFAULT 0,
    "counters" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "InsightsPrecisionDay_pkey" PRIMARY KEY ("repositoryId","day","policy","model")
);

-- CreateIndex
CREATE INDEX "InsightsRunDay_authorKind_policy_model_trigger_day_idx" ON "InsightsRunDay"("authorKind", "policy", "model", "trigger", "day");

-- CreateIndex
CREATE INDEX "InsightsPrecisionDay_policy_model_day_idx" ON "InsightsPrecisionDay"("policy", "model", "day");
