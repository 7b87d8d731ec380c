import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseJunitXml, JunitParseError, junitTestId } from '@/lib/junit/parse';
import { toHttpError } from '@/lib/errors';

const fixture = (name: string) => readFileSync(path.join('test/fixtures/junit', name), 'utf8');
const byId = (xml: string) => new Map(parseJunitXml(xml).results.map((r) => [r.id, r]));

describe('producers', () => {
  test('node --test junit reporter: suite path in the name, failures with stack bodies', () => {
    const parsed = parseJunitXml(fixture('node-test.xml'));
    assert.equal(parsed.suites, 1);
    assert.deepEqual(
      parsed.results.map((r) => [r.id, r.status]),
      [
        ['test::cart > total sums prices', 'failed'],
        ['test::cart > empty cart', 'failed'],
        ['test::cart > passes', 'passed'],
        ['test::cart > skipped one', 'skipped'],
        ['test::cart > todo one', 'skipped'],
        ['test::top-level throws', 'failed'],
      ],
    );
    const first = parsed.results[0];
    assert.match(first.message ?? '', /4 !== 3/);
    assert.match(first.details ?? '', /cart\.test\.mjs:5:44/);
    assert.match(first.details ?? '', /operator: 'strictEqual'/);
    assert.equal(first.durationMs, 1);
  });

  test('pytest xunit2 with captured output: classname::name, error vs failure, xfail as skipped', () => {
    const results = byId(fixture('pytest.xml'));
    assert.equal(results.get('tests.test_cart::test_total')?.status, 'failed');
    assert.match(results.get('tests.test_cart::test_total')?.message ?? '', /^assert 4 == 3\n/);
    assert.match(results.get('tests.test_cart::test_total')?.systemOut ?? '', /computing total/);
    assert.equal(results.get('tests.test_cart.TestAverage::test_empty')?.message, 'ZeroDivisionError: division by zero');
    assert.match(results.get('tests.test_cart.TestAverage::test_empty')?.details ?? '', /shop\/cart\.py:6: ZeroDivisionError/);
    assert.equal(results.get('tests.test_cart::test_fixture_error')?.status, 'error');
    assert.equal(results.get('tests.test_cart::test_xfail')?.status, 'skipped');
    assert.equal(results.get('tests.test_cart::test_skipped')?.message, 'not on CI');
    assert.equal(results.get('tests.test_cart::test_ok')?.status, 'passed');
    assert.match(results.get('tests.test_cart::test_ok')?.systemOut ?? '', /\[stderr\][\s\S]*warn/);
  });

  test('pytest xunit1: file attribute and 1-based line', () => {
    const r = byId(fixture('pytest-xunit1.xml')).get('tests.test_cart::test_total');
    assert.equal(r?.file, 'tests/test_cart.py');
    assert.equal(r?.line, 6);
  });

  test('jest-junit: classname equal to name falls back to the file attribute', () => {
    const parsed = parseJunitXml(fixture('jest-junit.xml'));
    assert.deepEqual(
      parsed.results.map((r) => [r.id, r.status]),
      [
        ['src/cart.test.ts::Cart total sums prices', 'failed'],
        ['src/cart.test.ts::Cart applies discount', 'failed'],
        ['src/cart.test.ts::Cart handles empty cart', 'passed'],
        ['src/cart.test.ts::Cart pending feature', 'skipped'],
      ],
    );
    // no message attribute: the first line of the body stands in
    assert.equal(parsed.results[0].message, 'Error: expect(received).toBe(expected) // Object.is equality');
    assert.match(parsed.results[0].details ?? '', /Received: 4/);
  });

  test('a message attribute keeps its line breaks when the element body repeats it (XML normalises them away in attributes)', () => {
    const results = byId(fixture('jest-junit-multiline-message.xml'));
    const total = results.get('src/cart.test.ts::Cart total sums prices');
    assert.equal(total?.message, 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 4');
    assert.equal(total?.problems?.[0]?.message, total?.message);
    assert.match(total?.details ?? '', /cart\.test\.ts:8:25/);
    // the body has more before the message: the message is the part of the body it names
    assert.equal(results.get('src/cart.test.ts::Cart applies discount')?.message, 'expected the discount to apply:\n\tgot 100');
  });

  test('a message attribute the body does not repeat is kept as written', () => {
    const xml =
      '<testsuite name="s"><testcase classname="c" name="t"><failure message="wanted   3&#10;got 4">some other\ntext</failure></testcase></testsuite>';
    assert.equal(parseJunitXml(xml).results[0].message, 'wanted   3\ngot 4');
  });

  test('vitest: classname is the file, error elements, suite-level entities decoded', () => {
    const parsed = parseJunitXml(fixture('vitest.xml'));
    assert.equal(parsed.suites, 2);
    const results = new Map(parsed.results.map((r) => [r.id, r]));
    assert.equal(results.get('src/cart.test.ts::cart > total sums prices')?.file, 'src/cart.test.ts');
    assert.equal(results.get('src/price.test.ts::price > formats cents')?.status, 'error');
    assert.equal(results.get('src/price.test.ts::price > formats cents')?.message, "Cannot read properties of undefined (reading 'toFixed')");
    assert.match(results.get('src/cart.test.ts::cart > empty cart')?.systemOut ?? '', /total of \[\] is 0/);
  });

  test('Maven Surefire: single testsuite root, CDATA bodies, properties ignored', () => {
    const parsed = parseJunitXml(fixture('surefire.xml'));
    assert.equal(parsed.suites, 1);
    const results = new Map(parsed.results.map((r) => [r.id, r]));
    const failing = results.get('com.example.shop.CartTest::totalSumsPrices');
    assert.equal(failing?.message, 'expected: <3> but was: <4>');
    assert.match(failing?.details ?? '', /CartTest\.java:14/);
    assert.match(failing?.systemOut ?? '', /computing total/);
    assert.equal(results.get('com.example.shop.CartTest::nullCart')?.status, 'error');
    assert.match(results.get('com.example.shop.CartTest::nullCart')?.systemOut ?? '', /\[stderr\]\nWARN cart is null/);
    assert.equal(results.get('com.example.shop.CartTest::emptyCart')?.status, 'passed');
    assert.equal(results.get('com.example.shop.CartTest::coupons')?.status, 'skipped');
    assert.equal(parsed.results.length, 4);
  });

  test('go-junit-report: nested testsuites, subtests, panics as errors', () => {
    const parsed = parseJunitXml(fixture('go-junit-report.xml'));
    assert.equal(parsed.suites, 2);
    assert.deepEqual(
      parsed.results.map((r) => [r.id, r.status]),
      [
        ['example.com/shop/cart::TestTotal', 'failed'],
        ['example.com/shop/cart::TestTotal/empty', 'passed'],
        ['example.com/shop/cart::TestCoupons', 'skipped'],
        ['example.com/shop/price::TestFormat', 'error'],
      ],
    );
    assert.match(parsed.results[0].details ?? '', /cart_test\.go:12: Total\(\[1 2\]\) = 4, want 3/);
  });
});

describe('test ids', () => {
  test('same test in two describe blocks of node --test stays distinct', () => {
    const a = junitTestId({ name: 'works', classname: 'test', suitePath: ['a'] });
    const b = junitTestId({ name: 'works', classname: 'test', suitePath: ['b'] });
    assert.notEqual(a.id, b.id);
  });
  test('suite name is the key when neither classname nor file exist', () => {
    assert.equal(junitTestId({ name: 'x', suitePath: ['S'] }).id, 'S::x');
  });
});

describe('encodings', () => {
  // what .NET, PowerShell and some Java tools write: UTF-16 with a byte order mark and a declaration saying so
  const REPORT =
    '<?xml version="1.0" encoding="utf-16"?>\n<testsuites><testsuite name="Größe ✓"><testcase classname="Cart" name="total 🛒"><failure message="expected 3 but was 4 — €">at Cart.total</failure></testcase><testcase classname="Cart" name="empty"/></testsuite></testsuites>';
  const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
  const read = (bytes: Uint8Array) => {
    const parsed = parseJunitXml(bytes);
    assert.deepEqual(
      parsed.results.map((r) => [r.id, r.status]),
      [
        ['Cart::total 🛒', 'failed'],
        ['Cart::empty', 'passed'],
      ],
    );
    assert.equal(parsed.results[0].message, 'expected 3 but was 4 — €');
    return parsed;
  };

  test('UTF-16 little endian with a byte order mark', () => {
    read(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(REPORT, 'utf16le')]));
  });

  test('UTF-16 big endian with a byte order mark', () => {
    read(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(REPORT)]));
  });

  test('UTF-16 without a byte order mark, told by its first characters (either byte order)', () => {
    read(Buffer.from(REPORT, 'utf16le'));
    read(utf16be(REPORT));
  });

  test('UTF-8 with a byte order mark and a declaration', () => {
    read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(REPORT.replace('utf-16', 'UTF-8'), 'utf8')]));
  });

  test('a single-byte encoding its declaration names', () => {
    const latin1 =
      '<?xml version="1.0" encoding="ISO-8859-1"?><testsuite><testcase classname="Größe" name="préféré"><failure message="naïve"/></testcase></testsuite>';
    const parsed = parseJunitXml(Buffer.from(latin1, 'latin1'));
    assert.equal(parsed.results[0].id, 'Größe::préféré');
    assert.equal(parsed.results[0].message, 'naïve');
    const cp1252 = Buffer.concat([
      Buffer.from("<?xml version='1.0' encoding='windows-1252'?><testsuite><testcase classname='c' name='costs "),
      Buffer.from([0x80]),
      Buffer.from("'/></testsuite>"),
    ]);
    assert.equal(parseJunitXml(cp1252).results[0].name, 'costs €');
  });

  test('a declaration saying UTF-16 over single bytes is read as UTF-8, with a warning', () => {
    const parsed = parseJunitXml(Buffer.from(REPORT, 'utf8'));
    assert.equal(parsed.results[0].message, 'expected 3 but was 4 — €');
    assert.ok(
      parsed.warnings.some((w) => /declares UTF-16 but is written in single bytes: read as UTF-8/.test(w)),
      parsed.warnings.join('; '),
    );
  });

  test('an encoding that cannot be read, UTF-32, and broken UTF-16 are refused with what was tried', () => {
    const refused = (bytes: Uint8Array, message: RegExp) =>
      assert.throws(
        () => parseJunitXml(bytes),
        (err: unknown) => err instanceof JunitParseError && err.reason === 'malformed' && message.test(err.message) && toHttpError(err).status === 400,
      );
    refused(
      Buffer.from('<?xml version="1.0" encoding="EBCDIC-XYZ"?><testsuite/>'),
      /declares the encoding "EBCDIC-XYZ", which cannot be read here: write it in UTF-8 or UTF-16/,
    );
    refused(Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.from('<\0\0\0')]), /UTF-32.*write it in UTF-8 or UTF-16/);
    // well-formed in UTF-16 until it is cut off in the middle of a tag
    const cut = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(REPORT, 'utf16le')]).subarray(0, 120);
    refused(cut, /^JUnit report \(read as UTF-16LE, from its byte order mark\) is not well-formed XML: /);
  });
});

