# flowfix coverage (agent/coverage/flowfix_coverage.py): on PYTHONPATH for one
# instrumented test run only, from the run's tmp folder.
import flowfix_coverage

flowfix_coverage.install()
