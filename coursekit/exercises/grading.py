"""What an exercise's hidden test cell runs, and what `make check` prints for each cell.

    grade(globals(), "leaf", ["L3"])            # CPU: passes or raises AssertionError
    grade(globals(), "leaf", RULES, "cuda")     # "not run: no GPU on the grader" without a GPU

The student's engine is adapted with autograder.engine_from and checked against PyTorch on
the catalogue scenarios of that topic which name one of the rules, on a fresh seed (or the
one the grading pipeline chose, in $MINIGRAD_COURSE_SEED). Nothing
reaches stderr (nbgrader scores a test cell that writes to stderr 0): warnings raised while
checking are observations, not messages for the student's screen.
"""

from __future__ import annotations

import os
import warnings

import autograder
from autograder.report import NOT_RUN_NO_GPU

ENGINE_NAME = "engine"
# Set by the grading pipeline (coursekit/classroom) so that a regrade sees the same values.
SEED_VARIABLE = "MINIGRAD_COURSE_SEED"
PUBLIC_SEED = 2024  # the visible checks' values: the same for every student, every run


def check_notebook_engine(namespace: dict, topic: str, rules, device: str = "cpu", seed=None):
    """The Report of the engine defined in `namespace` on (topic, rules, device)."""
    # The scenarios that observe a once-only warning expect a fresh process; the engine in a
    # notebook cannot be re-imported in one, so its record of warnings given is emptied, as
    # a fresh process would have it.
    namespace.get("WARNED_ONCE", set()).clear()
    if seed is None and os.environ.get(SEED_VARIABLE):
        seed = int(os.environ[SEED_VARIABLE])  # the grading pipeline's seed for this run
    engine = autograder.engine_from(namespace, name=ENGINE_NAME)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return autograder.check(engine, rules=list(rules), topics=[topic], device=device, seed=seed)


def verdict(report, rules) -> str:
    """What passed, or which rules did not, in words, where to reread them, and the first
    difference (what Validate shows under a failed cell)."""
    if report.passed:
        return f"PASSED: rule {', '.join(rules)} ({len(report.results)} scenarios)"
    if report.results and all(r.status == "not run" for r in report.results):
        return NOT_RUN_NO_GPU
    failed = [rule for rule, row in report.by_rule.items() if rule in rules and row["failed"]]
    return f"NOT PASSED: rule {', '.join(failed or rules)}\n{report.explanation(rules)}"


def report_text(report) -> str:
    """The full report for failures; one line when all passed or nothing could run."""
    if report.passed or all(r.status == "not run" for r in report.results):
        return report.summary()
    return str(report)


def check_rule(namespace: dict, topic: str, rules, device: str = "cpu") -> None:
    """A test cell's visible check: its rule's scenarios on the public seed, nothing printed
    when they pass; otherwise an AssertionError that names the rule in words, the lecture
    section and the first difference (what Validate and the notebook show). Grading runs the
    same scenarios again on fresh values."""
    report = check_notebook_engine(namespace, topic, rules, device, seed=PUBLIC_SEED)
    if not report.passed:
        raise AssertionError(verdict(report, list(rules)))


def grade(namespace: dict, topic: str, rules, device: str = "cpu", seed=None) -> None:
    """Print the report; raise AssertionError unless every selected scenario passed."""
    report = check_notebook_engine(namespace, topic, rules, device, seed)
    line = verdict(report, list(rules))
    print(report_text(report))
    if not report.passed:
        raise AssertionError(line)
