"""What an exercise's test cells run, and what `make check` prints for each cell.

    check_rule(globals(), "leaf_nodes", ["L3"])        # visible: public values
    grade(globals(), "leaf_nodes", ["L3"])             # hidden: fresh values, prints the report
    grade(globals(), "leaf_nodes", RULES, "cuda")      # "not run: no GPU on the grader" without one

The engine checked is minigrad itself with the student's functions of those rules bound in
(minigrad.seams.use) and the engine's own for every other graded function, so a cell's
verdict depends only on the functions its rules are about. It is checked against PyTorch on
the catalogue scenarios of the assignment's topic that name one of the rules, on a fresh seed
(or the one the grading pipeline chose, in $MINIGRAD_COURSE_SEED). Nothing reaches stderr
(nbgrader scores a test cell that writes to stderr 0): warnings raised while checking are
observations, not messages for the student's screen.
"""

from __future__ import annotations

import contextlib
import os
import warnings

import autograder
import minigrad
from autograder.engine import unimportable_copy
from autograder.report import NOT_RUN_NO_GPU
from coursekit.exercises.assignments import BY_NAME
from minigrad import _warnings, seams

ENGINE_NAME = "your engine"
# Set by the grading pipeline (coursekit/classroom) so that a regrade sees the same values.
SEED_VARIABLE = "MINIGRAD_COURSE_SEED"
PUBLIC_SEED = 2024  # the visible checks' values: the same for every student, every run


def require_gpu() -> None:
    """Stop a GPU test where there is no GPU: a skipped check is never a pass."""
    if not minigrad.cuda.is_available():
        raise AssertionError(NOT_RUN_NO_GPU)


@contextlib.contextmanager
def bound(namespace: dict, assignment: str, rules):
    """The engine with the functions of `rules` taken from `namespace`, restored after.

    In the class edition there is no reference to isolate them with: the engine is then all
    of the assignment's functions that `namespace` defines (the student's engine as written).
    """
    module = seams.module(assignment)
    previous = {name: getattr(module, name) for name in module.GRADED}  # the notebook's own
    names = seams.functions_for(assignment, rules)
    if seams.EDITION == "class":
        names = [name for name in module.GRADED if callable(namespace.get(name))]
    seams.reset(assignment)
    try:
        seams.use(assignment, namespace, names)
        yield unimportable_copy(minigrad, ENGINE_NAME)
    finally:
        seams.reset(assignment)
        seams.use(assignment, previous, list(previous))


def check_seams(namespace: dict, assignment: str, rules, device: str = "cpu", seed=None):
    """The Report of the student's functions of `rules` on (topic, rules, device)."""
    if seed is None and os.environ.get(SEED_VARIABLE):
        seed = int(os.environ[SEED_VARIABLE])  # the grading pipeline's seed for this run
    topic = BY_NAME[assignment].topic
    with bound(namespace, assignment, rules) as engine, warnings.catch_warnings():
        # scenarios that observe a once-only warning expect a fresh process: forget the
        # warnings this kernel has given already, as a fresh process would have it
        _warnings._already.clear()
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


def check_rule(namespace: dict, assignment: str, rules, device: str = "cpu") -> None:
    """A test cell's visible check: its rule's scenarios on the public seed, nothing printed
    when they pass; otherwise an AssertionError that names the rule in words, the lecture
    section and the first difference (what Validate and the notebook show). Grading runs the
    same scenarios again on fresh values."""
    report = check_seams(namespace, assignment, rules, device, seed=PUBLIC_SEED)
    passed, later = settled(report, assignment)
    if passed:
        if later:  # the class edition before those assignments: nothing to fix here yet
            print(waiting_note(later))
        return
    raise AssertionError(verdict(report, list(rules)))


def settled(report, assignment: str) -> tuple[bool, list]:
    """Whether the student's functions of `assignment` passed, and the scenarios that wait
    for another assignment's functions: in the class edition, before that one is built, a
    scenario that matched PyTorch up to its stub is neither passed nor failed (as in grading,
    which stubs the later assignments too); every other scenario must pass."""
    later = [r for r in report.waiting if r.waiting_for != assignment]
    passed = sum(r.passed for r in report.results)
    return report.passed or bool(later) and len(later) == len(report.results) - passed, later


def waiting_note(waiting) -> str:
    """Scenarios that need functions another assignment builds: checked once it is done."""
    parts = sorted({r.waiting_for for r in waiting})
    named = ", ".join(f"assignment {seams.ASSIGNMENTS.index(p) + 1} ({p})" for p in parts)
    return (
        f"{len(waiting)} scenario(s) also need {named}, not built yet: they run once it is, "
        "and grading counts them as here: matching PyTorch up to where they stop."
    )


def grade(namespace: dict, assignment: str, rules, device: str = "cpu", seed=None) -> None:
    """Print the report; raise AssertionError unless every selected scenario passed."""
    report = check_seams(namespace, assignment, rules, device, seed)
    line = verdict(report, list(rules))
    print(report_text(report))
    if not report.passed:
        raise AssertionError(line)
