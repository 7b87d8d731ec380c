import type { CorpusBug, CorpusProject } from './types';

// Text formatting and parsing in Python, tested with pytest.

export const pyText: CorpusProject = {
  name: 'py-text',
  language: 'python',
  files: {
    'textkit/__init__.py': '',
    'textkit/fmt.py': `SMALL_WORDS = {"a", "an", "the", "of", "and"}


def title_case(text):
    words = text.lower().split()
    out = []
    for i, word in enumerate(words):
        if i > 0 and word in SMALL_WORDS:
            out.append(word)
        else:
            out.append(word[0].upper() + word[1:])
    return " ".join(out)


def pad_left(text, width, fill=" "):
    if len(text) >= width:
        return text
    return fill * (width - len(text)) + text


def join_names(names, sep=", "):
    return sep.join(n.strip() for n in names if n.strip())
`,
    'textkit/parse.py': `UNITS = {"s": 1, "m": 60, "h": 3600}


def parse_kv(line, sep="="):
    result = {}
    for part in line.split(";"):
        if not part.strip():
            continue
        key, _, value = part.partition(sep)
        result[key.strip()] = value.strip()
    return result


def parse_duration(text):
    total = 0
    number = ""
    for ch in text:
        if ch.isdigit():
            number += ch
        elif ch in UNITS:
            total += int(number) * UNITS[ch]
            number = ""
        else:
            raise ValueError("bad duration: " + text)
    return total
`,
    'tests/test_fmt.py': `from textkit.fmt import join_names, pad_left, title_case


def test_title_case():
    assert title_case("the lord of the rings") == "The Lord of the Rings"


def test_pad_left():
    assert pad_left("7", 3, "0") == "007"
    assert pad_left("1234", 3) == "1234"


def test_join_names():
    assert join_names([" ann", "", "bo "]) == "ann, bo"
`,
    'tests/test_parse.py': `import pytest

from textkit.parse import parse_duration, parse_kv


def test_parse_kv():
    assert parse_kv("a=1; b = 2;") == {"a": "1", "b": "2"}


def test_parse_duration():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("45s") == 45
    with pytest.raises(ValueError):
        parse_duration("5x")
`,
  },
};

const fmt = (name: string) => `tests.test_fmt::${name}`;
const parse = (name: string) => `tests.test_parse::${name}`;

export const pyTextBugs: CorpusBug[] = [
  {
    id: 'py-text/pad-width',
    project: 'py-text',
    kind: 'off-by-one',
    title: 'pad_left: multi-character fill',
    description: 'A fill like ". " repeats and is cut to the width.',
    change: [
      {
        file: 'textkit/fmt.py',
        replace: [
          [
            '    return fill * (width - len(text)) + text',
            '    missing = width - len(text)\n    padding = (fill * missing)[: missing - 1]\n    return padding + text',
          ],
        ],
      },
    ],
    failingTests: [fmt('test_pad_left')],
    truth: { file: 'textkit/fmt.py', symbol: 'pad_left' },
    offlineFixable: true,
    fix: 'boundary-literal',
  },
  {
    id: 'py-text/title-negated',
    project: 'py-text',
    kind: 'negated-condition',
    title: 'title_case: option to capitalise every word',
    description: 'Headlines in the newsletter capitalise small words too.',
    change: [
      {
        file: 'textkit/fmt.py',
        replace: [
          ['def title_case(text):', 'def title_case(text, keep_small=True):'],
          ['        if i > 0 and word in SMALL_WORDS:', '        if not (i > 0 and word in SMALL_WORDS and keep_small):'],
        ],
      },
    ],
    failingTests: [fmt('test_title_case')],
    truth: { file: 'textkit/fmt.py', symbol: 'title_case' },
    offlineFixable: true,
    fix: 'remove-negation',
  },
  {
    id: 'py-text/kv-separator',
    project: 'py-text',
    kind: 'wrong-literal',
    title: 'parse_kv: commas between pairs',
    description: 'Accept "a=1, b=2" as well as semicolons.',
    change: [{ file: 'textkit/parse.py', replace: [['    for part in line.split(";"):', '    for part in line.replace(",", ";").split(":"):']] }],
    failingTests: [parse('test_parse_kv')],
    truth: { file: 'textkit/parse.py', symbol: 'parse_kv' },
    offlineFixable: false,
    fix: null,
  },
  {
    id: 'py-text/join-separator',
    project: 'py-text',
    kind: 'wrong-literal',
    title: 'join_names: skip missing names',
    description: 'None entries come from optional form fields; skip them.',
    change: [
      {
        file: 'textkit/fmt.py',
        replace: [
          [
            'def join_names(names, sep=", "):\n    return sep.join(n.strip() for n in names if n.strip())',
            'def join_names(names, sep=" ,"):\n    return sep.join(n.strip() for n in names if n and n.strip())',
          ],
        ],
      },
    ],
    failingTests: [fmt('test_join_names')],
    truth: { file: 'textkit/fmt.py', symbol: 'join_names' },
    offlineFixable: true,
    fix: 'evidence-literal',
  },
  {
    id: 'py-text/days-arith',
    project: 'py-text',
    kind: 'wrong-arithmetic',
    title: 'parse_duration: days',
    description: 'Accept "2d" for days.',
    change: [
      {
        file: 'textkit/parse.py',
        replace: [
          ['UNITS = {"s": 1, "m": 60, "h": 3600}', 'UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}'],
          ['            total += int(number) * UNITS[ch]', '            total += int(number) + UNITS[ch]'],
        ],
      },
    ],
    failingTests: [parse('test_parse_duration')],
    truth: { file: 'textkit/parse.py', symbol: 'parse_duration' },
    offlineFixable: true,
    fix: 'arithmetic-operator',
  },
  {
    id: 'py-text/join-stale',
    project: 'py-text',
    kind: 'stale-expectation',
    title: 'join_names: ampersand',
    description: "Names are joined with ' & ' instead of ', ' in the new layout.",
    change: [{ file: 'textkit/fmt.py', replace: [['def join_names(names, sep=", "):', 'def join_names(names, sep=" & "):']] }],
    failingTests: [fmt('test_join_names')],
    truth: { file: 'tests/test_fmt.py', symbol: 'test_join_names' },
    offlineFixable: true,
    fix: 'stale-expectation',
  },
  {
    id: 'py-text/decimal-duration-missing',
    project: 'py-text',
    kind: 'missing-logic',
    title: 'parse_duration: decimals',
    description: '"1.5h" is ninety minutes.',
    change: [
      { file: 'tests/test_parse.py', append: '\n\ndef test_parse_decimal_duration():\n    assert parse_duration("1.5h") == 5400\n' },
      {
        file: 'textkit/parse.py',
        replace: [['def parse_duration(text):\n', 'def parse_duration(text):\n    """Seconds in a duration like 1h30m or 1.5h."""\n']],
      },
    ],
    failingTests: [parse('test_parse_decimal_duration')],
    truth: { file: 'textkit/parse.py', symbol: 'parse_duration' },
    offlineFixable: false,
    fix: null,
  },
];
