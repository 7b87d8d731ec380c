import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { looksLikeTextProtocol, looksLikeToolCallText, parseTextReply, planSearchReplace, MAX_BLOCK_CHARS } from '@/agent/llm/text-protocol';

const FILE = `export function shippingCents(subtotalCents: number, threshold = 5000): number {
  const free = subtotalCents > threshold;
  return free ? 0 : 499;
}

export function total(items: Item[], discountPercent = 0): number {
  const sub = applyDiscount(subtotal(items), discountPercent);
  return sub + shippingCents(sub);
}
`;

describe('text protocol: reading a reply', () => {
  test('a plain block, a fenced block with the path above the fence, and one with the path on the fence line', () => {
    const reply = [
      'The threshold check is off by one.',
      '',
      'src/cart.ts',
      '<<<<<<< SEARCH',
      '  const free = subtotalCents > threshold;',
      '=======',
      '  const free = subtotalCents >= threshold;',
      '>>>>>>> REPLACE',
      '',
      '**src/money.ts**',
      '```ts',
      '<<<<<<< SEARCH',
      '  return Math.round(value);',
      '=======',
      '  return Math.round(value + 0);',
      '>>>>>>> REPLACE',
      '```',
      '',
      '```typescript src/other.ts',
      '<<<<<<<  SEARCH',
      'a',
      '=========',
      'b',
      '>>>>>>>>> REPLACE',
      '```',
      'RUN_TESTS',
    ].join('\r\n');
    const { actions, problems } = parseTextReply(reply);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      actions.map((a) => (a.kind === 'edit' ? [a.path, a.search, a.replace] : [a.name])),
      [
        ['src/cart.ts', '  const free = subtotalCents > threshold;', '  const free = subtotalCents >= threshold;'],
        ['src/money.ts', '  return Math.round(value);', '  return Math.round(value + 0);'],
        ['src/other.ts', 'a', 'b'],
        ['run_tests'],
      ],
    );
  });

  test('commands outside fences become tool calls; inside a fence they are just code; FINISH takes the rest as its summary', () => {
    const reply = [
      'READ src/cart.ts 20-40',
      '- `READ src/money.ts:3-9`',
      'LIST src',
      'SEARCH_CODE shippingCents(',
      '```',
      'RUN_TESTS',
      '```',
      'Please READ the docs. (prose, not a command)',
      'LOG threshold',
      'BUILD',
      'FINISH: shippingCents compared with > instead of >=.',
      'Free shipping starts at the threshold again.',
    ].join('\n');
    const { actions, problems } = parseTextReply(reply);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      actions.map((a) => (a.kind === 'tool' ? [a.name, a.args] : ['edit'])),
      [
        ['read_file', { path: 'src/cart.ts', start_line: 20, end_line: 40 }],
        ['read_file', { path: 'src/money.ts', start_line: 3, end_line: 9 }],
        ['list_dir', { path: 'src' }],
        ['search_code', { query: 'shippingCents(' }],
        ['read_last_log', { grep: 'threshold' }],
        ['build', {}],
        ['finish', { summary: 'shippingCents compared with > instead of >=.\nFree shipping starts at the threshold again.' }],
      ],
    );
  });

  test('broken blocks are reported, never guessed, and do not swallow the next block', () => {
    const reply = [
      'src/a.ts',
      '<<<<<<< SEARCH',
      'one',
      '>>>>>>> REPLACE',
      '<<<<<<< SEARCH',
      'no path above this one? the previous marker line is not a path',
      '=======',
      'x',
      '>>>>>>> REPLACE',
      'src/b.ts',
      '<<<<<<< SEARCH',
      'two',
      '=======',
      'three',
      '>>>>>>> REPLACE',
      'src/c.ts',
      '<<<<<<< SEARCH',
      'never closed',
      '=======',
    ].join('\n');
    const { actions, problems } = parseTextReply(reply);
    assert.deepEqual(
      actions.map((a) => a.kind === 'edit' && a.path),
      ['src/b.ts'],
    );
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.match(problems[0]!, /block 1 for src\/a\.ts is not closed/);
    assert.match(problems[1]!, /block 2 has no file path/);
    assert.match(problems[2]!, /block 4 for src\/c\.ts is not closed/);
  });

  test('an oversized block is refused with a clear message', () => {
    const big = 'x'.repeat(MAX_BLOCK_CHARS + 1);
    const { actions, problems } = parseTextReply(`src/a.ts\n<<<<<<< SEARCH\n${big}\n=======\ny\n>>>>>>> REPLACE`);
    assert.equal(actions.length, 0);
    assert.match(problems[0]!, /larger than 200000 characters/);
  });

  test('empty command arguments are problems for the model', () => {
    const { actions, problems } = parseTextReply('SEARCH_CODE\nFINISH');
    assert.equal(actions.length, 0);
    assert.match(problems.join('\n'), /SEARCH_CODE needs the text/);
    assert.match(problems.join('\n'), /FINISH needs a short summary/);
  });

  test('what a reply looks like: blocks, or a tool call written as text', () => {
    assert.equal(looksLikeTextProtocol('src/a.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE'), true);
    assert.equal(looksLikeTextProtocol('I will call read_file next.'), false);
    assert.equal(looksLikeToolCallText('<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'), true);
    assert.equal(looksLikeToolCallText('{"name": "read_file", "arguments": {"path": "a"}}'), true);
    assert.equal(looksLikeToolCallText('The name field is read by the parser.'), false);
  });
});

