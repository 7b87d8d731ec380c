import type { DemoChangeSpec, DemoRepoSpec, FileTree } from './types';
import { flowfixJson, type DemoRepoSettings } from './settings';

// ledger-py: a small Python package (accounts, fees, interest, statements)
// tested with pytest. pytest's JUnit report names a test by its module as
// classname, so a test id is "tests.test_<module>::<test function>".

const PYTEST = 'python3 -m pytest -q --junitxml=reports/junit.xml';

// {files} narrows pytest to the failing tests' modules (the xunit1 report
// names each test's file); with no targets it is empty and the whole suite runs.
export const ledgerSettings: DemoRepoSettings = {
  language: 'python',
  build: 'python3 -m compileall -q ledger',
  test: `${PYTEST} {files}`,
  regression: PYTEST,
  junitReport: 'reports/junit.xml',
  timeLimits: { testSeconds: 120, regressionSeconds: 300 },
};

const id = (module: string, name: string) => `tests.${module}::${name}`;

const femi = { name: 'Femi Adeyemi', email: 'femi.adeyemi@example.com' };
const greta = { name: 'Greta Lind', email: 'greta.lind@example.com' };
const hiro = { name: 'Hiro Tanaka', email: 'hiro.tanaka@example.com' };

const moneyPy = `"""Money helpers: amounts are Decimals quantized to cents."""
from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


def to_money(value) -> Decimal:
    """Converts a str, int or Decimal to an amount in cents (half to even, like the bank)."""
    if isinstance(value, float):
        raise TypeError("use str or Decimal for money, not float")
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_EVEN)
`;

const accountsPy = `"""Accounts and their entries."""
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from .money import to_money

CREDIT_KINDS = frozenset({"deposit", "refund", "interest"})
DEBIT_KINDS = frozenset({"withdrawal", "fee"})


@dataclass(frozen=True)
class Entry:
    kind: str
    amount: Decimal
    day: date
    memo: str = ""

    def __post_init__(self):
        if self.kind not in CREDIT_KINDS | DEBIT_KINDS:
            raise ValueError(f"unknown entry kind: {self.kind}")
        if self.amount <= 0:
            raise ValueError("entry amounts are positive; the kind gives the sign")


@dataclass
class Account:
    owner: str
    opening: Decimal = Decimal("0.00")
    entries: list = field(default_factory=list)

    def post(self, kind: str, amount, day: date, memo: str = "") -> Entry:
        entry = Entry(kind, to_money(amount), day, memo)
        self.entries.append(entry)
        return entry

    def balance(self) -> Decimal:
        total = self.opening
        for entry in self.entries:
            if entry.kind in CREDIT_KINDS:
                total += entry.amount
            else:
                total -= entry.amount
        return total
`;

const feesPy = `"""Fees charged at the end of the day."""
from decimal import Decimal

OVERDRAFT_FEE = Decimal("25.00")


def overdraft_fee(balance: Decimal) -> Decimal:
    """The fee owed for ending the day below zero."""
    return OVERDRAFT_FEE if balance < 0 else Decimal("0.00")
`;

const interestPy = `"""Simple daily interest on positive balances."""
from decimal import Decimal

from .money import to_money

DAYS_PER_YEAR = 365


def accrued_interest(balance: Decimal, annual_rate: Decimal, days: int) -> Decimal:
    """Interest earned over \`days\` days; overdrawn balances earn nothing."""
    if balance <= 0 or days <= 0:
        return Decimal("0.00")
    return to_money(balance * annual_rate * days / DAYS_PER_YEAR)
`;

const statementsPy = `"""Statement pages: 1-based, a fixed number of lines per page."""


def page_count(line_count: int, per_page: int = 10) -> int:
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return (line_count + per_page - 1) // per_page


def paginate(lines: list, page: int, per_page: int = 10) -> list:
    if page < 1:
        raise ValueError("pages start at 1")
    start = (page - 1) * per_page
    return lines[start:start + per_page]
`;

const testAccounts = `from datetime import date
from decimal import Decimal

import pytest

from ledger.accounts import Account

DAY = date(2026, 11, 2)


def test_new_account_has_opening_balance():
    assert Account("ana", Decimal("10.00")).balance() == Decimal("10.00")


def test_deposits_add_to_the_balance():
    account = Account("ana")
    account.post("deposit", "120.00", DAY)
    account.post("deposit", "30.50", DAY)
    assert account.balance() == Decimal("150.50")


def test_withdrawals_and_fees_reduce_the_balance():
    account = Account("ana", Decimal("100.00"))
    account.post("withdrawal", "40.00", DAY)
    account.post("fee", "2.50", DAY)
    assert account.balance() == Decimal("57.50")


def test_refund_increases_the_balance():
    account = Account("ana", Decimal("100.00"))
    account.post("withdrawal", "60.00", DAY)
    account.post("refund", "15.00", DAY)
    assert account.balance() == Decimal("55.00")


def test_rejects_non_positive_amounts():
    with pytest.raises(ValueError):
        Account("ana").post("deposit", "0.00", DAY)
`;

const testFees = `from decimal import Decimal

from ledger.fees import overdraft_fee


def test_overdraft_fee_charged_when_negative():
    assert overdraft_fee(Decimal("-0.01")) == Decimal("25.00")


def test_no_fee_at_zero():
    assert overdraft_fee(Decimal("0.00")) == Decimal("0.00")
`;

const testInterest = `from decimal import Decimal

from ledger.interest import accrued_interest


def test_interest_for_a_full_year():
    assert accrued_interest(Decimal("1000.00"), Decimal("0.05"), 365) == Decimal("50.00")


def test_interest_for_thirty_days():
    assert accrued_interest(Decimal("1000.00"), Decimal("0.05"), 30) == Decimal("4.11")


def test_no_interest_when_overdrawn():
    assert accrued_interest(Decimal("-5.00"), Decimal("0.05"), 30) == Decimal("0.00")
`;

