import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { checkRunEvent, readRunEvent, runEvent, RUN_EVENT_TYPES, type PublicRunEvent } from '@/common/run-events';
import { EVENT_VIEWS, EventItem } from '@/components/run/event-item';
import { RUN_EVENT_EXAMPLES } from '../../helpers/run-event-examples';

// The run page's half of the contract: every type has a view of its own, and
// what reaches the page (a stored row read back) renders under its type.

const render = (event: PublicRunEvent) => renderToStaticMarkup(createElement(EventItem, { event, searching: false }));
const stored = (seq: number, type: string, payload: Record<string, unknown>) => readRunEvent({ seq, type, at: '2026-06-01T12:00:00.000Z', payload });

test('every type of the contract is valid as written, reads back as itself, and renders its own view', () => {
  for (const [seq, type] of RUN_EVENT_TYPES.entries()) {
    const written = runEvent(type, RUN_EVENT_EXAMPLES[type]);
    assert.equal(checkRunEvent(written).ok, true, `the ${type} example is valid`);
    const event = stored(seq, type, written.payload);
    assert.equal(event.type, type);
    const html = render(event);
    assert.match(html, new RegExp(`data-type="${type}"`));
    assert.match(html, new RegExp(`class="run-event-type">${EVENT_VIEWS[type].label}<`));
    // a dedicated view, not the JSON fallback of a type the page does not know
    assert.doesNotMatch(html, /^[^]*<pre class="run-pre ">\{/, `${type} has its own rendering`);
  }
});

test('a gate verdict renders its verdict and the counts it carries reach the page typed', () => {
  const event = stored(1, 'gate', RUN_EVENT_EXAMPLES.gate);
  assert.equal(event.type, 'gate');
  if (event.type !== 'gate') return;
  assert.deepEqual(event.payload.counts, { run: 16, passed: 16, failed: 0, skipped: 0 });
  assert.match(render(event), /data-verdict="pass"[^]*REGRESSION gate/);
});

test('old or damaged payloads never break the page: bad fields are dropped, good ones kept', () => {
  // as the demo history wrote its final events, and a gate from before counts existed, with junk
  const final = stored(1, 'final', { status: 'FIXED', exitReason: 'fixed', history: true });
  assert.match(render(final), /fixed/);
  const gate = stored(2, 'gate', { gate: 'green', passed: 'yes', durationMs: 'slow', tests: [{ id: 'a::b', status: 'passed' }, 'junk', { id: 7 }] });
  assert.equal(gate.type, 'gate');
  if (gate.type !== 'gate') return;
  assert.equal(gate.payload.passed, undefined);
  assert.equal(gate.payload.durationMs, undefined);
  assert.deepEqual(gate.payload.tests, [{ id: 'a::b', status: 'passed' }]);
  assert.match(render(gate), /data-verdict="fail"[^]*a::b/);
  const notAnObject = stored(3, 'suspects', { suspects: 'none' });
  assert.match(render(notAnObject), /No suspects/);
});

test('a type the contract does not know is shown under its own name with its JSON, not dropped', () => {
  const event = stored(4, 'hint', { text: 'from a newer worker' });
  assert.equal(event.type, 'unknown');
  const html = render(event);
  assert.match(html, /data-type="hint"/);
  assert.match(html, /class="run-event-type">hint</);
  assert.match(html, /from a newer worker/);
});

test('writing refuses what the contract does not allow, naming the field', () => {
  const unknown = checkRunEvent({ type: 'hint', payload: {} });
  assert.equal(unknown.ok, false);
  assert.match(!unknown.ok ? unknown.message : '', /unknown run event type "hint"/);
  const bad = checkRunEvent({ type: 'gate', payload: { gate: 'green', passed: 'yes', durationMs: 1 } });
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.message : '', /^gate event: payload\.passed: /);
  // keys the contract does not name are allowed, and kept as written
  const extra = checkRunEvent({ type: 'log', payload: { text: 'x', attempt: 2 } });
  assert.deepEqual(extra.ok && extra.event.payload, { text: 'x', attempt: 2 });
});