describe('hostile and broken input', () => {
  test('XXE with an external entity is refused before anything is read', () => {
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<testsuite><testcase name="a" classname="b"><failure message="&xxe;"/></testcase></testsuite>`;
    assert.throws(
      () => parseJunitXml(xml),
      (err: unknown) => err instanceof JunitParseError && err.reason === 'doctype',
    );
  });

  test('billion laughs is refused, and the refusal maps to HTTP 400', () => {
    const entities = Array.from({ length: 10 }, (_, i) => (i === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`)).join('');
    const xml = `<?xml version="1.0"?><!DOCTYPE lolz [${entities}]><testsuites><testsuite name="&lol9;"/></testsuites>`;
    let caught: unknown;
    try {
      parseJunitXml(xml);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof JunitParseError);
    assert.equal(toHttpError(caught).status, 400);
  });

  test('malformed XML is a malformed error', () => {
    assert.throws(
      () => parseJunitXml('<testsuites><testsuite><testcase name="a"></testsuite>'),
      (err: unknown) => err instanceof JunitParseError && err.reason === 'malformed',
    );
    assert.throws(
      () => parseJunitXml(''),
      (err: unknown) => err instanceof JunitParseError,
    );
  });

  test('undefined entity is malformed, not silently expanded', () => {
    assert.throws(
      () => parseJunitXml('<testsuite><testcase name="&foo;"/></testsuite>'),
      (err: unknown) => err instanceof JunitParseError && err.reason === 'malformed',
    );
  });

  test('a non-JUnit root element is refused', () => {
    assert.throws(
      () => parseJunitXml('<html><body/></html>'),
      (err: unknown) => err instanceof JunitParseError && err.reason === 'not_junit',
    );
  });

  test('invalid UTF-8 bytes and control characters are replaced, not fatal', () => {
    const head = Buffer.from('<testsuite name="s"><testcase classname="c" name="bad ');
    const tail = Buffer.from('"><failure message="x\u0000y\u001b[31m">body</failure></testcase></testsuite>');
    const bytes = Buffer.concat([head, Buffer.from([0xff, 0xfe, 0xc3]), tail]);
    const parsed = parseJunitXml(bytes);
    assert.equal(parsed.results.length, 1);
    assert.match(parsed.results[0].name, /^bad \uFFFD+$/);
    assert.equal(parsed.results[0].message, 'x\uFFFDy\uFFFD[31m');
    assert.equal(parsed.results[0].status, 'failed');
  });

  test('lone surrogates in a string input are replaced', () => {
    const parsed = parseJunitXml('<testsuite><testcase classname="c" name="a\uD800b"/></testsuite>');
    assert.equal(parsed.results[0].name, 'a\uFFFDb');
  });

  test('the number of test cases is capped', () => {
    const cases = Array.from({ length: 6 }, (_, i) => `<testcase classname="c" name="t${i}"/>`).join('');
    assert.throws(
      () => parseJunitXml(`<testsuite>${cases}</testsuite>`, { maxTestCases: 5 }),
      (err: unknown) => err instanceof JunitParseError && err.reason === 'too_many_cases',
    );
    assert.equal(parseJunitXml(`<testsuite>${cases}</testsuite>`, { maxTestCases: 6 }).results.length, 6);
  });

  test('the size is capped', () => {
    assert.throws(
      () => parseJunitXml('<testsuite>' + ' '.repeat(100) + '</testsuite>', { maxBytes: 50 }),
      (err: unknown) => err instanceof JunitParseError && err.reason === 'too_large',
    );
  });

  test('huge failure bodies are cut with a marker and a warning', () => {
    const body = 'a'.repeat(5000) + 'END';
    const parsed = parseJunitXml(`<testsuite><testcase classname="c" name="t"><failure>${body}</failure></testcase></testsuite>`, {
      maxFieldChars: 1000,
    });
    assert.ok((parsed.results[0].details ?? '').length < 1100);
    assert.match(parsed.results[0].details ?? '', /characters cut\] …/);
    assert.match(parsed.results[0].details ?? '', /END$/);
    assert.ok(parsed.warnings.some((w) => w.includes('cut')));
  });

  test('an empty report warns', () => {
    assert.deepEqual(parseJunitXml('<testsuites/>').warnings, ['no test cases found']);
  });
});

