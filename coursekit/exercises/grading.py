"""What an exercise's test cells run, and what `make check` prints for each cell.

    check_rule(globals(), "leaf_nodes", ["L3"])        # visible: public values
    grade(globals(), "leaf_nodes", ["L3"])             # hidden: fresh values, prints the report
    grade(globals(), "leaf_nodes", RULES, "cuda")      # "not run: no GPU on the grader" without one

grade() shows its verdict as data too (verdict_data.py), for the grading pipeline; what it
prints and raises is in the notebook's language, as Validate's.

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
import functools
import html
import json
import os
import shlex
import warnings
from dataclasses import dataclass
from pathlib import Path

import autograder
import minigrad
from autograder.diagnoses import sentence
from autograder.engine import unimportable_copy
from autograder.observe import observe_scenario
from autograder.report import compared_lines, lecture_link, lecture_section
from autograder.rules import statement
from autograder.scenarios import select
from coursekit.exercises import verdict_data
from coursekit.exercises.assignments import BY_NAME
from coursekit.feedback_graphs import show_graph
from coursekit.i18n import N_, _, ngettext, speaking
from coursekit.languages import notebook_language
from minigrad import _warnings, seams

ENGINE_NAME = N_("your engine")  # the report says it through _()
# Set by the grading pipeline (coursekit/classroom) so that a regrade sees the same values.
SEED_VARIABLE = "MINIGRAD_COURSE_SEED"
PUBLIC_SEED = 2024  # the visible checks' values: the same for every student, every run
NOT_RUN_HERE = N_("CUDA: not run here (no GPU), not counted")  # shown through _()


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
    here = next((name for name in BY_NAME if Path(f"{name}.ipynb").is_file()), "")
    with speaking(kernel_notebook_language(here)):  # the exercise notebook in its folder
        print(_(NOT_RUN_HERE))
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


def other_failures(namespace: dict, assignment: str, rules, report) -> dict:
    """The class edition's failing scenarios of `report` that ran another function of the
    student's (one the cell does not grade) which fails its own rule: scenario id -> those
    functions. Grading uses the course's own there, so such a failure is not the cell's to
    decide (judge). Which functions a scenario ran is recorded, not guessed. The clone binds
    the course's own for them already: {} there."""
    if seams.EDITION != "class" or not report.failures:
        return {}
    own = seams.functions_for(assignment, rules)
    others = [n for n in seams.graded(assignment) if n not in own and callable(namespace.get(n))]
    ids = [r.id for r in report.failures]
    ran = functions_ran(namespace, assignment, rules, ids, report.seed, report.device, others)
    called = sorted(set().union(*ran.values()))
    failing = {n for n in called if _fails_its_own_rule(namespace, assignment, n, own, report)}
    return {sid: tuple(sorted(ran[sid] & failing)) for sid in ids if ran[sid] & failing}


def _fails_its_own_rule(namespace, assignment, name, own, report) -> bool:
    """Whether `name`'s own rules fail here (same values) where the judged cell's functions
    (`own`) are not to blame: in a scenario that runs none of them, or only ones that pass a
    rule of theirs in full. A wrong function whose mistake fails another's rule in turn
    (every scenario runs both) is then not excused by that other function's failure."""
    its_rules = list(seams.graded(assignment)[name])
    failed = check_seams(namespace, assignment, its_rules, report.device, report.seed).failures
    if not failed:
        return False
    ids = [r.id for r in failed]
    ran = functions_ran(namespace, assignment, its_rules, ids, report.seed, report.device, own)
    trusted = {f for f in own if _passes_a_rule(namespace, assignment, f, report)}
    return any(ran[sid] <= trusted for sid in ids)


def _passes_a_rule(namespace, assignment, name, report) -> bool:
    """Whether a rule of `name` fails nowhere (scenarios that wait for a later assignment
    aside, as judge counts them) on the same values."""
    for rule in seams.graded(assignment)[name]:
        checked = check_seams(namespace, assignment, [rule], report.device, report.seed)
        if not checked.failures and any(r.passed for r in checked.results):
            return True
    return False


def functions_ran(namespace, assignment, rules, scenario_ids, seed, device, names) -> dict:
    """Which of `names` (the assignment's functions bound from `namespace`) each scenario
    calls: each scenario run again alone, with those functions wrapped to note their calls."""
    module = seams.module(assignment)
    out = {}
    with bound(namespace, assignment, rules) as engine, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        functions = {name: getattr(module, name) for name in names}
        for sc in select(ids=list(scenario_ids)):
            ran: set[str] = set()
            for name, fn in functions.items():
                setattr(module, name, _noting(fn, name, ran))
            try:
                _warnings._already.clear()
                observe_scenario(engine, sc, seed, device)
            finally:
                for name, fn in functions.items():
                    setattr(module, name, fn)
            out[sc.id] = frozenset(ran)
    return out


