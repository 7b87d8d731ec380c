import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import type { GradeLabel, Role } from '../../../lib/generated/prisma/enums';

// Blindness as a grader can test it: two worlds built the same way, differing
// only in the labels OTHER graders gave on items that are not settled. Every
// API route the grader can call, called the same way in both, must answer the
// same (ids, names carrying the world's tag and timestamps aside). The number
// of labels an item has is the same in both worlds: it is the queue's
// progress and decides who may take a slot; what the labels say is not.
//
// "Settled" is a Consensus row on the fix: set by a manager, an admin or the
// queue's lead grader, or automatically by the label that completes the fix
// when every label agrees. A fix's labels are final once it has all the
// labels it needs, so the automatic settlement the last label may cause is
// final the moment it happens; what differs after it is only that.

type Handler = Parameters<typeof callRoute>[0]['handler'];
type Who = 'ann' | 'bob' | 'cy';
const GRADERS: Who[] = ['ann', 'bob', 'cy'];
const NAMES: Record<Who | 'manager', string> = { ann: 'Ann Grader', bob: 'Bob Grader', cy: 'Cy Grader', manager: 'Mona Manager' };

const API = path.resolve('app/api');
const routeFiles = fs
  .readdirSync(API, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name === 'route.ts')
  .map((e) => path.relative(API, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
  .filter((f) => f !== 'auth/[...nextauth]/route.ts')
  .sort();
const modules = new Map<string, Record<string, Handler>>();
for (const f of routeFiles) modules.set(f, (await import(pathToFileURL(path.join(API, f)).href)) as Record<string, Handler>);
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface World {
  tag: string;
  queueId: string;
  itemIds: string[];
  fixIds: string[];
  cookies: Record<Who | 'manager', string>;
}

interface WorldSpec {
  items: number;
  lead?: Who;
  /** given in this order, through the grade route */
  labels: Array<[item: number, who: Who, label: GradeLabel]>;
}

let db: TestDb;
let worldCount = 0;

async function buildWorld(spec: WorldSpec): Promise<World> {
  const tag = `wld${++worldCount}x`;
  const d = db.db;
  const cookies = {} as World['cookies'];
  for (const who of [...GRADERS, 'manager'] as const) {
    const roles: Role[] = who === 'manager' ? ['MANAGER'] : ['GRADER'];
    const u = await d.user.create({ data: { id: `${tag}-${who}`, email: `${who}@${tag}.example.com`, name: NAMES[who], roles } });
    cookies[who] = await sessionCookie(u);
  }
  const repo = await d.repository.create({ data: { id: `${tag}-repo`, name: `blind-${tag}`, gitUrl: `/nonexistent/${tag}`, language: 'typescript' } });
  const fixIds: string[] = [];
  for (let k = 0; k < spec.items; k++) {
    const id = `${tag}-k${k}`;
    const createdAt = new Date(Date.UTC(2026, 0, 1, 0, k));
    const change = await d.change.create({
      data: {
        id,
        repositoryId: repo.id,
        externalId: `PR-${k}`,
        title: `Change ${k}`,
        description: 'd',
        author: 'Dev',
        branch: `b${k}`,
        baseRev: 'a'.repeat(40),
        headRev: 'b'.repeat(40),
        status: 'FIX_READY',
        createdAt,
      },
    });
    const revision = await d.changeRevision.create({
      data: { id, changeId: change.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: change.branch },
    });
    const run = await d.run.create({
      data: { id, changeId: change.id, revisionId: revision.id, policy: 'offline', status: 'FIXED', exitReason: 'fixed', finishedAt: createdAt },
    });
    const fix = await d.fix.create({
      data: {
        id,
        runId: run.id,
        changeId: change.id,
        revisionId: revision.id,
        diff: `diff --git a/x.js b/x.js\n--- a/x.js\n+++ b/x.js\n@@ -1 +1 @@\n-${k}\n+${k + 1}\n`,
        files: ['x.js'],
        status: 'READY',
        createdAt,
      },
    });
    fixIds.push(fix.id);
  }
  const created = await callRoute({
    handler: modules.get('grading/queues/route.ts')!.POST,
    url: '/api/grading/queues',
    method: 'POST',
    cookie: cookies.manager,
    body: {
      name: 'Blind twins',
      graderIds: GRADERS.map((g) => `${tag}-${g}`),
      gradersPerFix: 3,
      leadGraderId: spec.lead ? `${tag}-${spec.lead}` : null,
      filter: { repositoryIds: [repo.id] },
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const queueId = (created.json as { id: string }).id;
  const items = await d.gradingItem.findMany({ where: { queueId }, orderBy: { position: 'asc' } });
  assert.deepEqual(
    items.map((i) => i.fixId),
    fixIds,
  );
  const world: World = { tag, queueId, itemIds: items.map((i) => i.id), fixIds, cookies };
  for (const [k, who, label] of spec.labels) {
    const r = await grade(world, who, k, { label, rationale: `${who} on ${k}: ${label}` });
    assert.equal(r.status, 200, JSON.stringify(r.json));
  }
  return world;
}

function call(w: World, who: Who | 'manager', file: string, method: string, extra: { params?: Record<string, string>; body?: unknown; query?: string } = {}) {
  const handler = modules.get(file)?.[method];
  assert.ok(handler, `${method} ${file} exists`);
  const params = extra.params ?? {};
  const url = '/api/' + file.replace(/\/route\.ts$/, '').replace(/\[(\w+)\]/g, (_, name: string) => params[name] ?? name) + (extra.query ?? '');
  return callRoute({ handler, url, method, cookie: w.cookies[who], params, body: extra.body });
}

const q = (w: World) => ({ id: w.queueId });
const qi = (w: World, k: number) => ({ id: w.queueId, itemId: w.itemIds[k] });
const grade = (w: World, who: Who, k: number, body: unknown) =>
  call(w, who, 'grading/queues/[id]/items/[itemId]/grade/route.ts', 'POST', { params: qi(w, k), body });

/** The answer with what legitimately differs between the worlds replaced: their ids, names carrying the tag, and timestamps. */
function normalise(w: World, r: { status: number; json: unknown }): { status: number; json: unknown } {
  let text = JSON.stringify(r.json);
  text = text.split(w.queueId).join('<queue>');
  w.itemIds.forEach((id, k) => (text = text.split(id).join(`<item ${k}>`)));
  text = text.split(w.tag).join('<world>');
  text = text.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>');
  return { status: r.status, json: text === undefined ? undefined : JSON.parse(text) };
}

/** Calls `request` in each world (one after the other) and asserts the grader got the same answer. */
async function same(
  what: string,
  worlds: World[],
  request: (w: World) => Promise<{ status: number; json: unknown }>,
): Promise<{ status: number; json: unknown }> {
  const answers = [];
  for (const w of worlds) {
    const r = await request(w);
    assert.notEqual(r.status, 500, `${what}: ${JSON.stringify(r.json)}`);
    answers.push(normalise(w, r));
  }
  for (const a of answers.slice(1)) assert.deepEqual(a, answers[0], `${what}: the grader can tell the worlds apart`);
  return answers[0];
}

/** Every grading route file with its calls; the rest of the API is called generically (a grader is refused there or sees no label). */
function gradingCalls(who: Who): Record<string, Array<(w: World) => ReturnType<typeof call>>> {
  const items = [0, 1, 2, 3];
  return {
    'grading/queues/route.ts': [(w) => call(w, who, 'grading/queues/route.ts', 'GET'), (w) => call(w, who, 'grading/queues/route.ts', 'POST', { body: {} })],
    'grading/queues/[id]/route.ts': [
      (w) => call(w, who, 'grading/queues/[id]/route.ts', 'GET', { params: q(w) }),
      (w) => call(w, who, 'grading/queues/[id]/route.ts', 'PATCH', { params: q(w), body: { status: 'CLOSED' } }),
    ],
    'grading/queues/[id]/items/[itemId]/route.ts': items.map(
      (k) => (w: World) => call(w, who, 'grading/queues/[id]/items/[itemId]/route.ts', 'GET', { params: qi(w, k) }),
    ),
    'grading/queues/[id]/items/[itemId]/files/route.ts': [
      (w) => call(w, who, 'grading/queues/[id]/items/[itemId]/files/route.ts', 'GET', { params: qi(w, 0) }),
    ],
    'grading/queues/[id]/mine/route.ts': [(w) => call(w, who, 'grading/queues/[id]/mine/route.ts', 'GET', { params: q(w) })],
    'grading/queues/[id]/disputed/route.ts': [(w) => call(w, who, 'grading/queues/[id]/disputed/route.ts', 'GET', { params: q(w) })],
    'grading/queues/[id]/agreement/route.ts': [(w) => call(w, who, 'grading/queues/[id]/agreement/route.ts', 'GET', { params: q(w) })],
    'grading/queues/[id]/export/route.ts': [(w) => call(w, who, 'grading/queues/[id]/export/route.ts', 'GET', { params: q(w), query: '?format=json' })],
    'grading/queues/[id]/items/[itemId]/settle/route.ts': [
      (w) => call(w, who, 'grading/queues/[id]/items/[itemId]/settle/route.ts', 'POST', { params: qi(w, 0), body: { label: 'CORRECT', note: 'n' } }),
    ],
    'grading/precision/route.ts': [(w) => call(w, who, 'grading/precision/route.ts', 'GET')],
    'grading/options/route.ts': [(w) => call(w, who, 'grading/options/route.ts', 'GET')],
    // the ones that write are called in the test itself, in an order that keeps the worlds comparable
    'grading/queues/[id]/next/route.ts': [],
    'grading/queues/[id]/items/[itemId]/grade/route.ts': [],
    'grading/queues/[id]/items/[itemId]/skip/route.ts': [],
    'grading/queues/[id]/items/[itemId]/dispute/route.ts': [],
  };
}

/** Every read of the API as this grader, compared across the worlds; the writes of the rest of the API with an empty body (refused). */
async function everyRead(worlds: World[], who: Who, when: string): Promise<void> {
  const calls = gradingCalls(who);
  assert.deepEqual(
    Object.keys(calls).sort(),
    routeFiles.filter((f) => f.startsWith('grading/')),
    'every grading route is listed here',
  );
  for (const [file, list] of Object.entries(calls)) {
    for (const [n, c] of list.entries()) await same(`${when}: ${file} #${n}`, worlds, c);
  }
  for (const file of routeFiles.filter((f) => !f.startsWith('grading/'))) {
    const mod = modules.get(file)!;
    for (const method of METHODS) {
      if (typeof mod[method] !== 'function') continue;
      const params = Object.fromEntries([...file.matchAll(/\[(\w+)\]/g)].map((m) => [m[1], 'nonexistent']));
      await same(`${when}: ${method} ${file}`, worlds, (w) =>
        call(w, who, file, method, { params, body: method === 'GET' || method === 'DELETE' ? undefined : {} }),
      );
    }
  }
}

describe('blind grading, across two worlds', () => {
  before(async () => {
    db = await createTestDb();
  });
  after(() => db.drop());

  test('a grader who is not the lead gets the same answers from every route whatever the others labelled, and the last label cannot be moved to the majority', async () => {
    // item 0: all three labels, disagreeing in both worlds, differently
    // item 1: Ann and Bob (two of three): Bob agrees with Ann in one world only
    // item 2: Bob and Cy (two of three), Ann's still to come: they agree on
    //         CORRECT in one world, on INCORRECT in the other; Ann says CORRECT
    // item 3: nobody yet
    const spec = (bob: GradeLabel[], cy: GradeLabel[]): WorldSpec => ({
      items: 4,
      labels: [
        [0, 'bob', bob[0]],
        [0, 'cy', cy[0]],
        [0, 'ann', 'INCORRECT'],
        [1, 'ann', 'INCORRECT'],
        [1, 'bob', bob[1]],
        [2, 'bob', bob[2]],
        [2, 'cy', cy[2]],
      ],
    });
    const agreeing = await buildWorld(spec(['OVERFITTING', 'INCORRECT', 'CORRECT'], ['INCORRECT', 'CORRECT', 'CORRECT']));
    const disagreeing = await buildWorld(spec(['CORRECT', 'CORRECT', 'INCORRECT'], ['IRRELEVANT', 'CORRECT', 'INCORRECT']));
    const worlds = [agreeing, disagreeing];

    await everyRead(worlds, 'ann', 'before her actions');

    // her writes, each compared: a blind revision of an item still waiting for labels
    await same('revising item 1 (two of three)', worlds, (w) => grade(w, 'ann', 1, { label: 'OVERFITTING', rationale: 'on reflection' }));
    await same('disputing item 1 (her label is not final)', worlds, (w) =>
      call(w, 'ann', 'grading/queues/[id]/items/[itemId]/dispute/route.ts', 'POST', { params: qi(w, 1), body: { label: 'CORRECT', note: 'n' } }),
    );
    // item 0 has all its labels: hers is final, a change of mind is a dispute
    const frozen = await same('revising item 0 (complete, unsettled)', worlds, (w) => grade(w, 'ann', 0, { label: 'CORRECT' }));
    assert.equal(frozen.status, 409, JSON.stringify(frozen.json));
    await same('disputing item 0', worlds, (w) =>
      call(w, 'ann', 'grading/queues/[id]/items/[itemId]/dispute/route.ts', 'POST', { params: qi(w, 0), body: { label: 'CORRECT', note: 'second thoughts' } }),
    );
    await same('skipping item 3', worlds, (w) =>
      call(w, 'ann', 'grading/queues/[id]/items/[itemId]/skip/route.ts', 'POST', { params: qi(w, 3), body: { reason: 'later' } }),
    );
    const next = await same('her next item', worlds, (w) => call(w, 'ann', 'grading/queues/[id]/next/route.ts', 'POST', { params: q(w) }));
    assert.equal((next.json as { item: { item: { id: string } } }).item.item.id, '<item 2>');
    // the last label: one world settles it (unanimous), the other waits for the lead
    const last = await same('the last label on item 2', worlds, (w) => grade(w, 'ann', 2, { label: 'CORRECT' }));
    assert.equal(last.status, 200);

    // afterwards: the queue's counts, her next item, and the revision to the
    // majority (INCORRECT, in the world that disagrees) say nothing either
    for (const file of ['grading/queues/route.ts', 'grading/queues/[id]/route.ts']) {
      await same(`after the last label: GET ${file}`, worlds, (w) => call(w, 'ann', file, 'GET', { params: q(w) }));
    }
    await same('after the last label: next', worlds, (w) => call(w, 'ann', 'grading/queues/[id]/next/route.ts', 'POST', { params: q(w) }));
    const toMajority = await same('revising item 2 to the majority', worlds, (w) => grade(w, 'ann', 2, { label: 'INCORRECT', rationale: 'with the others' }));
    assert.equal(toMajority.status, 409);
    assert.match((toMajority.json as { error: { message: string } }).error.message, /final.*dispute it with a note/);
    for (const k of [0, 1, 3]) {
      await same(`after the last label: item ${k}`, worlds, (w) => call(w, 'ann', 'grading/queues/[id]/items/[itemId]/route.ts', 'GET', { params: qi(w, k) }));
    }

    // what may differ is the settlement itself, which nothing can change now
    const viewOf = async (w: World) =>
      (await call(w, 'ann', 'grading/queues/[id]/items/[itemId]/route.ts', 'GET', { params: qi(w, 2) })).json as {
        mine: { label: string };
        others: unknown;
        consensus: { label: string; automatic: boolean } | null;
        labelsComplete: boolean;
      };
    const waiting = await viewOf(disagreeing);
    assert.equal(waiting.others, null);
    assert.equal(waiting.consensus, null);
    assert.equal(waiting.labelsComplete, true, 'her label is final');
    assert.equal(waiting.mine.label, 'CORRECT');
    const settled = await viewOf(agreeing);
    assert.deepEqual([settled.consensus?.label, settled.consensus?.automatic], ['CORRECT', true]);
    const mine = await same('her labels, but for item 2’s settlement', worlds, async (w) => {
      const r = await call(w, 'ann', 'grading/queues/[id]/mine/route.ts', 'GET', { params: q(w) });
      const rows = (r.json as { items: Array<Record<string, unknown>> }).items;
      return { status: r.status, json: rows.map((row) => (row.itemId === w.itemIds[2] ? { ...row, settled: '-', consensus: '-' } : row)) };
    });
    assert.ok(
      (mine.json as Array<{ itemId: string; locked: boolean }>).filter((r) => r.itemId === '<item 0>' || r.itemId === '<item 2>').every((r) => r.locked),
    );

    // the label that stays is the one she gave blind; nothing settled as unanimous where the others disagreed
    const d = db.db;
    assert.equal(
      (await d.grade.findUniqueOrThrow({ where: { fixId_graderId: { fixId: disagreeing.fixIds[2], graderId: `${disagreeing.tag}-ann` } } })).label,
      'CORRECT',
    );
    assert.equal(await d.consensus.count({ where: { fixId: disagreeing.fixIds[2] } }), 0);
    assert.equal((await d.consensus.findUniqueOrThrow({ where: { fixId: agreeing.fixIds[2] } })).automatic, true);
  });

  test('the lead grader, who still has a label to revise, reads the same agreement figures whatever the others labelled', async () => {
    // Cy leads; on item 0 she and Bob have labelled (two of three), Bob agreeing with her in one world only
    const agreeing = await buildWorld({
      items: 2,
      lead: 'cy',
      labels: [
        [0, 'cy', 'CORRECT'],
        [0, 'bob', 'CORRECT'],
      ],
    });
    const disagreeing = await buildWorld({
      items: 2,
      lead: 'cy',
      labels: [
        [0, 'cy', 'CORRECT'],
        [0, 'bob', 'IRRELEVANT'],
      ],
    });
    const worlds = [agreeing, disagreeing];
    for (const file of [
      'grading/queues/route.ts',
      'grading/queues/[id]/route.ts',
      'grading/queues/[id]/agreement/route.ts',
      'grading/queues/[id]/mine/route.ts',
    ]) {
      await same(`the lead: GET ${file}`, worlds, (w) => call(w, 'cy', file, 'GET', { params: q(w) }));
    }
    await same('the lead: item 0', worlds, (w) => call(w, 'cy', 'grading/queues/[id]/items/[itemId]/route.ts', 'GET', { params: qi(w, 0) }));
    const revised = await same('the lead revises item 0', worlds, (w) => grade(w, 'cy', 0, { label: 'IRRELEVANT', rationale: 'on reflection' }));
    assert.equal(revised.status, 200);
  });

  test('agreement figures: a label revised after the fix had all its labels counts as first given, and only final labels count', async () => {
    // Bob and Cy say INCORRECT, Ann CORRECT: complete, disputed. Before labels
    // were final at that point a grader could still revise, as Ann did here to
    // the majority, and the revision settled the fix as "unanimous"
    const w = await buildWorld({
      items: 2,
      labels: [
        [0, 'bob', 'INCORRECT'],
        [0, 'cy', 'INCORRECT'],
        [0, 'ann', 'CORRECT'],
        [1, 'bob', 'CORRECT'],
        [1, 'cy', 'INCORRECT'],
      ],
    });
    const d = db.db;
    const ann = `${w.tag}-ann`;
    const later = new Date(Date.now() + 60_000);
    await d.grade.update({ where: { fixId_graderId: { fixId: w.fixIds[0], graderId: ann } }, data: { label: 'INCORRECT', rationale: 'with the others' } });
    await d.gradeEvent.create({
      data: { fixId: w.fixIds[0], actorId: ann, queueId: w.queueId, kind: 'revise', label: 'INCORRECT', rationale: 'with the others', createdAt: later },
    });
    await d.consensus.create({ data: { fixId: w.fixIds[0], label: 'INCORRECT', automatic: true, note: 'Unanimous: 3 labels', settledAt: later } });

    const r = await call(w, 'manager', 'grading/queues/[id]/agreement/route.ts', 'GET', { params: q(w) });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const a = r.json as {
      rated: number;
      percentAgreement: number;
      graders: Array<{ name: string; settled: number; agreeing: number }>;
      pairs: Array<{ a: { name: string }; b: { name: string }; shared: number; agreement: number }>;
    };
    // item 1 (two of three labels, still open to revision) is not among the figures
    assert.equal(a.rated, 1);
    // Ann's label as given when the fix was complete: CORRECT, against two INCORRECT
    assert.equal(a.percentAgreement, 1 / 3);
    const annRow = a.graders.find((g) => g.name === NAMES.ann)!;
    assert.deepEqual([annRow.settled, annRow.agreeing], [1, 0]);
    const annBob = a.pairs.find((p) => [p.a.name, p.b.name].sort().join() === [NAMES.ann, NAMES.bob].join())!;
    assert.deepEqual([annBob.shared, annBob.agreement], [1, 0]);
  });
});
