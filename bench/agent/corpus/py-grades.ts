import type { CorpusBug, CorpusProject } from './types';

// Grade statistics and letter grades in Python, tested with pytest.

export const pyGrades: CorpusProject = {
  name: 'py-grades',
  language: 'python',
  files: {
    'grades/__init__.py': '',
    'grades/stats.py': `def mean(values):
    if not values:
        raise ValueError("mean of nothing")
    return sum(values) / len(values)


def median(values):
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    if n % 2 == 1:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def clamp(value, low, high):
    return max(low, min(value, high))


def scale(value, old_max, new_max):
    return value * new_max / old_max
`,
    'grades/letters.py': `from .stats import clamp

CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


def letter(score):
    score = clamp(score, 0, 100)
    for cutoff, grade in CUTOFFS:
        if score >= cutoff:
            return grade
    return "F"


def passed(score, retake=False):
    if retake:
        return score >= 50
    return score >= 60


def describe(name, score):
    return name + ": " + letter(score) + " (" + str(score) + ")"
`,
    'tests/test_stats.py': `import pytest

from grades.stats import clamp, mean, median, scale


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5
    with pytest.raises(ValueError):
        mean([])


def test_median_odd_and_even():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0
    assert clamp(11, 0, 10) == 10


def test_scale():
    assert scale(5, 10, 100) == 50
`,
    'tests/test_letters.py': `from grades.letters import describe, letter, passed


def test_letter_cutoffs():
    assert letter(90) == "A"
    assert letter(89.9) == "B"
    assert letter(60) == "D"
    assert letter(59) == "F"
    assert letter(120) == "A"
    assert letter(-5) == "F"


def test_passed():
    assert passed(60)
    assert not passed(59)
    assert passed(50, retake=True)
    assert not passed(49, retake=True)


def test_describe():
    assert describe("Ann", 85) == "Ann: B (85)"
`,
  },
};

const stats = (name: string) => `tests.test_stats::${name}`;
const letters = (name: string) => `tests.test_letters::${name}`;

export const pyGradesBugs: CorpusBug[] = [
  {
    id: 'py-grades/median-index',
    project: 'py-grades',
    kind: 'off-by-one',
    title: 'median: refuse empty input',
    description: 'median([]) raised IndexError; raise a ValueError like mean does.',
    change: [
      {
        file: 'grades/stats.py',
        replace: [
          ['    ordered = sorted(values)\n', '    if not values:\n        raise ValueError("median of nothing")\n    ordered = sorted(values)\n'],
          ['    return (ordered[mid - 1] + ordered[mid]) / 2', '    return (ordered[mid - 2] + ordered[mid]) / 2'],
        ],
      },
    ],
    failingTests: [stats('test_median_odd_and_even')],
    truth: { file: 'grades/stats.py', symbol: 'median' },
    offlineFixable: true,
    fix: 'boundary-literal',
  },
  {
    id: 'py-grades/cutoff-strict',
    project: 'py-grades',
    kind: 'wrong-operator',
    title: 'Letter grades: an E from 50',
    description: 'The new scale has an E between D and F.',
    change: [
      {
        file: 'grades/letters.py',
        replace: [
          ['CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]', 'CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D"), (50, "E")]'],
          ['        if score >= cutoff:', '        if score > cutoff:'],
        ],
      },
      { file: 'tests/test_letters.py', replace: [['    assert letter(59) == "F"\n', '    assert letter(59) == "E"\n    assert letter(49) == "F"\n']] },
    ],
    failingTests: [letters('test_letter_cutoffs')],
    truth: { file: 'grades/letters.py', symbol: 'letter' },
    offlineFixable: true,
    fix: 'relational-operator',
  },
  {
    id: 'py-grades/percent-swapped',
    project: 'py-grades',
    kind: 'swapped-args',
    title: 'stats: percent helper',
    description: 'percent(value, total) for the report card.',
    change: [
      { file: 'grades/stats.py', append: '\n\ndef percent(value, total):\n    return scale(value, 100, total)\n' },
      {
        file: 'tests/test_stats.py',
        replace: [['from grades.stats import clamp, mean, median, scale', 'from grades.stats import clamp, mean, median, percent, scale']],
        append: '\n\ndef test_percent():\n    assert percent(5, 10) == 50\n',
      },
    ],
    failingTests: [stats('test_percent')],
    truth: { file: 'grades/stats.py', symbol: 'percent' },
    offlineFixable: true,
    fix: 'swap-arguments',
  },
  {
    id: 'py-grades/describe-stale',
    project: 'py-grades',
    kind: 'stale-expectation',
    title: 'Report card: percentages',
    description: 'describe now shows the score as a percentage.',
    change: [
      {
        file: 'grades/letters.py',
        replace: [['    return name + ": " + letter(score) + " (" + str(score) + ")"', '    return name + ": " + letter(score) + " (" + str(score) + "%)"']],
      },
    ],
    failingTests: [letters('test_describe')],
    truth: { file: 'tests/test_letters.py', symbol: 'test_describe' },
    offlineFixable: true,
    fix: 'stale-expectation',
  },
  {
    id: 'py-grades/retake-logic',
    project: 'py-grades',
    kind: 'wrong-logical',
    title: 'passed: retakes need attendance',
    description: 'A retake only counts with attendance.',
    change: [
      {
        file: 'grades/letters.py',
        replace: [['def passed(score, retake=False):\n    if retake:', 'def passed(score, retake=False, attended=True):\n    if retake or attended:']],
      },
    ],
    failingTests: [letters('test_passed')],
    truth: { file: 'grades/letters.py', symbol: 'passed' },
    offlineFixable: true,
    fix: 'logical-operator',
  },
  {
    id: 'py-grades/median-none-missing',
    project: 'py-grades',
    kind: 'missing-logic',
    title: 'median: skip missing marks',
    description: 'Absent students have None marks; the median ignores them.',
    change: [
      {
        file: 'tests/test_stats.py',
        append: '\n\ndef test_median_skips_none():\n    assert median([1, None, 3]) == 2\n',
      },
      { file: 'grades/stats.py', replace: [['def median(values):\n', 'def median(values):\n    """The middle mark; missing marks (None) do not count."""\n']] },
    ],
    failingTests: [stats('test_median_skips_none')],
    truth: { file: 'grades/stats.py', symbol: 'median' },
    offlineFixable: false,
    fix: null,
  },
];