def _noting(fn, name: str, ran: set):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        ran.add(name)
        return fn(*args, **kwargs)

    return call


@dataclass(frozen=True)
class Judgement:
    """A test cell's verdict in one of four words, and what the student reads about it.

    status: "passed"; "failed"; "not confirmed" (what stopped or failed its scenarios is a
    function of this notebook that the cell does not grade, not written yet or failing its
    own rule: grading uses the course's own there, a check here cannot); "not run" (a CUDA
    cell where there is no GPU: never a pass, never counted as a failure of CPU work).
    """

    status: str
    text: str
    points: float  # the weights of the scenarios checked: the test cell's points
    unwritten: tuple[str, ...] = ()  # the functions not written that left it not confirmed
    note: str = ""  # passed, with scenarios that wait for a later assignment: which
    failing: tuple[str, ...] = ()  # the other functions, failing their own rules, that did

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def judge(report, assignment: str, rules, others=None) -> Judgement:
    """Passed, failed, not confirmed or not run, from a Report of the cell's scenarios.

    A scenario waiting for a later assignment (the class edition before it is built) matched
    PyTorch up to there: grading stubs the later assignments too and counts it the same way.
    One waiting for a function of this assignment counts against the cell when the cell
    grades that function (the student's answer is missing), and leaves the cell not confirmed
    otherwise. `others` (other_failures) names, per failing scenario, the student's other
    functions it ran that fail their own rules: when every failure ran one, the cell is not
    confirmed; one failure that ran none fails it."""
    rules = list(rules)
    points = sum(r.weight for r in report.results)
    if report.results and all(r.status == "not run" for r in report.results):
        return Judgement("not run", _(NOT_RUN_HERE), points)
    graded_here = set(seams.functions_for(assignment, rules))
    missing, unconfirmed = set(), set()
    for r in report.waiting:
        owner, function = seams.waiting_parts(r.waiting_for)
        if owner != assignment:
            continue
        (missing if not function or function in graded_here else unconfirmed).add(function)
    others = others or {}
    failing = set()
    if report.failures and all(others.get(r.id) for r in report.failures):
        failing = {name for r in report.failures for name in others[r.id]}
    named = ", ".join(rules)
    if (not report.failures or failing) and not missing:
        if unconfirmed or failing:
            names, failing = sorted(unconfirmed), sorted(failing)
            text = _(
                "NOT CONFIRMED: rule {rules} ({points} points): {until}\n{why} Grading uses "
                "the course's own there: these points depend only on the functions this cell "
                "grades."
            ).format(
                rules=named,
                points=f"{points:g}",
                until=until(names, failing, assignment),
                why=_why(names, failing),
            )
            return Judgement("not confirmed", text, points, tuple(names), failing=tuple(failing))
        text = passed_text(rules, len(report.results))
        later = [r for r in report.waiting if seams.waiting_parts(r.waiting_for)[0] != assignment]
        return Judgement("passed", text, points, note=waiting_note(later) if later else "")
    return Judgement("failed", failure_text(report, rules, sorted(n for n in missing if n)), points)


def passed_text(rules, scenarios: int) -> str:
    """A passed cell's verdict: "PASSED: rule L3 (12 scenarios)"."""
    return _("PASSED: rule {rules} ({n} scenarios)").format(rules=", ".join(rules), n=scenarios)


def until(unwritten, failing, assignment: str) -> str:
    """What confirms a cell: "not confirmed until you write f() and g() passes its own rule
    (L4)"."""
    parts = [_("you write {functions}").format(functions=_listed(unwritten))] if unwritten else []
    for name in failing:
        own = seams.graded(assignment)[name]
        text = ngettext(
            "{function}() passes its own rule ({rules})",
            "{function}() passes its own rules ({rules})",
            len(own),
        )
        parts.append(text.format(function=name, rules=", ".join(own)))
    return _("not confirmed until {conditions}").format(conditions=_and().join(parts))


def _why(unwritten, failing) -> str:
    reasons = []
    if unwritten:
        text = ngettext(
            "{functions} still raises NotImplementedError",
            "{functions} still raise NotImplementedError",
            len(unwritten),
        )
        reasons.append(text.format(functions=_listed(unwritten)))
    if failing:
        text = ngettext(
            "{functions} fails its own rule", "{functions} fail their own rules", len(failing)
        )
        reasons.append(text.format(functions=_listed(failing)))
    text = ngettext(
        "Its scenarios call it, and {reasons}.",
        "Its scenarios call them, and {reasons}.",
        len([*unwritten, *failing]),
    )
    return text.format(reasons=_and().join(reasons))


def _and() -> str:
    return _(" and ")


def _listed(names) -> str:
    return _and().join(f"{n}()" for n in names)


