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
import html
import os
import shlex
import warnings
from dataclasses import dataclass

import autograder
import minigrad
from autograder.engine import unimportable_copy
from autograder.report import NOT_RUN_NO_GPU, lecture_link, lecture_section
from autograder.rules import statement
from coursekit.exercises.assignments import BY_NAME
from minigrad import _warnings, seams

ENGINE_NAME = "your engine"
# Set by the grading pipeline (coursekit/classroom) so that a regrade sees the same values.
SEED_VARIABLE = "MINIGRAD_COURSE_SEED"
PUBLIC_SEED = 2024  # the visible checks' values: the same for every student, every run
NOT_RUN_HERE = "CUDA: not run here (no GPU), not counted"


class NotPassed(AssertionError):
    """A test cell's verdict. Jupyter shows it as its text alone (IPython renders an
    exception's _render_traceback_ instead of the traceback), so Validate's dialog and the
    notebook show what to do, not the checker's frames."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


def gpu_here() -> bool:
    """A CUDA test cell's visible part runs only where there is a GPU; elsewhere it says so in
    one line and passes, since its points are not counted there (a CPU-only student has not
    failed anything). Grading never reads this: its CUDA check is the hidden test, which is
    never a pass without a GPU."""
    if minigrad.cuda.is_available():
        return True
    print(NOT_RUN_HERE)
    return False


@contextlib.contextmanager
def bound(namespace: dict, assignment: str, rules):
    """The engine with the functions of `rules` taken from `namespace`, restored after.

    In the class edition there is no reference to isolate them with: the engine is then all
    of the assignment's functions that `namespace` defines (the student's engine as written);
    one still as released raises seams.not_written, and what stops there is not confirmed
    (judge) rather than failed.
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


@dataclass(frozen=True)
class Judgement:
    """A test cell's verdict in one of four words, and what the student reads about it.

    status: "passed"; "failed"; "not confirmed" (nothing failed, but some scenarios stopped at
    a function of this notebook that is not written yet and that the cell does not grade:
    grading uses the course's own there, a check here cannot); "not run" (a CUDA cell where
    there is no GPU: never a pass, never counted as a failure of CPU work).
    """

    status: str
    text: str
    points: float  # the weights of the scenarios checked: the test cell's points
    unwritten: tuple[str, ...] = ()  # the functions that left it not confirmed
    note: str = ""  # passed, with scenarios that wait for a later assignment: which

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def judge(report, assignment: str, rules) -> Judgement:
    """Passed, failed, not confirmed or not run, from a Report of the cell's scenarios.

    A scenario waiting for a later assignment (the class edition before it is built) matched
    PyTorch up to there: grading stubs the later assignments too and counts it the same way.
    One waiting for a function of this assignment counts against the cell when the cell
    grades that function (the student's answer is missing), and leaves the cell not confirmed
    otherwise."""
    rules = list(rules)
    points = sum(r.weight for r in report.results)
    if report.results and all(r.status == "not run" for r in report.results):
        return Judgement("not run", NOT_RUN_HERE, points)
    graded_here = set(seams.functions_for(assignment, rules))
    missing, unconfirmed = set(), set()
    for r in report.waiting:
        owner, function = seams.waiting_parts(r.waiting_for)
        if owner != assignment:
            continue
        (missing if not function or function in graded_here else unconfirmed).add(function)
    named = ", ".join(rules)
    if not report.failures and not missing:
        if unconfirmed:
            names = sorted(unconfirmed)
            text = (
                f"NOT CONFIRMED: rule {named} ({points:g} points): not confirmed until you write "
                f"{_listed(names)}\nIts scenarios call {_them(names)}, and {_it(names)} still "
                "raises NotImplementedError. Grading uses the course's own there: these points "
                "depend only on the functions this cell grades."
            )
            return Judgement("not confirmed", text, points, tuple(names))
        text = f"PASSED: rule {named} ({len(report.results)} scenarios)"
        later = [r for r in report.waiting if seams.waiting_parts(r.waiting_for)[0] != assignment]
        return Judgement("passed", text, points, note=waiting_note(later) if later else "")
    return Judgement("failed", failure_text(report, rules, sorted(n for n in missing if n)), points)


def _listed(names) -> str:
    return " and ".join(f"{n}()" for n in names)


def _them(names) -> str:
    return "them" if len(names) > 1 else "it"


def _it(names) -> str:
    return "each" if len(names) > 1 else "it"