const testStatements = `import pytest

from ledger.statements import page_count, paginate

LINES = [f"line {n}" for n in range(1, 26)]


def test_page_count_rounds_up():
    assert page_count(25, 10) == 3


def test_page_count_exact_multiple():
    assert page_count(20, 10) == 2


def test_page_count_empty_statement():
    assert page_count(0, 10) == 0


def test_first_page_starts_at_first_line():
    assert paginate(LINES, 1, 10)[0] == "line 1"


def test_last_page_holds_the_rest():
    assert paginate(LINES, 3, 10) == ["line 21", "line 22", "line 23", "line 24", "line 25"]


def test_pages_start_at_one():
    with pytest.raises(ValueError):
        paginate(LINES, 0)
`;

const mainFiles: FileTree = {
  'pyproject.toml': `[project]
name = "ledger-py"
version = "0.9.0"
description = "Accounts, fees, interest and statements for the bank ledger."
requires-python = ">=3.9"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
addopts = "-p no:cacheprovider"
junit_family = "xunit1"
`,
  '.flowfix.json': flowfixJson(ledgerSettings),
  '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\nreports/*\n!reports/.gitkeep\n',
  'reports/.gitkeep': '',
  'README.md': '# ledger-py\n\nAccounts, fees, interest and statements.\n\n```sh\npython3 -m pytest --junitxml=reports/junit.xml\n```\n',
  'ledger/__init__.py': '"""The bank ledger."""\n',
  'ledger/money.py': moneyPy,
  'ledger/accounts.py': accountsPy,
  'ledger/fees.py': feesPy,
  'ledger/interest.py': interestPy,
  'ledger/statements.py': statementsPy,
  'tests/__init__.py': '',
  'tests/test_accounts.py': testAccounts,
  'tests/test_fees.py': testFees,
  'tests/test_interest.py': testInterest,
  'tests/test_statements.py': testStatements,
};

const offByOne: DemoChangeSpec = {
  kind: 'off_by_one',
  externalId: 'MR-57',
  branch: 'mr/57-simpler-page-count',
  title: 'Simplify statement page count',
  description:
    'The ceiling division in page_count reads like a puzzle. Replace it with the plain ' +
    '"full pages plus one for the remainder" form the statement designers use.',
  author: femi,
  authorKind: 'HUMAN',
  date: '2026-11-24T08:55:00Z',
  files: {
    'ledger/statements.py': statementsPy.replace(
      '    return (line_count + per_page - 1) // per_page\n',
      '    # full pages, plus one for the lines left over\n    return line_count // per_page + 1\n',
    ),
  },
  failingTests: [id('test_statements', 'test_page_count_exact_multiple'), id('test_statements', 'test_page_count_empty_statement')],
};

const wrongOperator: DemoChangeSpec = {
  kind: 'wrong_operator',
  externalId: 'MR-59',
  branch: 'mr/59-balance-by-kind',
  title: 'Compute balances from credit and debit totals',
  description:
    'Sums credits and debits separately so the statement footer can show both totals ' +
    'without walking the entries twice. Balance semantics are unchanged.',
  author: greta,
  authorKind: 'HUMAN',
  date: '2026-11-25T13:12:00Z',
  files: {
    'ledger/accounts.py': accountsPy.replace(
      `    def balance(self) -> Decimal:
        total = self.opening
        for entry in self.entries:
            if entry.kind in CREDIT_KINDS:
                total += entry.amount
            else:
                total -= entry.amount
        return total
`,
      `    def credits(self) -> Decimal:
        return sum((e.amount for e in self.entries if e.kind in CREDIT_KINDS), Decimal("0.00"))

    def debits(self) -> Decimal:
        return sum((e.amount for e in self.entries if e.kind in DEBIT_KINDS), Decimal("0.00"))

    def balance(self) -> Decimal:
        return self.opening - self.credits() - self.debits()
`,
    ),
  },
  failingTests: [id('test_accounts', 'test_deposits_add_to_the_balance'), id('test_accounts', 'test_refund_increases_the_balance')],
};

const staleExpectation: DemoChangeSpec = {
  kind: 'stale_expectation',
  externalId: 'MR-61',
  branch: 'mr/61-overdraft-fee-2027',
  title: 'Raise the overdraft fee to 35.00 for the 2027 price list',
  description:
    'Pricing approved the 2027 fee schedule (PRICE-2027-03): the overdraft fee goes from 25.00 ' +
    'to 35.00 from January. This is an intended behaviour change.',
  author: hiro,
  authorKind: 'HUMAN',
  date: '2026-11-26T09:40:00Z',
  files: {
    'ledger/fees.py': feesPy.replace(
      'OVERDRAFT_FEE = Decimal("25.00")',
      '# 2027 price list (PRICE-2027-03)\nOVERDRAFT_FEE = Decimal("35.00")',
    ),
  },
  failingTests: [id('test_fees', 'test_overdraft_fee_charged_when_negative')],
};

export const ledgerPy: DemoRepoSpec = {
  name: 'ledger-py',
  language: 'python',
  description: 'Bank ledger: accounts, fees, interest and statements (pytest).',
  main: {
    author: femi,
    date: '2026-11-16T09:00:00Z',
    message: 'ledger-py 0.9.0: accounts, fees, interest and statements',
    files: mainFiles,
  },
  junitPath: 'reports/junit.xml',
  settings: ledgerSettings,
  testCommand: ['python3', ...PYTEST.split(' ').slice(1)],
  changes: [offByOne, wrongOperator, staleExpectation],
};