describe('nothing is lost', () => {
  test('jest-junit: same-named cases in one suite get distinct ids, deterministically', () => {
    const first = parseJunitXml(fixture('jest-junit-duplicates.xml'));
    const second = parseJunitXml(fixture('jest-junit-duplicates.xml'));
    const ids = first.results.map((r) => r.id);
    assert.equal(new Set(ids).size, 8, `ids must be unique: ${ids.join(', ')}`);
    assert.deepEqual(
      ids,
      second.results.map((r) => r.id),
    );
    assert.equal(first.results.filter((r) => r.status === 'failed').length, 6);
    assert.deepEqual(ids.slice(0, 5), [
      'src/cart.test.js::cart applies a discount',
      'src/cart.test.js::cart applies a discount [2]',
      'src/cart.test.js::cart totals each line',
      'src/cart.test.js::cart totals each line [2]',
      'src/cart.test.js::cart totals each line [3]',
    ]);
    // the name people read stays the test's own
    assert.equal(first.results[1].name, 'cart applies a discount');
  });

  test('a disambiguated id never takes the id of another real test', () => {
    const xml = `<testsuite name="s">
      <testcase classname="c" name="t"><failure>one</failure></testcase>
      <testcase classname="c" name="t [2]"><failure>real second</failure></testcase>
      <testcase classname="c" name="t"><failure>dup</failure></testcase>
    </testsuite>`;
    const ids = parseJunitXml(xml).results.map((r) => r.id);
    assert.equal(new Set(ids).size, 3, ids.join(', '));
    assert.equal(ids[1], 'c::t [2]');
  });

  test('a case with both <failure> and <error> keeps both, each with its kind and message', () => {
    const [refund, , fee] = parseJunitXml(fixture('failure-and-error.xml')).results;
    assert.equal(refund.status, 'error');
    assert.deepEqual(
      refund.problems?.map((p) => [p.kind, p.message]),
      [
        ['failure', 'expected:<40> but was:<50>'],
        ['error', 'Connection pool closed during teardown'],
      ],
    );
    assert.equal(refund.message, 'expected:<40> but was:<50>');
    // the two bodies stay apart, each under its own heading
    assert.match(refund.details ?? '', /^\[failure\] expected:<40> but was:<50>\norg\.opentest4j/m);
    assert.match(refund.details ?? '', /LedgerTest\.java:31\)\n\n\[error\] Connection pool closed during teardown\njava\.lang\.IllegalStateException/);
    assert.deepEqual(
      fee.problems?.map((p) => p.kind),
      ['error'],
    );
    assert.match(fee.details ?? '', /^java\.lang\.NullPointerException/);
  });

  test('the whole report is counted, not only its failures', () => {
    assert.deepEqual(parseJunitXml(fixture('jest-junit-duplicates.xml')).summary, {
      tests: 8,
      passed: 1,
      failed: 6,
      errored: 0,
      skipped: 1,
      durationMs: 1734,
    });
    assert.deepEqual(parseJunitXml(fixture('failure-and-error.xml')).summary, {
      tests: 3,
      passed: 1,
      failed: 0,
      errored: 2,
      skipped: 0,
      durationMs: 412,
    });
  });

  test('without a time on the root, the duration is the sum of the suites', () => {
    const xml = `<testsuites><testsuite name="a" time="1.5"><testcase name="x"/></testsuite><testsuite name="b" time="0.25"><testcase name="y"/></testsuite></testsuites>`;
    assert.equal(parseJunitXml(xml).summary.durationMs, 1750);
  });
});