def failure_text(report, rules, unwritten=(), more="") -> str:
    """What Validate, `check` and graded feedback say of a failed cell: each failing rule once
    in words, where the lecture teaches it, the first difference (PyTorch's output next to
    the engine's), then how many more there are and where they are listed (`more`; default:
    the check command that lists them)."""
    failing = [r for r in report.results if not r.passed and r.status != "not run"]
    failing = failing or report.failures
    rows = report.by_rule
    failed_rules = [rule for rule in rules if rows.get(rule, {}).get("failed")] or list(rules)
    lines = [f"NOT PASSED: rule {', '.join(failed_rules)}"]
    for rule in failed_rules:
        where = next((f.lecture for f in failing if rule in f.rules), failing[0].lecture)
        lines.append(f"{rule}: {statement(rule)}")
        lines.append(f"Reread {lecture_section(where)}")
    if unwritten:  # what decided it: no difference to show, a function to write
        lines.insert(1, f"{_listed(unwritten)} not written yet: {_it(unwritten)} still raises "
                     "NotImplementedError; write it in its answer cell, then run the notebook "
                     "again.")  # fmt: skip
        return "\n".join(lines)
    first = failing[0]
    diffs = first.differences
    if diffs:
        diff = diffs[0]
        head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
        lines.append(f"First difference ({first.id}), {head}:")
        lines.append(f"  PyTorch:     {diff['reference']}")
        lines.append(f"  your engine: {diff['engine']}")
    elif first.note:
        lines.append(f"{first.id}: {first.note}")
    count = len(diffs[1:]) + sum(len(f.differences) or 1 for f in failing[1:])
    if count:
        where = more or f"{check_command(verbose=True)} lists them"
        lines.append(f"and {count} more ({where})")
    return "\n".join(lines)


def check_command(notebook=None, seed=None, verbose=False) -> str:
    """The `check` command as this installation runs it: the clone's `make check` (from its
    root; no NB checks every fetched copy), else the package's `minigrad-course check` (the
    notebook's path, or its name in its own folder)."""
    from coursekit.content import CLONE, INSTALLED

    if (CLONE / "Makefile").is_file() and not INSTALLED.is_dir():
        parts = ["make check"]
        parts += [f"NB={shlex.quote(str(notebook))}"] if notebook else []
        parts += [f"SEED={seed}"] if seed is not None else []
        return " ".join(parts + (["VERBOSE=1"] if verbose else []))
    parts = ["minigrad-course check"] + (["--verbose"] if verbose else [])
    parts += [f"--seed {seed}"] if seed is not None else []
    return " ".join(parts + [shlex.quote(str(notebook)) if notebook else "NOTEBOOK"])


def verdict(report, rules) -> str:
    """The one verdict text of a report on `rules` (the sealed grade's, which binds only the
    functions of `rules`: nothing there waits for this notebook)."""
    if report.passed:
        return f"PASSED: rule {', '.join(rules)} ({len(report.results)} scenarios)"
    if report.results and all(r.status == "not run" for r in report.results):
        return NOT_RUN_NO_GPU
    return failure_text(report, list(rules), more="the full report lists them")


def report_text(report) -> str:
    """The full report for failures; one line when all passed or nothing could run."""
    if report.passed or all(r.status == "not run" for r in report.results):
        return report.summary()
    return str(report)


def check_rule(namespace: dict, assignment: str, rules, device: str = "cpu") -> None:
    """A test cell's visible check: its rule's scenarios on the public seed, nothing printed
    when they pass; otherwise an AssertionError whose text is the verdict (judge): the rule in
    words, the lecture section and the first difference, or which function to write first.
    Grading runs the same scenarios again on fresh values."""
    report = check_seams(namespace, assignment, rules, device, seed=PUBLIC_SEED)
    judgement = judge(report, assignment, rules)
    if judgement.passed:
        if judgement.note:  # the class edition, before a later assignment is built
            print(judgement.note)
        return
    _show_sections(report)
    raise NotPassed(judgement.text)


def _show_sections(report) -> None:
    """In Jupyter, the sections to reread as links that open them (a notebook's error text is
    not a link; Validate shows the same sections by their headings and paths)."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        return
    if get_ipython() is None:
        return
    links = []
    for lecture in dict.fromkeys(r.lecture for r in report.results if not r.passed):
        title, href = lecture_link(lecture)
        if href and title:
            links.append(f'<a href="{html.escape(href)}">{html.escape(title)}</a>')
    if links:
        display(HTML("Reread: " + ", ".join(links)))


def waiting_note(waiting) -> str:
    """Scenarios that need functions another assignment builds: checked once it is done."""
    parts = sorted({seams.waiting_parts(r.waiting_for)[0] for r in waiting})
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