describe('text protocol: matching SEARCH against the file', () => {
  test('an exact match is replaced; the old text is widened until it is unique in the file', () => {
    const plan = planSearchReplace({
      path: 'src/cart.ts',
      search: '  const free = subtotalCents > threshold;',
      replace: '  const free = subtotalCents >= threshold;',
      content: FILE,
    });
    assert.ok(plan.ok);
    assert.equal(plan.edit.kind, 'replace');
    if (plan.edit.kind !== 'replace') return;
    assert.equal(FILE.split(plan.edit.oldText).length - 1, 1);
    assert.equal(FILE.replace(plan.edit.oldText, plan.edit.newText), FILE.replace('> threshold', '>= threshold'));
    assert.equal(plan.note, undefined);

    // a line that also occurs inside a longer line elsewhere is widened by neighbours
    const content = 'const a = 1;\nconst a = 10;\nend\n';
    const widened = planSearchReplace({ path: 'x.ts', search: 'const a = 1;', replace: 'const a = 2;', content });
    assert.ok(widened.ok && widened.edit.kind === 'replace');
    if (widened.ok && widened.edit.kind === 'replace') {
      assert.equal(content.split(widened.edit.oldText).length - 1, 1);
      assert.equal(content.replace(widened.edit.oldText, widened.edit.newText), 'const a = 2;\nconst a = 10;\nend\n');
    }
  });

  test('indentation and trailing spaces that differ from the file still match (once), and REPLACE is re-indented', () => {
    const plan = planSearchReplace({
      path: 'src/cart.ts',
      search: 'const free = subtotalCents > threshold;   \nreturn free ? 0 : 499;',
      replace: 'const free = subtotalCents >= threshold;\nreturn free ? 0 : 499;',
      content: FILE,
    });
    assert.ok(plan.ok, plan.ok ? '' : plan.text);
    if (!plan.ok || plan.edit.kind !== 'replace') return;
    assert.equal(FILE.replace(plan.edit.oldText, plan.edit.newText), FILE.replace('> threshold', '>= threshold'));
    assert.match(plan.note ?? '', /ignoring indentation/);
  });

  test('zero matches and several matches are answers for the model, not edits', () => {
    const none = planSearchReplace({ path: 'src/cart.ts', search: 'const free = subtotal > limit;', replace: 'x', content: FILE });
    assert.equal(none.ok, false);
    assert.match(!none.ok ? none.text : '', /not found in src\/cart\.ts.*READ the file again/s);
    const many = planSearchReplace({ path: 'src/cart.ts', search: '}', replace: '};', content: FILE });
    assert.equal(many.ok, false);
    assert.match(!many.ok ? many.text : '', /occurs 2 times in src\/cart\.ts \(at lines 4, 9\)/);
  });

  test('an empty SEARCH creates a new file, but never overwrites one', () => {
    const create = planSearchReplace({ path: 'src/new.ts', search: '', replace: 'export const x = 1;', content: undefined });
    assert.deepEqual(create, { ok: true, edit: { kind: 'create', file: 'src/new.ts', content: 'export const x = 1;\n' } });
    const overwrite = planSearchReplace({ path: 'src/cart.ts', search: '\n', replace: 'oops', content: FILE });
    assert.equal(overwrite.ok, false);
    const missing = planSearchReplace({ path: 'src/nope.ts', search: 'a', replace: 'b', content: undefined });
    assert.match(!missing.ok ? missing.text : '', /does not exist/);
  });

  test('CRLF files keep their line endings', () => {
    const content = 'a\r\nb\r\nc\r\n';
    const plan = planSearchReplace({ path: 'w.txt', search: 'b', replace: 'B', content });
    assert.ok(plan.ok && plan.edit.kind === 'replace');
    if (plan.ok && plan.edit.kind === 'replace') assert.equal(content.replace(plan.edit.oldText, plan.edit.newText), 'a\r\nB\r\nc\r\n');
  });
});
