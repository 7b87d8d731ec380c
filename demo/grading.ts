import type { PrismaClient } from '../lib/generated/prisma/client';
import type { GradeLabel } from '../lib/generated/prisma/enums';

// The demo's grading queue, on the generated history: a few fixes already
// settled (unanimous) and a few disputed, and fixes where the two history
// graders have labelled and the demo grader (grader@demo.flowfix) gives the
// third label — agreeing settles it, disagreeing sends it to the disputed
// list, where the demo manager settles it — and fresh fixes nobody labelled.
// Idempotent: a queue of this name is never made twice.

export const DEMO_QUEUE_NAME = 'Demo: history fixes, three graders';

const AGREEING: GradeLabel[] = ['CORRECT', 'CORRECT', 'OVERFITTING', 'INCORRECT'];
const DISAGREEING: Array<[GradeLabel, GradeLabel]> = [
  ['CORRECT', 'OVERFITTING'],
  ['INCORRECT', 'CORRECT'],
  ['OVERFITTING', 'INCORRECT'],
];
const RATIONALE: Record<GradeLabel, string> = {
  CORRECT: '',
  OVERFITTING: 'Makes the failing test pass by special-casing its input; the general case is still wrong.',
  INCORRECT: 'Changes behaviour the change relies on; the regression suite only passes because it does not cover it.',
  IRRELEVANT: 'Touches code the failing test never reaches.',
};

export async function seedGradingQueue({
  db,
  historyGraderIds,
  graderId,
  managerId,
  now,
}: {
  db: PrismaClient;
  /** the two history graders */
  historyGraderIds: string[];
  /** the demo grader */
  graderId: string;
  managerId: string;
  now: Date;
}): Promise<{ created: boolean; items: number }> {
  const existing = await db.gradingQueue.findFirst({ where: { name: DEMO_QUEUE_NAME }, select: { id: true, _count: { select: { items: true } } } });
  if (existing) return { created: false, items: existing._count.items };
  const historyFix = { change: { origin: 'DEMO_HISTORY' as const } };
  const ungraded = await db.fix.findMany({
    where: { ...historyFix, grades: { none: {} } },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: 15,
    select: { id: true },
  });
  const settled = await db.fix.findMany({
    where: { ...historyFix, consensus: { isNot: null } },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: 3,
    select: { id: true },
  });
  // labelled by all three in the history, disagreeing, never settled: disputed
  const unsettled = await db.$queryRaw<Array<{ id: string }>>`
    SELECT f.id FROM "Fix" f JOIN "Change" ch ON ch.id = f."changeId"
    WHERE ch.origin = 'DEMO_HISTORY' AND NOT EXISTS (SELECT 1 FROM "Consensus" c WHERE c."fixId" = f.id)
      AND (SELECT count(DISTINCT g.label) FROM "Grade" g WHERE g."fixId" = f.id) > 1
    ORDER BY f."createdAt" DESC, f.id
    LIMIT 2`;
  if (ungraded.length === 0) return { created: false, items: 0 };
  const [first, second] = historyGraderIds;
  const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000);
  await db.$transaction(async (tx) => {
    const queue = await tx.gradingQueue.create({
      data: {
        name: DEMO_QUEUE_NAME,
        instructions:
          'Judge each fix as a careful maintainer would. Compare it with what the developer did next when that is shown. ' +
          'Overfitting: the tests pass but the repair is not general. A rationale is required for every label but correct.',
        gradersPerFix: 3,
        showDecisions: false,
        filter: { repositoryIds: [], policies: [], models: [], statuses: [], decisions: [], includeHistory: true },
        createdById: managerId,
        createdAt: at(240),
        graders: { create: [first, second, graderId].map((userId) => ({ userId })) },
      },
    });
    // the demo grader's own work first: two labels in, theirs missing
    const fixIds = [...ungraded.map((f) => f.id), ...settled.map((f) => f.id), ...unsettled.map((f) => f.id)];
    await tx.gradingItem.createMany({ data: fixIds.map((fixId, position) => ({ queueId: queue.id, fixId, position })) });
    const grades: Array<{ fixId: string; graderId: string; label: GradeLabel }> = [];
    ungraded.slice(0, AGREEING.length).forEach((f, i) => {
      grades.push({ fixId: f.id, graderId: first, label: AGREEING[i] }, { fixId: f.id, graderId: second, label: AGREEING[i] });
    });
    ungraded.slice(AGREEING.length, AGREEING.length + DISAGREEING.length).forEach((f, i) => {
      grades.push({ fixId: f.id, graderId: first, label: DISAGREEING[i][0] }, { fixId: f.id, graderId: second, label: DISAGREEING[i][1] });
    });
    let minutes = 200;
    for (const g of grades) {
      const when = at((minutes -= 3));
      const rationale = RATIONALE[g.label];
      await tx.grade.create({ data: { ...g, rationale, createdAt: when, updatedAt: when } });
      await tx.gradeEvent.create({
        data: { fixId: g.fixId, actorId: g.graderId, queueId: queue.id, kind: 'label', label: g.label, rationale, createdAt: when },
      });
    }
  });
  return { created: true, items: ungraded.length + settled.length + unsettled.length };
}
