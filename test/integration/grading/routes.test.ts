import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { NextRequest } from 'next/server';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { EXPORT_COLUMNS } from '../../../lib/grading/export';
import { createFix, createRepo, createUser } from './helpers';

// The grading API as callers see it. Blindness, proven per route: until an
// item is settled (or its lead reads the disputed list), no grading route
// shows a grader anyone else's label, rationale, the consensus, or the
// reviewers' decision — their own label lifts nothing. Once the item has all
// its labels, or they have seen the others, their label is final; a change of
// mind is a dispute. (blindness.test.ts compares whole answers across worlds
// whose labels differ.)
// The route files are found at test time: a new grading route without a
// blindness check fails here.

type Handler = Parameters<typeof callRoute>[0]['handler'];
const ROUTES_DIR = path.resolve('app/api/grading');
const routeFiles = fs
  .readdirSync(ROUTES_DIR, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name === 'route.ts')
  .map((e) => path.relative(path.resolve('app/api/grading'), path.join(e.parentPath, e.name)).split(path.sep).join('/'))
  .sort();
const modules = new Map<string, Record<string, Handler>>();
for (const f of routeFiles) modules.set(f, (await import(pathToFileURL(path.join(ROUTES_DIR, f)).href)) as Record<string, Handler>);
const handler = (file: string, method: string): Handler => {
  const h = modules.get(file)?.[method];
  assert.ok(h, `${method} ${file} exists`);
  return h;
};

const SECRET_RATIONALE = 'SECRET-RATIONALE-of-another-grader';
const SECRET_DECISION = 'SECRET-DECISION-of-a-reviewer';
const LABEL_WORDS = ['CORRECT', 'OVERFITTING', 'INCORRECT', 'IRRELEVANT'];