def failure_text(report, rules, unwritten=(), more="") -> str:
    """What Validate, `check` and graded feedback say of a failed cell: each failing rule once
    in words, where the lecture teaches it, the first difference (PyTorch's output next to
    the engine's), then how many more there are and where they are listed (`more`; default:
    the check command that lists them)."""
    failing = [r for r in report.results if not r.passed and r.status != "not run"]
    failing = failing or report.failures
    rows = report.by_rule
    failed_rules = [rule for rule in rules if rows.get(rule, {}).get("failed")] or list(rules)
    lines = [_("NOT PASSED: rule {rules}").format(rules=", ".join(failed_rules))]
    for rule in failed_rules:
        where = next((f.lecture for f in failing if rule in f.rules), failing[0].lecture)
        lines.append(f"{rule}: {_(statement(rule))}")
        lines.append(_("Reread {section}").format(section=lecture_section(where)))
    lines += [sentence(d) for d in report.diagnoses]  # the likely mistake, after the rule
    if unwritten:  # what decided it: no difference to show, a function to write
        text = ngettext(
            "{functions} not written yet: it still raises NotImplementedError; write it in "
            "its answer cell, then run the notebook again.",
            "{functions} not written yet: each still raises NotImplementedError; write it in "
            "its answer cell, then run the notebook again.",
            len(unwritten),
        )
        lines.insert(1, text.format(functions=_listed(unwritten)))
        return "\n".join(lines)
    first = failing[0]
    diffs = first.differences
    if diffs:
        diff = diffs[0]
        head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
        lines.append(
            _("First difference ({scenario}), {what}:").format(scenario=first.id, what=head)
        )
        lines += compared_lines(diff["reference"], diff["engine"])
    elif first.note:
        lines.append(f"{first.id}: {first.note}")
    count = len(diffs[1:]) + sum(len(f.differences) or 1 for f in failing[1:])
    if count:
        where = more or _("{command} lists them").format(command=check_command(verbose=True))
        lines.append(_("and {count} more ({where})").format(count=count, where=where))
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
        return passed_text(rules, len(report.results))
    if report.results and all(r.status == "not run" for r in report.results):
        return verdict_data.reason_text(verdict_data.NO_GPU)
    return failure_text(report, list(rules), more=_("the full report lists them"))


def report_text(report) -> str:
    """The full report for failures; one line when all passed or nothing could run."""
    if report.passed or all(r.status == "not run" for r in report.results):
        return report.summary()
    return str(report)


def check_rule(namespace: dict, assignment: str, rules, device: str = "cpu") -> None:
    """A test cell's visible check: its rule's scenarios on the public seed, nothing printed
    when they pass; otherwise an AssertionError whose text is the verdict (judge): the rule in
    words, the lecture section and the first difference, or which function to write first
    (or which to make pass its own rule first: other_failures). Grading runs the same
    scenarios again on fresh values."""
    report = check_seams(namespace, assignment, rules, device, seed=PUBLIC_SEED)
    others = other_failures(namespace, assignment, rules, report)
    with speaking(kernel_notebook_language(assignment)):
        judgement = judge(report, assignment, rules, others)
        _answer(judgement, report)


def _answer(judgement: Judgement, report) -> None:
    if judgement.passed:
        if judgement.note:  # the class edition, before a later assignment is built
            print(judgement.note)
        return
    _show_sections(report)
    show_graph(report)
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
        display(HTML(html.escape(_("Reread: ")) + ", ".join(links)))


def waiting_note(waiting) -> str:
    """Scenarios that need functions another assignment builds: checked once it is done."""
    parts = sorted({seams.waiting_parts(r.waiting_for)[0] for r in waiting})
    named = ", ".join(
        _("assignment {number} ({name})").format(number=seams.ASSIGNMENTS.index(p) + 1, name=p)
        for p in parts
    )
    return _(
        "{count} scenario(s) also need {assignments}, not built yet: they run once it is, "
        "and grading counts them as here: matching PyTorch up to where they stop."
    ).format(count=len(waiting), assignments=named)


def grade(namespace: dict, assignment: str, rules, device: str = "cpu", seed=None) -> None:
    """Show the verdict as data (verdict_data: what the grading pipeline reads), print the
    report in the notebook's language; raise AssertionError, its text the verdict, unless
    every selected scenario passed."""
    report = check_seams(namespace, assignment, rules, device, seed)
    verdict_data.show(verdict_data.of_report(report))
    with speaking(kernel_notebook_language(assignment)):
        line = verdict(report, list(rules))
        print(report_text(report))
    if not report.passed:
        raise AssertionError(line)


def kernel_notebook_language(assignment: str) -> str:
    """The language of the notebook this kernel runs, which Validate and `check` answer in:
    read from the notebook's metadata (coursekit/languages.py), the notebook found as every
    route lays it out, named after its assignment in the kernel's folder (fetched, started,
    submitted). English where there is no such notebook."""
    try:
        nb = json.loads(Path(f"{assignment}.ipynb").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "en"
    return notebook_language(nb)
