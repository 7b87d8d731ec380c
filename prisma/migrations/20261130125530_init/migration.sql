-- CreateEnum
CREATE TYPE "Role" AS ENUM ('REVIEWER', 'GRADER', 'MANAGER', 'ADMIN');

-- CreateEnum
CREATE TYPE "ChangeStatus" AS ENUM ('NEW', 'SKIPPED', 'QUEUED', 'RUNNING', 'FIX_READY', 'NO_FIX', 'APPLIED', 'REJECTED', 'STALE');

-- CreateEnum
CREATE TYPE "AuthorKind" AS ENUM ('HUMAN', 'BOT');

-- CreateEnum
CREATE TYPE "Origin" AS ENUM ('CI', 'CLI', 'DEMO_HISTORY');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('QUEUED', 'RUNNING', 'FIXED', 'NO_FIX', 'FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "RunTrigger" AS ENUM ('AUTO', 'MANUAL', 'REVALIDATE');

-- CreateEnum
CREATE TYPE "FixStatus" AS ENUM ('READY', 'DROPPED', 'APPLIED', 'REJECTED', 'STALE');

-- CreateEnum
CREATE TYPE "DecisionKind" AS ENUM ('PREVIEW', 'ACCEPT', 'EDIT_ACCEPT', 'REJECT');

-- CreateEnum
CREATE TYPE "Surface" AS ENUM ('DASHBOARD', 'CLI', 'API');

-- CreateEnum
CREATE TYPE "RejectReason" AS ENUM ('WRONG_FIX', 'NOT_HOW_I_WOULD', 'TESTS_TAMPERED', 'TOO_LATE', 'IRRELEVANT', 'OTHER');

-- CreateEnum
CREATE TYPE "GradeLabel" AS ENUM ('CORRECT', 'OVERFITTING', 'INCORRECT', 'IRRELEVANT');

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT,
    "roles" "Role"[],
    "disabledAt" TIMESTAMP(3),
    "oidcSubject" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSignInAt" TIMESTAMP(3),

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Repository" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "gitUrl" TEXT NOT NULL,
    "defaultBranch" TEXT NOT NULL DEFAULT 'main',
    "language" TEXT NOT NULL DEFAULT 'typescript',
    "settings" JSONB NOT NULL DEFAULT '{}',
    "filterPolicy" JSONB NOT NULL DEFAULT '{}',
    "modelSettings" JSONB NOT NULL DEFAULT '{}',
    "archivedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Repository_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnownFlakyTest" (
    "id" TEXT NOT NULL,
    "repositoryId" TEXT NOT NULL,
    "testId" TEXT NOT NULL,
    "reason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnownFlakyTest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedById" TEXT,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Change" (
    "id" TEXT NOT NULL,
    "repositoryId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "author" TEXT NOT NULL,
    "authorEmail" TEXT,
    "authorKind" "AuthorKind" NOT NULL DEFAULT 'HUMAN',
    "branch" TEXT NOT NULL,
    "url" TEXT,
    "baseRev" TEXT NOT NULL,
    "headRev" TEXT NOT NULL,
    "revisionNumber" INTEGER NOT NULL DEFAULT 1,
    "status" "ChangeStatus" NOT NULL DEFAULT 'NEW',
    "statusReason" TEXT,
    "failingTestCount" INTEGER NOT NULL DEFAULT 0,
    "filesChanged" INTEGER NOT NULL DEFAULT 0,
    "linesChanged" INTEGER NOT NULL DEFAULT 0,
    "origin" "Origin" NOT NULL DEFAULT 'CI',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "lastFailureAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Change_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeRevision" (
    "id" TEXT NOT NULL,
    "changeId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "baseRev" TEXT NOT NULL,
    "headRev" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "ciLog" TEXT NOT NULL DEFAULT '',
    "logTruncatedBytes" INTEGER NOT NULL DEFAULT 0,
    "ciUrl" TEXT,
    "diffStat" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "supersededAt" TIMESTAMP(3),

    CONSTRAINT "ChangeRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Failure" (
    "id" TEXT NOT NULL,
    "changeId" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "testId" TEXT NOT NULL,
    "testName" TEXT NOT NULL,
    "suite" TEXT,
    "file" TEXT,
    "line" INTEGER,
    "kind" TEXT NOT NULL DEFAULT 'failure',
    "message" TEXT NOT NULL DEFAULT '',
    "logExcerpt" TEXT NOT NULL DEFAULT '',
    "ciUrl" TEXT,
    "durationMs" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Failure_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "changeId" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "trigger" "RunTrigger" NOT NULL DEFAULT 'AUTO',
    "policy" TEXT NOT NULL,
    "model" TEXT,
    "status" "RunStatus" NOT NULL DEFAULT 'QUEUED',
    "exitReason" TEXT,
    "exitDetail" TEXT,
    "activeKey" TEXT,
    "sourceFixId" TEXT,
    "inputDiff" TEXT,
    "phaseTimings" JSONB NOT NULL DEFAULT '{}',
    "toolCalls" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 3,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "heartbeatAt" TIMESTAMP(3),
    "nextEventSeq" INTEGER NOT NULL DEFAULT 0,
    "cancelRequestedAt" TIMESTAMP(3),
    "cancelRequestedById" TEXT,
    "requestedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunEvent" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RunEvent_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "Fix" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "changeId" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "diff" TEXT NOT NULL,
    "files" TEXT[],
    "summaryHtml" TEXT NOT NULL DEFAULT '',
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "status" "FixStatus" NOT NULL DEFAULT 'READY',
    "dropReason" TEXT,
    "appliedCommit" TEXT,
    "appliedAt" TIMESTAMP(3),
    "appliedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Fix_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Decision" (
    "id" TEXT NOT NULL,
    "fixId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "kind" "DecisionKind" NOT NULL,
    "surface" "Surface" NOT NULL DEFAULT 'DASHBOARD',
    "reason" "RejectReason",
    "reasonText" TEXT,
    "editedDiff" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Decision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Grade" (
    "id" TEXT NOT NULL,
    "fixId" TEXT NOT NULL,
    "graderId" TEXT NOT NULL,
    "label" "GradeLabel" NOT NULL,
    "rationale" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Grade_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Consensus" (
    "id" TEXT NOT NULL,
    "fixId" TEXT NOT NULL,
    "label" "GradeLabel" NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "settledById" TEXT NOT NULL,
    "settledAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Consensus_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "allRepositories" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "CiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CiTokenScope" (
    "tokenId" TEXT NOT NULL,
    "repositoryId" TEXT NOT NULL,

    CONSTRAINT "CiTokenScope_pkey" PRIMARY KEY ("tokenId","repositoryId")
);

-- CreateTable
CREATE TABLE "AuditLog" (
    "id" BIGSERIAL NOT NULL,
    "actorId" TEXT,
    "actorKind" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "data" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "User_oidcSubject_key" ON "User"("oidcSubject");

-- CreateIndex
CREATE UNIQUE INDEX "Repository_name_key" ON "Repository"("name");

-- CreateIndex
CREATE UNIQUE INDEX "KnownFlakyTest_repositoryId_testId_key" ON "KnownFlakyTest"("repositoryId", "testId");

-- CreateIndex
CREATE INDEX "Change_lastFailureAt_id_idx" ON "Change"("lastFailureAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Change_status_lastFailureAt_id_idx" ON "Change"("status", "lastFailureAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Change_repositoryId_lastFailureAt_id_idx" ON "Change"("repositoryId", "lastFailureAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Change_author_idx" ON "Change"("author");

-- CreateIndex
CREATE UNIQUE INDEX "Change_repositoryId_externalId_key" ON "Change"("repositoryId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "ChangeRevision_changeId_headRev_key" ON "ChangeRevision"("changeId", "headRev");

-- CreateIndex
CREATE UNIQUE INDEX "ChangeRevision_changeId_number_key" ON "ChangeRevision"("changeId", "number");

-- CreateIndex
CREATE INDEX "Failure_changeId_idx" ON "Failure"("changeId");

-- CreateIndex
CREATE UNIQUE INDEX "Failure_revisionId_testId_key" ON "Failure"("revisionId", "testId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_activeKey_key" ON "Run"("activeKey");

-- CreateIndex
CREATE INDEX "Run_changeId_createdAt_idx" ON "Run"("changeId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Run_status_createdAt_idx" ON "Run"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Run_revisionId_idx" ON "Run"("revisionId");

-- CreateIndex
CREATE INDEX "Run_finishedAt_idx" ON "Run"("finishedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Fix_runId_key" ON "Fix"("runId");

-- CreateIndex
CREATE INDEX "Fix_status_createdAt_idx" ON "Fix"("status", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Fix_changeId_idx" ON "Fix"("changeId");

-- CreateIndex
CREATE INDEX "Fix_createdAt_idx" ON "Fix"("createdAt");

-- CreateIndex
CREATE INDEX "Decision_fixId_createdAt_idx" ON "Decision"("fixId", "createdAt");

-- CreateIndex
CREATE INDEX "Decision_kind_surface_createdAt_idx" ON "Decision"("kind", "surface", "createdAt");

-- CreateIndex
CREATE INDEX "Decision_createdAt_idx" ON "Decision"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Grade_fixId_graderId_key" ON "Grade"("fixId", "graderId");

-- CreateIndex
CREATE UNIQUE INDEX "Consensus_fixId_key" ON "Consensus"("fixId");

-- CreateIndex
CREATE UNIQUE INDEX "CiToken_tokenHash_key" ON "CiToken"("tokenHash");

-- CreateIndex
CREATE INDEX "AuditLog_createdAt_idx" ON "AuditLog"("createdAt");

-- CreateIndex
CREATE INDEX "AuditLog_targetType_targetId_idx" ON "AuditLog"("targetType", "targetId");

-- AddForeignKey
ALTER TABLE "KnownFlakyTest" ADD CONSTRAINT "KnownFlakyTest_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Change" ADD CONSTRAINT "Change_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRevision" ADD CONSTRAINT "ChangeRevision_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "Change"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Failure" ADD CONSTRAINT "Failure_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "Change"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Failure" ADD CONSTRAINT "Failure_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "ChangeRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "Change"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "ChangeRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_cancelRequestedById_fkey" FOREIGN KEY ("cancelRequestedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_requestedById_fkey" FOREIGN KEY ("requestedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunEvent" ADD CONSTRAINT "RunEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Fix" ADD CONSTRAINT "Fix_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Fix" ADD CONSTRAINT "Fix_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "Change"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Fix" ADD CONSTRAINT "Fix_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "ChangeRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Fix" ADD CONSTRAINT "Fix_appliedById_fkey" FOREIGN KEY ("appliedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_fixId_fkey" FOREIGN KEY ("fixId") REFERENCES "Fix"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Grade" ADD CONSTRAINT "Grade_fixId_fkey" FOREIGN KEY ("fixId") REFERENCES "Fix"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Grade" ADD CONSTRAINT "Grade_graderId_fkey" FOREIGN KEY ("graderId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Consensus" ADD CONSTRAINT "Consensus_fixId_fkey" FOREIGN KEY ("fixId") REFERENCES "Fix"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Consensus" ADD CONSTRAINT "Consensus_settledById_fkey" FOREIGN KEY ("settledById") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CiToken" ADD CONSTRAINT "CiToken_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CiTokenScope" ADD CONSTRAINT "CiTokenScope_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "CiToken"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CiTokenScope" ADD CONSTRAINT "CiTokenScope_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AuditLog" ADD CONSTRAINT "AuditLog_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