describe('grading routes', () => {
  let db: TestDb;
  const cookies: Record<string, string> = {};
  let queueId = '';
  let items: Array<{ id: string; fixId: string }> = [];

  before(async () => {
    db = await createTestDb();
    const d = db.db;
    const people = {
      manager: await createUser(d, 'Mona Manager', ['MANAGER']),
      ann: await createUser(d, 'Ann Grader'),
      bob: await createUser(d, 'Bob Grader'),
      cy: await createUser(d, 'Cy Grader'),
      outsider: await createUser(d, 'Otto Outsider'),
      reviewer: await createUser(d, 'Rita Reviewer', ['REVIEWER']),
    };
    for (const [k, u] of Object.entries(people)) cookies[k] = await sessionCookie(u);
    const repo = await createRepo(d);
    for (let i = 0; i < 3; i++) {
      const fix = await createFix(d, { repositoryId: repo.id, status: 'REJECTED' });
      await d.decision.create({ data: { fixId: fix.id, userId: people.reviewer.id, kind: 'REJECT', reason: 'OTHER', reasonText: SECRET_DECISION } });
    }
    const created = await callRoute({
      handler: handler('queues/route.ts', 'POST'),
      url: '/api/grading/queues',
      method: 'POST',
      cookie: cookies.manager,
      body: { name: 'Blind test', graderIds: [people.ann.id, people.bob.id, people.cy.id], leadGraderId: people.cy.id, filter: { repositoryIds: [repo.id] } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    queueId = (created.json as { id: string }).id;
    items = await d.gradingItem.findMany({ where: { queueId }, orderBy: { position: 'asc' }, select: { id: true, fixId: true } });
    // Bob and Cy label every item before Ann starts; Cy's second is different
    for (const [who, label] of [
      ['bob', 'OVERFITTING'],
      ['cy', 'INCORRECT'],
    ] as const) {
      for (const item of items) {
        const r = await callRoute({
          handler: handler('queues/[id]/items/[itemId]/grade/route.ts', 'POST'),
          url: `/api/grading/queues/${queueId}/items/${item.id}/grade`,
          method: 'POST',
          cookie: cookies[who],
          params: { id: queueId, itemId: item.id },
          body: { label, rationale: `${SECRET_RATIONALE} (${who})`, tags: ['partial'] },
        });
        assert.equal(r.status, 200, JSON.stringify(r.json));
      }
    }
  });
  after(() => db.drop());

  const call = (file: string, method: string, who: string, extra: { params?: Record<string, string>; body?: unknown; url?: string } = {}) =>
    callRoute({
      handler: handler(file, method),
      url: extra.url ?? `/api/grading/${file}`,
      method,
      cookie: cookies[who],
      params: extra.params ?? {},
      body: extra.body,
    });

  async function exportCsv(): Promise<{ text: string; headers: Headers }> {
    const res = await handler('queues/[id]/export/route.ts', 'GET')(
      new NextRequest(`http://localhost:3000/api/grading/queues/${queueId}/export?format=csv`, { headers: { cookie: cookies.manager } }),
      { params: Promise.resolve({ id: queueId }) },
    );
    assert.equal(res.status, 200);
    return { text: await res.text(), headers: res.headers };
  }

  /** Blind except for the grader's own label (`mine`), which may be set. */
  function assertBlindToOthers(what: string, body: unknown) {
    const view = body as { mine: unknown; others: unknown; consensus: unknown; decision: unknown; revealed: unknown };
    assert.equal(view.others, null, `${what}: others`);
    assert.equal(view.consensus, null, `${what}: consensus`);
    assert.equal(view.decision, null, `${what}: decision`);
    assert.equal(view.revealed, null, `${what}: revealed`);
    assertBlind(what, { ...view, mine: null });
  }

  function assertBlind(what: string, body: unknown) {
    const text = JSON.stringify(body);
    assert.ok(!text.includes('SECRET-RATIONALE'), `${what}: shows another grader's rationale`);
    assert.ok(!text.includes('SECRET-DECISION'), `${what}: shows the reviewers' decision`);
    for (const word of LABEL_WORDS) assert.ok(!text.includes(word), `${what}: shows a label (${word})`);
    assert.ok(!/"REJECT"|"reason":"OTHER"/.test(text), `${what}: shows the reviewers' decision`);
  }

  test('blind: every grading route, called by a grader who has not labelled yet, shows nothing of anyone else’s judgement', async () => {
    const p = { id: queueId };
    const ip = { id: queueId, itemId: items[0].id };
    const calls: Record<string, Array<() => ReturnType<typeof call>>> = {
      'queues/route.ts': [() => call('queues/route.ts', 'GET', 'ann'), () => call('queues/route.ts', 'POST', 'ann', { body: {} })],
      'queues/[id]/route.ts': [
        () => call('queues/[id]/route.ts', 'GET', 'ann', { params: p }),
        () => call('queues/[id]/route.ts', 'PATCH', 'ann', { params: p, body: { status: 'CLOSED' } }),
      ],
      'queues/[id]/next/route.ts': [() => call('queues/[id]/next/route.ts', 'POST', 'ann', { params: p })],
      'queues/[id]/items/[itemId]/route.ts': [() => call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: ip })],
      'queues/[id]/items/[itemId]/files/route.ts': [() => call('queues/[id]/items/[itemId]/files/route.ts', 'GET', 'ann', { params: ip })],
      'queues/[id]/items/[itemId]/skip/route.ts': [
        () => call('queues/[id]/items/[itemId]/skip/route.ts', 'POST', 'ann', { params: { id: queueId, itemId: items[2].id }, body: { reason: 'later' } }),
      ],
      'queues/[id]/mine/route.ts': [() => call('queues/[id]/mine/route.ts', 'GET', 'ann', { params: p })],
      'queues/[id]/items/[itemId]/dispute/route.ts': [
        () => call('queues/[id]/items/[itemId]/dispute/route.ts', 'POST', 'ann', { params: ip, body: { label: 'CORRECT', note: 'n' } }),
      ],
      'queues/[id]/items/[itemId]/settle/route.ts': [
        () => call('queues/[id]/items/[itemId]/settle/route.ts', 'POST', 'ann', { params: ip, body: { label: 'CORRECT', note: 'n' } }),
      ],
      'queues/[id]/items/[itemId]/grade/route.ts': [
        () => call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'ann', { params: ip, body: { label: 'nonsense' } }),
      ],
      'queues/[id]/disputed/route.ts': [() => call('queues/[id]/disputed/route.ts', 'GET', 'ann', { params: p })],
      'queues/[id]/agreement/route.ts': [() => call('queues/[id]/agreement/route.ts', 'GET', 'ann', { params: p })],
      'queues/[id]/export/route.ts': [
        () => call('queues/[id]/export/route.ts', 'GET', 'ann', { params: p, url: `/api/grading/queues/${queueId}/export?format=json` }),
      ],
      'precision/route.ts': [() => call('precision/route.ts', 'GET', 'ann')],
      'options/route.ts': [() => call('options/route.ts', 'GET', 'ann')],
    };
    assert.deepEqual(Object.keys(calls).sort(), routeFiles, 'every grading route has a blindness check here');
    const statuses: Record<string, number[]> = {};
    for (const [file, list] of Object.entries(calls)) {
      for (const c of list) {
        const r = await c();
        assert.notEqual(r.status, 500, `${file}: ${JSON.stringify(r.json)}`);
        (statuses[file] ??= []).push(r.status);
        assertBlind(file, r.json);
      }
    }
    // and the ones a grader may use answered with content, not only refusals
    assert.equal(statuses['queues/[id]/next/route.ts'][0], 200);
    assert.equal(statuses['queues/[id]/items/[itemId]/route.ts'][0], 200);
    assert.equal(statuses['queues/[id]/items/[itemId]/grade/route.ts'][0], 422);
    // the fix's files (code only) for the diff viewer, which the fix routes no longer serve a grader
    assert.equal(statuses['queues/[id]/items/[itemId]/files/route.ts'][0], 200);
    assert.equal(statuses['queues/[id]/disputed/route.ts'][0], 403);
    assert.equal(statuses['queues/[id]/export/route.ts'][0], 403);
    assert.equal(statuses['queues/[id]/mine/route.ts'][0], 200, 'her own skip, nothing else');
    assert.equal(statuses['queues/[id]/items/[itemId]/dispute/route.ts'][0], 409, 'nothing of hers to dispute');

    // her own label lifts nothing: the item is unsettled, so still blind — on
    // the item route, on "next" and in her list of labels
    const graded = await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'ann', { params: ip, body: { label: 'incorrect', rationale: 'mine' } });
    assert.equal(graded.status, 200, JSON.stringify(graded.json));
    const view = await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: ip });
    assert.equal(view.status, 200);
    assert.equal((view.json as { mine: { label: string } }).mine.label, 'INCORRECT');
    assertBlindToOthers('the unsettled item after her own label', view.json);
    const mine = await call('queues/[id]/mine/route.ts', 'GET', 'ann', { params: p });
    assertBlind('her list of labels', { items: (mine.json as { items: Array<Record<string, unknown>> }).items.map((i) => ({ ...i, label: null })) });
    // hers was the last label the item needed: final now, settled or not, and still blind
    assert.equal((view.json as { labelsComplete: boolean }).labelsComplete, true);
    const revised = await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'ann', {
      params: ip,
      body: { label: 'incorrect', rationale: 'mine, on reflection' },
    });
    assert.equal(revised.status, 409);
    assert.match((revised.json as { error: { message: string } }).error.message, /^Your label on this fix is final: the fix has all the labels it needs/);
    assertBlindToOthers('after a refused revision', (await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: ip })).json);
  });

  test('no back door: outside grading, every route a grader who holds no other role can call shows no decision or label', async () => {
    // every route file of the app, called by Ann (grader only, not labelled
    // yet) with the real ids of a graded, rejected fix: a route must refuse
    // her (401/403) or answer without anyone's judgement
    const fix = await db.db.fix.findUniqueOrThrow({ where: { id: items[1].fixId }, select: { id: true, changeId: true, runId: true } });
    const idFor: Record<string, string> = { changes: fix.changeId, fixes: fix.id, runs: fix.runId };
    const appApi = path.resolve('app/api');
    const files = fs
      .readdirSync(appApi, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name === 'route.ts')
      .map((e) => path.relative(appApi, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .filter((f) => !f.startsWith('grading/') && f !== 'auth/[...nextauth]/route.ts');
    assert.ok(files.includes('fixes/[id]/route.ts') && files.includes('changes/[id]/route.ts'), files.join(', '));
    const refusedOnes: string[] = [];
    for (const file of files) {
      const mod = (await import(pathToFileURL(path.join(appApi, file)).href)) as Record<string, Handler>;
      const top = file.split('/')[0];
      const params: Record<string, string> = {};
      const url =
        '/api/' +
        file
          .replace(/\/route\.ts$/, '')
          .replace(/\[(\.\.\.)?(\w+)\]/g, (_, _dots, name: string) => (params[name] = name === 'id' ? (idFor[top] ?? 'nonexistent') : 'nonexistent'));
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (typeof mod[method] !== 'function') continue;
        const r = await callRoute({
          handler: mod[method],
          url,
          method,
          cookie: cookies.ann,
          params,
          body: method === 'GET' || method === 'DELETE' ? undefined : {},
        });
        assert.notEqual(r.status, 500, `${method} ${url}: ${JSON.stringify(r.json)}`);
        if (r.status === 401 || r.status === 403) refusedOnes.push(`${method} ${file}`);
        else assertBlind(`${method} ${url} (${r.status})`, r.json);
      }
    }
    // the routes that show a fix, its change or its run are the ones refused
    for (const route of [
      'GET fixes/[id]/route.ts',
      'GET fixes/[id]/files/route.ts',
      'GET fixes/[id]/patch/route.ts',
      'POST fixes/[id]/preview/route.ts',
      'GET changes/route.ts',
      'GET changes/[id]/route.ts',
      'GET review-queue/route.ts',
      'GET runs/route.ts',
      'GET runs/[id]/route.ts',
      'GET runs/[id]/events/route.ts',
    ]) {
      assert.ok(refusedOnes.includes(route), `${route} refuses a grader who holds no other role`);
    }
    // the same routes do show the decision to a reviewer (so the check above can fail)
    const asReviewer = await callRoute({
      handler: ((await import(pathToFileURL(path.join(appApi, 'changes/[id]/route.ts')).href)) as Record<string, Handler>).GET,
      url: `/api/changes/${fix.changeId}`,
      cookie: cookies.reviewer,
      params: { id: fix.changeId },
    });
    assert.equal(asReviewer.status, 200);
    assert.ok(JSON.stringify(asReviewer.json).includes(SECRET_DECISION), 'a reviewer sees the decision on the change');
  });

  test('a grader who labelled stays blind on the next item too', async () => {
    const other = await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: { id: queueId, itemId: items[1].id } });
    assertBlind('the next item', other.json);
  });

  test('a queue that shows decisions shows them before the label, and nothing else', async () => {
    await db.db.gradingQueue.update({ where: { id: queueId }, data: { showDecisions: true } });
    const view = await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: { id: queueId, itemId: items[1].id } });
    const text = JSON.stringify(view.json);
    assert.ok(text.includes(SECRET_DECISION));
    assert.ok(!text.includes(SECRET_RATIONALE));
    assert.equal((view.json as { others: unknown }).others, null);
    await db.db.gradingQueue.update({ where: { id: queueId }, data: { showDecisions: false } });
  });

  test('a grader not seated in the queue gets 403 on it; an unknown queue is 404', async () => {
    const p = { id: queueId };
    assert.equal((await call('queues/[id]/route.ts', 'GET', 'outsider', { params: p })).status, 403);
    assert.equal((await call('queues/[id]/next/route.ts', 'POST', 'outsider', { params: p })).status, 403);
    assert.equal((await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'outsider', { params: { id: queueId, itemId: items[0].id } })).status, 403);
    assert.equal((await call('queues/[id]/items/[itemId]/files/route.ts', 'GET', 'outsider', { params: { id: queueId, itemId: items[0].id } })).status, 403);
    assert.equal(
      (
        await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'outsider', {
          params: { id: queueId, itemId: items[0].id },
          body: { label: 'CORRECT' },
        })
      ).status,
      403,
    );
    const list = await call('queues/route.ts', 'GET', 'outsider');
    assert.deepEqual((list.json as { queues: unknown[] }).queues, []);
    assert.equal((await call('queues/[id]/route.ts', 'GET', 'ann', { params: { id: 'nope' } })).status, 404);
  });

  test('a label outside the four is 422 with a clear message', async () => {
    const r = await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'ann', {
      params: { id: queueId, itemId: items[1].id },
      body: { label: 'meh', rationale: 'x' },
    });
    assert.equal(r.status, 422);
    assert.match(JSON.stringify(r.json), /is not a label: use one of correct, overfitting, incorrect, irrelevant/);
  });

  test('HTML in a rationale is kept as text: JSON and CSV carry it verbatim, never as markup', async () => {
    const html = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const ip = { id: queueId, itemId: items[1].id };
    const r = await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'ann', { params: ip, body: { label: 'IRRELEVANT', rationale: html } });
    assert.equal(r.status, 200);
    const view = await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: ip });
    assert.equal(view.headers.get('content-type'), 'application/json');
    assert.equal((view.json as { mine: { rationale: string } }).mine.rationale, html);
    const csv = await exportCsv();
    assert.ok(csv.text.includes(html.replace(/"/g, '""')), 'the rationale is in the CSV as text');
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(csv.headers.get('x-content-type-options'), 'nosniff');
  });

  test('disputes: the lead grader sees labels side by side and settles; graders cannot', async () => {
    const disputed = await call('queues/[id]/disputed/route.ts', 'GET', 'cy', { params: { id: queueId } });
    assert.equal(disputed.status, 200);
    const list = (disputed.json as { items: Array<{ itemId: string; labels: Array<{ label: string; rationale: string }> }> }).items;
    assert.ok(list.some((i) => i.itemId === items[0].id && i.labels.length === 3));
    const ip = { id: queueId, itemId: items[0].id };
    assert.equal(
      (await call('queues/[id]/items/[itemId]/settle/route.ts', 'POST', 'bob', { params: ip, body: { label: 'INCORRECT', note: 'n' } })).status,
      403,
    );
    const settled = await call('queues/[id]/items/[itemId]/settle/route.ts', 'POST', 'cy', {
      params: ip,
      body: { label: 'incorrect', note: 'Two of three, and the test was edited' },
    });
    assert.equal(settled.status, 200, JSON.stringify(settled.json));
    const again = await call('queues/[id]/items/[itemId]/settle/route.ts', 'POST', 'manager', { params: ip, body: { label: 'CORRECT', note: 'n' } });
    assert.equal(again.status, 409);
    const revise = await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'ann', { params: ip, body: { label: 'CORRECT' } });
    assert.equal(revise.status, 409, 'a later grade never changes a settled label');
    assert.match(
      (revise.json as { error: { message: string } }).error.message,
      /^Your label on this fix is final: .*To change your mind, dispute it with a note/,
    );
    // settled: now Ann sees the other labels and the decision (so the blindness checks can fail)
    const view = await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: ip });
    const text = JSON.stringify(view.json);
    assert.ok(text.includes(SECRET_RATIONALE));
    assert.ok(text.includes(SECRET_DECISION), 'decisions show once settled');
    assert.equal((view.json as { revealed: { via: string } }).revealed.via, 'settled');
    // items[1] has all its labels (and the lead saw them in the disputed list): her label there is final, settled or not
    const leadRevise = await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'cy', {
      params: { id: queueId, itemId: items[1].id },
      body: { label: 'CORRECT' },
    });
    assert.equal(leadRevise.status, 409);
    assert.match((leadRevise.json as { error: { message: string } }).error.message, /^Your label on this fix is final/);
    assert.equal(
      (
        await db.db.grade.findUniqueOrThrow({
          where: { fixId_graderId: { fixId: items[1].fixId, graderId: (await db.db.user.findFirstOrThrow({ where: { name: 'Cy Grader' } })).id } },
        })
      ).label,
      'INCORRECT',
    );
    const consensus = await db.db.consensus.findUniqueOrThrow({ where: { fixId: items[0].fixId } });
    assert.equal(consensus.label, 'INCORRECT');
    assert.equal(consensus.automatic, false);
    const options = await call('options/route.ts', 'GET', 'manager');
    const seatable = (options.json as { graders: Array<{ name: string; roles: string[] }> }).graders;
    assert.deepEqual(
      seatable.map((g) => g.name),
      ['Ann Grader', 'Bob Grader', 'Cy Grader', 'Mona Manager', 'Otto Outsider'],
      'graders and managers, not reviewers',
    );
    const agreement = await call('queues/[id]/agreement/route.ts', 'GET', 'manager', { params: { id: queueId } });
    assert.equal(agreement.status, 200);
    const precision = await call('precision/route.ts', 'GET', 'manager', { url: '/api/grading/precision?groupBy=repository' });
    assert.equal(precision.status, 200);
    assert.equal((precision.json as { overall: { settled: number } }).overall.settled, 1);
    assert.equal((precision.json as { reviewers: { rejectedSettled: number } }).reviewers.rejectedSettled, 1);
  });

  test('export round trip: the CSV has the documented columns and says what the JSON says', async () => {
    const json = await callRoute({
      handler: handler('queues/[id]/export/route.ts', 'GET'),
      url: `/api/grading/queues/${queueId}/export?format=json`,
      cookie: cookies.manager,
      params: { id: queueId },
    });
    const csv = await exportCsv();
    assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="flowfix-grading-.*\.csv"/);
    const data = json.json as {
      items: Array<{
        fixId: string;
        labels: Array<{ graderName: string; label: string; rationale: string; tags: string[] }>;
        consensus: { label: string } | null;
      }>;
    };
    const rows = parseCsv(csv.text);
    const [header, ...body] = rows;
    assert.deepEqual(header, [...EXPORT_COLUMNS] as string[]);
    const col = (name: string) => (header as string[]).indexOf(name);
    const flat = data.items.flatMap((i) =>
      i.labels.length === 0
        ? [[i.fixId, '', '', '', '', i.consensus?.label ?? '']]
        : i.labels.map((l) => [i.fixId, l.graderName, l.label, l.tags.join(';'), l.rationale, i.consensus?.label ?? '']),
    );
    const fromCsv = body.map((r) => [
      r[col('fix_id')],
      r[col('grader_name')],
      r[col('label')],
      r[col('tags')],
      r[col('rationale')].replace(/^'/, ''),
      r[col('consensus_label')],
    ]);
    assert.deepEqual(fromCsv, flat);
    assert.equal(body.length, 3 * 2 + 2, 'three items: bob and cy on each, ann on two');
    // columns are only ever added at the end
    assert.deepEqual(header.slice(0, 18), [
      'queue_id',
      'queue_name',
      'item_position',
      'fix_id',
      'repository',
      'change_external_id',
      'change_title',
      'grader_id',
      'grader_name',
      'label',
      'tags',
      'rationale',
      'labelled_at',
      'consensus_label',
      'consensus_automatic',
      'consensus_note',
      'consensus_settled_by',
      'consensus_settled_at',
    ]);
    // the same item numbers in both, from 1
    const full = json.json as {
      items: Array<{
        position: number;
        fixId: string;
        policy: string;
        model: string | null;
        skips: Array<{ graderName: string; reason: string }>;
        decision: { kind: string; reason: string; reasonText: string } | null;
        labels: Array<{ graderName: string; revealedAt: string | null; history: Array<{ kind: string; label: string; rationale: string }> }>;
        consensus: { settledBy: string | null } | null;
      }>;
    };
    assert.deepEqual(
      full.items.map((i) => i.position),
      [1, 2, 3],
    );
    assert.deepEqual([...new Set(body.map((r) => r[col('item_position')]))], ['1', '2', '3']);
    const row = (fixId: string, grader: string) => body.find((r) => r[col('fix_id')] === fixId && r[col('grader_name')] === grader)!;
    // skips and their reasons, on every row of the item
    assert.deepEqual(
      full.items[2].skips.map((k) => [k.graderName, k.reason]),
      [['Ann Grader', 'later']],
    );
    assert.deepEqual(
      JSON.parse(row(items[2].fixId, 'Bob Grader')[col('skips')]).map((k: { graderName: string; reason: string }) => [k.graderName, k.reason]),
      [['Ann Grader', 'later']],
    );
    // the reviewer's decision, the run's policy and model
    assert.deepEqual(full.items[0].decision && [full.items[0].decision.kind, full.items[0].decision.reason, full.items[0].decision.reasonText], [
      'REJECT',
      'OTHER',
      SECRET_DECISION,
    ]);
    const annFirst = row(items[0].fixId, 'Ann Grader');
    assert.deepEqual(
      [annFirst[col('review_decision')], annFirst[col('review_reason')], annFirst[col('review_reason_text')], annFirst[col('policy')], annFirst[col('model')]],
      ['REJECT', 'OTHER', SECRET_DECISION, 'offline', ''],
    );
    // the history: Ann's label on the first item (her revision after it was complete was refused)
    const history = JSON.parse(annFirst[col('label_history')]) as Array<{ kind: string; label: string; rationale: string }>;
    assert.deepEqual(
      history.map((h) => [h.kind, h.label, h.rationale]),
      [['label', 'INCORRECT', 'mine']],
    );
    assert.deepEqual(
      full.items[0].labels.find((l) => l.graderName === 'Ann Grader')!.history.map((h) => h.kind),
      ['label'],
    );
    // settled: Ann's label was revealed (locked) then; still blind on the third item
    assert.ok(annFirst[col('revealed_at')]);
    assert.equal(row(items[2].fixId, 'Bob Grader')[col('revealed_at')], '');
    assert.equal(full.items[0].consensus?.settledBy, 'Cy Grader', 'a person settled the dispute');
  });

  test('a dispute after the reveal: the label stays as first given, the item returns to the disputed list, the agreement figures do not move', async () => {
    const ip = { id: queueId, itemId: items[0].id };
    const ann = await db.db.user.findFirstOrThrow({ where: { name: 'Ann Grader' } });
    const agreement = async () => {
      const r = await call('queues/[id]/agreement/route.ts', 'GET', 'manager', { params: { id: queueId } });
      assert.equal(r.status, 200);
      const a = r.json as {
        percentAgreement: number;
        fleissKappa: number;
        krippendorffAlpha: number;
        pairs: Array<{ a: { name: string }; b: { name: string }; confusion: number[][] }>;
      };
      return { percent: a.percentAgreement, fleiss: a.fleissKappa, alpha: a.krippendorffAlpha, pairs: a.pairs.map((p) => [p.a.name, p.b.name, p.confusion]) };
    };
    const before = await agreement();
    // no dispute without a note; Bob, still blind on the third item, revises instead of disputing
    assert.equal((await call('queues/[id]/items/[itemId]/dispute/route.ts', 'POST', 'ann', { params: ip, body: { label: 'CORRECT', note: ' ' } })).status, 422);
    const blindDispute = await call('queues/[id]/items/[itemId]/dispute/route.ts', 'POST', 'bob', {
      params: { id: queueId, itemId: items[2].id },
      body: { label: 'CORRECT', note: 'n' },
    });
    assert.equal(blindDispute.status, 409);
    assert.match((blindDispute.json as { error: { message: string } }).error.message, /not locked .*revise it directly/);

    const disputed = await call('queues/[id]/items/[itemId]/dispute/route.ts', 'POST', 'ann', {
      params: ip,
      body: { label: 'correct', note: 'The edited test was the documented behaviour' },
    });
    assert.equal(disputed.status, 200, JSON.stringify(disputed.json));
    assert.deepEqual(disputed.json, { reopened: true });
    assert.equal(await db.db.consensus.count({ where: { fixId: items[0].fixId } }), 0, 'reopened');
    assert.equal(
      (await db.db.grade.findUniqueOrThrow({ where: { fixId_graderId: { fixId: items[0].fixId, graderId: ann.id } } })).label,
      'INCORRECT',
      'the label as first given',
    );
    // reopened, but what Ann saw stays seen: still not blind, still locked
    const view = await call('queues/[id]/items/[itemId]/route.ts', 'GET', 'ann', { params: ip });
    assert.ok(JSON.stringify(view.json).includes(SECRET_RATIONALE));
    assert.deepEqual(
      (view.json as { disputes: Array<{ label: string; note: string }> }).disputes.map((d) => [d.label, d.note]),
      [['CORRECT', 'The edited test was the documented behaviour']],
    );
    assert.equal((await call('queues/[id]/items/[itemId]/grade/route.ts', 'POST', 'ann', { params: ip, body: { label: 'CORRECT' } })).status, 409);
    // the lead sees it again, with the dispute, and settles it again
    const list = await call('queues/[id]/disputed/route.ts', 'GET', 'cy', { params: { id: queueId } });
    const again = (list.json as { items: Array<{ itemId: string; disputes: Array<{ grader: string; label: string; note: string }> }> }).items.find(
      (i) => i.itemId === items[0].id,
    );
    assert.deepEqual(
      again?.disputes.map((d) => [d.grader, d.label, d.note]),
      [['Ann Grader', 'CORRECT', 'The edited test was the documented behaviour']],
    );
    assert.equal(
      (await call('queues/[id]/items/[itemId]/settle/route.ts', 'POST', 'cy', { params: ip, body: { label: 'CORRECT', note: 'Ann’s dispute holds' } })).status,
      200,
    );
    // the agreement figures still measure the labels as first given
    const after = await agreement();
    assert.deepEqual(after, before);
    const annBob = after.pairs.find(([a, b]) => [a, b].sort().join() === 'Ann Grader,Bob Grader')!;
    const [i, j] = annBob[0] === 'Ann Grader' ? [2, 1] : [1, 2];
    assert.equal((annBob[2] as number[][])[i][j], 1, 'Ann INCORRECT against Bob OVERFITTING on the first item');
    // every step kept, and in the audit log
    const events = await db.db.gradeEvent.findMany({ where: { fixId: items[0].fixId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    assert.deepEqual(
      events.filter((e) => e.actorId === ann.id).map((e) => [e.kind, e.label]),
      [
        ['label', 'INCORRECT'],
        ['dispute', 'CORRECT'],
      ],
    );
    assert.deepEqual(
      events.filter((e) => e.kind === 'settle').map((e) => e.label),
      ['INCORRECT', 'CORRECT'],
    );
    const audit = await db.db.auditLog.findMany({ where: { actorId: ann.id, action: { startsWith: 'grading.' } }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      audit.map((a) => a.action),
      ['grading.skip', 'grading.label', 'grading.label', 'grading.dispute'],
    );
  });
});

/** RFC 4180 reader for the round trip. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}
