"""flowfix's per-test line coverage for Python (agent/coverage/index.ts).

Copied into the run's tmp folder for one instrumented run of the target tests
and imported through a sitecustomize.py beside it (PYTHONPATH) and as a pytest
plugin (PYTEST_PLUGINS); nothing is written into the repository. Lines come
from sys.settrace (Python 3.11 has no sys.monitoring, and the `coverage`
package is not installed): only frames of files under the workspace root get
a line tracer, so the runner's own code costs one call per function call.
Tests are delimited by pytest's logstart/logfinish hooks, or by
unittest.TestCase.run when pytest is not running them. At exit one JSON file
per process lists each test's id, outcome and lines.
"""

import atexit
import json
import os
import sys
import threading

_ROOT = os.environ.get("REPAIR_COVERAGE_ROOT", "")
_OUT = os.environ.get("REPAIR_COVERAGE_DIR", "")
_SKIP = tuple(os.sep + d + os.sep for d in ("site-packages", "node_modules", ".venv", "venv", ".tox"))
_MAX_TESTS = 5000

_wanted = {}
_lines = set()
_records = []
_pytest = {"active": False, "outcomes": {}}


def _want(filename):
    hit = _wanted.get(filename)
    if hit is None:
        hit = bool(_ROOT) and filename.startswith(_ROOT + os.sep) and not any(s in filename for s in _SKIP)
        _wanted[filename] = hit
    return hit


def _local(frame, event, arg):
    if event == "line":
        _lines.add((frame.f_code.co_filename, frame.f_lineno))
    return _local


def _global(frame, event, arg):
    if _want(frame.f_code.co_filename):
        return _local
    return None


def _begin():
    _lines.clear()


def _end(test_id, name, file, outcome):
    if len(_records) < _MAX_TESTS:
        by_file = {}
        for filename, line in _lines:
            by_file.setdefault(os.path.relpath(filename, _ROOT), []).append(line)
        _records.append({"id": test_id, "name": name, "file": file, "outcome": outcome,
                         "lines": {f: sorted(ls) for f, ls in by_file.items()}})
    _lines.clear()


def _write():
    if not _records or not _OUT:
        return
    try:
        with open(os.path.join(_OUT, "python-%d.json" % os.getpid()), "w") as out:
            json.dump({"tests": _records}, out)
    except OSError:
        pass


# ── pytest (PYTEST_PLUGINS=flowfix_coverage) ──

def pytest_configure(config):
    _pytest["active"] = True


def pytest_runtest_logstart(nodeid, location):
    _pytest["outcomes"][nodeid] = "passed"
    _begin()


def pytest_runtest_logreport(report):
    outcomes = _pytest["outcomes"]
    if report.failed:
        outcomes[report.nodeid] = "failed"
    elif report.skipped and outcomes.get(report.nodeid) != "failed":
        outcomes[report.nodeid] = "skipped"


def pytest_runtest_logfinish(nodeid, location):
    file = nodeid.split("::", 1)[0]
    name = nodeid.split("::")[-1]
    _end(nodeid, name, file, _pytest["outcomes"].pop(nodeid, "passed"))


# ── unittest without pytest ──

def _patch_unittest():
    import unittest

    original = unittest.TestCase.run

    def run(self, result=None):
        if _pytest["active"] or result is None or not hasattr(result, "failures"):
            return original(self, result)
        before = (len(result.failures) + len(result.errors), len(result.skipped))
        _begin()
        try:
            return original(self, result)
        finally:
            after = (len(result.failures) + len(result.errors), len(result.skipped))
            outcome = "failed" if after[0] > before[0] else "skipped" if after[1] > before[1] else "passed"
            module = sys.modules.get(type(self).__module__)
            path = getattr(module, "__file__", None) or ""
            file = os.path.relpath(path, _ROOT) if path.startswith(_ROOT + os.sep) else ""
            _end(self.id(), self.id().rsplit(".", 1)[-1], file, outcome)

    unittest.TestCase.run = run


def install():
    if not _ROOT or not _OUT or getattr(sys, "_flowfix_coverage", False):
        return
    sys._flowfix_coverage = True
    _patch_unittest()
    atexit.register(_write)
    threading.settrace(_global)
    sys.settrace(_global)
