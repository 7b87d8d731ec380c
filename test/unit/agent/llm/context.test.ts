// Context budgeting on a real workspace: a large file reaches the model as
// spans around its suspects, never whole, and the conversation is shortened
// to fit the model's window.
import { describe, test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { contextBudget, estimateMessagesTokens, fitHistory, suspectSpans } from '@/agent/llm/context';
import { estimateTokens } from '@/agent/llm/dialects';
import { createFence } from '@/agent/llm/fence';
import { firstUserMessage } from '@/agent/llm/prompts';
import type { Suspect } from '@/agent/types';
import { arraySink, BUGGY_CART, CART_TEST, createTempRepo, policyContext, type TempRepo } from './temp-repo';

// 4,000 lines: filler functions, a short suspect at 2,001 and a 300-line one at 101
function bigFile(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 4000; i++) lines.push(`const filler${i} = ${i}; // line ${i}`);
  lines[100] = 'export function longOne(xs) {';
  for (let i = 102; i <= 399; i++) lines[i - 1] = `  xs.push(${i}); // body line ${i}`;
  lines[249] = '  xs.push(-1); // line 250 THE EDITED LINE';
  lines[399] = '}';
  lines[2000] = 'export function target(a, b) {';
  lines[2001] = '  return a - b; // line 2002 THE BUG';
  lines[2002] = '}';
  return `${lines.join('\n')}\n`;
}

const suspects: Suspect[] = [
  { file: 'src/big.js', symbol: 'target', kind: 'function', startLine: 2001, endLine: 2003, score: 0.9, reasons: ['stack frame'] },
  { file: 'src/big.js', symbol: 'longOne', kind: 'function', startLine: 101, endLine: 400, score: 0.5, reasons: ['edited by the change'] },
];

let repo: TempRepo;
before(async () => {
  repo = await createTempRepo({ 'src/cart.js': BUGGY_CART, 'test/cart.test.js': CART_TEST, 'package.json': '{"type":"module"}\n', 'src/big.js': bigFile() });
});
after(async () => repo?.cleanup());

function ctxWith() {
  const ctx = policyContext({ repo, sink: arraySink() });
  return {
    ...ctx,
    suspects,
    change: { ...ctx.change, editedSpans: [{ file: 'src/big.js', startLine: 250, endLine: 250 }] },
    evidence: { ...ctx.evidence, frames: [{ file: 'src/big.js', line: 2002, fn: 'target' }] },
  };
}

describe('context budget', () => {
  test('a large file is cut to spans: the suspect with a few lines around it, windows inside a long function, nothing else', async () => {
    const ctx = ctxWith();
    const message = await firstUserMessage({ ctx, fence: createFence('n0nce'), budgetTokens: 4000 });
    // the short suspect, with 3 lines of context either side
    for (const l of [1998, 2001, 2002, 2003, 2006]) assert.match(message, new RegExp(`^${l}│ `, 'm'), `line ${l} is shown`);
    assert.doesNotMatch(message, /^2008│ /m);
    // the long suspect: its head, the window around the edited line, its end; the middle elided with a marker
    for (const l of [98, 101, 250, 244, 256, 400]) assert.match(message, new RegExp(`^\\s*${l}│ `, 'm'), `line ${l} is shown`);
    for (const l of [150, 300, 1000, 3000]) assert.doesNotMatch(message, new RegExp(`^\\s*${l}│ `, 'm'), `line ${l} is not shown`);
    assert.match(message, /⋮ lines \d+-\d+ not shown \(read_file for them\)/);
    assert.ok(estimateTokens(message) <= 4000, `${estimateTokens(message)} tokens`);
    // the file alone is more than 8 times the whole budget
    assert.ok(estimateTokens(bigFile()) > 8 * 4000);
  });

  test('a tight budget shows the best suspect and names the rest for the model to read', async () => {
    const ctx = ctxWith();
    const { spans, omitted } = await suspectSpans({ suspects, change: ctx.change, evidence: ctx.evidence, workspace: repo.workspace, budgetTokens: 150 });
    assert.deepEqual(
      spans.map((s) => s.symbols),
      [['target']],
    );
    assert.deepEqual(
      omitted.map((s) => s.symbol),
      ['longOne'],
    );
    const fixed = { ctx, fence: createFence('n0nce'), maxDiffChars: 12_000, maxLogChars: 4_000, protocol: 'text' as const };
    const bare = await firstUserMessage({ ...fixed, budgetTokens: 0 });
    assert.match(bare, /Not shown, to fit the model's context \(READ them\): src\/big\.js:2001-2003, src\/big\.js:101-400\./);
    const message = await firstUserMessage({ ...fixed, budgetTokens: estimateTokens(bare) + 350 });
    assert.match(message, /^2002│ /m);
    assert.match(message, /Not shown, to fit the model's context \(READ them\): src\/big\.js:101-400\./);
  });

  test('the budget follows the model setting: a small window leaves room for the answer', () => {
    const small = contextBudget({ contextTokens: 4096 });
    assert.equal(small.outputTokens, 512);
    assert.ok(small.promptTokens + small.outputTokens <= 4096);
    assert.ok(small.firstMessageTokens < small.promptTokens / 2);
    assert.equal(small.observationChars, 1548);
    const big = contextBudget({ contextTokens: 128_000, maxOutputTokens: 4000 });
    assert.equal(big.outputTokens, 4000);
    assert.equal(big.observationChars, 12_000);
  });

  test('the history is shortened, oldest observation first, until it fits', () => {
    const long = 'x'.repeat(4000);
    const messages = [
      { role: 'system' as const, content: 'sys' },
      { role: 'user' as const, content: 'task' },
      { role: 'user' as const, content: `old ${long}` },
      { role: 'user' as const, content: `middle ${long}` },
      { role: 'user' as const, content: `new ${long}` },
    ];
    const before = estimateMessagesTokens(messages);
    const { shortened, fits } = fitHistory({ messages, observationIndexes: [2, 3, 4], budgetTokens: 1500, keepLast: 8 });
    assert.ok(before > 3000);
    assert.equal(shortened, 2);
    assert.ok(fits);
    assert.match(messages[2]!.content, /^old x+\n\[… older observation shortened/);
    assert.equal(messages[4]!.content.length, 4004, 'the newest stays whole');
  });
});
