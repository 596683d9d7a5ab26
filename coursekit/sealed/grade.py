"""The trusted parent of a sealed run: per-test-cell scores no student code can influence.

    contract = Contract.from_notebook(source_notebook)          # the instructor's, trusted
    result = grade_notebook(contract, "submitted/alice/leaf_nodes/leaf_nodes.ipynb")
    result.cells["test_L3"].points, result.notes, result.seed   # JSON: result.to_json()

The student's answer cells and the scenarios run in the sandbox (sandbox.py) on a seed this
process chose; they send back plain JSON observations. This process runs the same scenarios
on PyTorch with the same seed, compares (autograder.compare) and gives each test cell its
points when every scenario it checks matched. Nothing the child sends is executed or
unpickled; a malformed or missing observation is a difference, never a pass.

What it writes for people (verdicts, feedback, notes) is in the language being spoken
(coursekit.i18n.speaking: SealedExecute speaks the class's), here in the trusted process,
from the data the sandbox returned; the sandbox's checker, without the course, speaks English
and is never asked for words. Statuses, scenario ids, rule ids and reasons stay as they are.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import re
import secrets
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from autograder.compare import compare_scenario
from autograder.graph_diff import compared
from autograder.observe import observe
from autograder.report import Report, ScenarioResult
from autograder.scenarios import REGISTRY, load_catalogue
from coursekit.exercises import verdict_data
from coursekit.exercises.grading import ENGINE_NAME, judge, passed_text, verdict, waiting_note
from coursekit.i18n import N_, _
from coursekit.sealed.contract import Contract, TestCell
from coursekit.sealed.sandbox import (
    Limits,
    Outcome,
    Sandbox,
    layers,
    missing_layers,
    staged_engine,
)
from coursekit.sealed.submission import Program, assemble

RUN_IT_TO_READ = N_("run the cell in your notebook to read its message")
MAGIC_IGNORED = N_("IPython magic or shell lines were ignored")
# the exceptions whose type a note names (Python's own and the engine's "not built yet"):
# a class of the submission's own could carry any text in its name
_PYTHON_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
) | {"SeamNotBuilt", "Timeout"}  # fmt: skip
_MISSING_MODULE = re.compile(r"No module named '([A-Za-z_][\w.]{0,60})'")
# the most of one of the engine's texts (a value, an error message) a difference shows
ENGINE_TEXT_LIMIT = 300
IMPORTABLE = N_(
    "a graded notebook can import Python's standard library, NumPy and minigrad (the engine "
    "you are building), nothing else"
)
# a cell of the program, named as a note says it
CELL_NAMED = {"answer": N_("answer cell {cell}"), "given": N_("given cell {cell}")}


@dataclass
class CellScore:
    grade_id: str
    points: float
    max_points: float
    status: str  # "passed", "failed" or "not run"
    verdict: str  # one line: "PASSED: ...", "NOT PASSED: rule L3 ...", or why not run
    feedback: str  # what the student reads under the test cell (no hidden test source)
    scenarios: list[str] = field(default_factory=list)  # the scenario ids it checked
    failed: list[str] = field(default_factory=list)  # those not passed (not run included)
    # the likely mistakes behind a failed cell, best first (autograder/diagnoses.py)
    diagnoses: list[dict] = field(default_factory=list)
    # PyTorch's graph beside the engine's, for its first failure that involves one
    graph: dict | None = None
    reason: str = ""  # why "not run": a key of verdict_data.REASONS

    def verdict_json(self) -> dict:
        """What the class pipeline stores of this cell (the feedback text stays in outputs)."""
        data = asdict(self)
        del data["feedback"], data["graph"]  # both are shown in the cell's outputs
        return data


@dataclass
class SealedResult:
    notebook: str
    seed: int
    cells: dict[str, CellScore]  # test cells by grade_id
    notes: list[str] = field(default_factory=list)  # for the student and the instructor
    layers: dict[str, str] = field(default_factory=dict)
    answer_errors: dict[str, str] = field(default_factory=dict)  # answer grade_id -> error

    @property
    def score(self) -> float:
        return sum(c.points for c in self.cells.values())

    @property
    def max_score(self) -> float:
        return sum(c.max_points for c in self.cells.values())

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> SealedResult:
        data = json.loads(text)
        data["cells"] = {k: CellScore(**v) for k, v in data["cells"].items()}
        return cls(**data)


def grade_notebook(
    contract: Contract, submission, seed: int | None = None, limits: Limits | None = None
) -> SealedResult:
    """Grade one submitted notebook (a path, or the notebook as a dict) in a sealed run.

    Never raises for anything in the submission: what could not be graded scores 0 and is
    explained in `notes` and in each cell's feedback. seed None draws a fresh one.
    """
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    result = SealedResult(contract.name, seed, {}, layers=dict(layers()))
    degraded = missing_layers()
    if degraded:
        result.notes.append(
            _("SEALED RUN DEGRADED, layers missing: {layers}").format(layers="; ".join(degraded))
        )
    if isinstance(submission, dict):
        notebook, problem = _checked(submission)
    else:
        path = Path(submission)
        if path.stem != contract.name:
            result.notes.append(
                _("notebook submitted as {submitted}, graded as {graded}").format(
                    submitted=repr(path.name), graded=f"{contract.name}.ipynb"
                )
            )
        notebook, problem = _read_notebook(path)
    if notebook is None:
        result.notes.append(
            _("the submission could not be read: {problem}").format(problem=problem)
        )
        for test in contract.tests:
            text = _("NOT PASSED: {problem}").format(problem=problem)
            result.cells[test.grade_id] = _zero(test, "failed", text)
        return result
    program = assemble(contract, notebook)
    result.notes.extend(program.notes)
    gpu = _gpu_available()
    for device in ("cpu", "cuda"):
        tests = [t for t in contract.tests if t.device == device]
        if not tests:
            continue
        if device == "cuda" and not gpu:
            for test in tests:
                text = verdict_data.reason_text(verdict_data.NO_GPU)
                result.cells[test.grade_id] = _zero(test, "not run", text, verdict_data.NO_GPU)
            continue
        _grade_device(tests, program, device, seed, limits or Limits(), result)
    return result


def _grade_device(tests, program: Program, device: str, seed: int, limits, result) -> None:
    """One group per set of bound functions: a cell's verdict depends only on the student's
    functions of its rules (the group's staged engine has stubs for those and for every
    later assignment, and the reference, as bytecode, for the rest), and no group holds the
    reference of what it grades (each isolated from the others: _sealed_runs)."""
    load_catalogue()
    groups: dict[tuple, set[str]] = {}
    for test in tests:
        for check in test.checks:
            groups.setdefault(_bind_key(check), set()).update(check.scenario_ids())
    observed, why, notes = {}, {}, []
    cell_reports = None
    needs = {sid: REGISTRY[sid].needs for ids in groups.values() for sid in ids}
    base = {"cells": program.cells, "seed": seed, "device": device, "needs": needs,
            "cell_s": limits.cell_s, "scenario_s": limits.scenario_s}  # fmt: skip
    for key, outcome in _sealed_runs(base, groups, limits, device).items():
        ids = sorted(groups[key])
        reports, seen, channel_notes = _read_outcome(outcome, ids)
        if cell_reports is None:  # the same cells run in every group: report them once
            cell_reports = reports
        bind = [r for r in reports if r.get("id") == "bind" and r.get("status") != "ok"]
        notes += [n for n in channel_notes + _cell_notes(bind, program) if n not in notes]
        observed.update({(key, sid): seen[sid] for sid in seen})
        why[key] = outcome.problem or ""
    cell_reports = [r for r in cell_reports or [] if r.get("id") != "bind"]
    cell_notes = _cell_notes(cell_reports, program)
    result.notes.extend(notes + cell_notes)
    for report in cell_reports:
        if report.get("kind") == "answer" and report.get("status") != "ok":
            result.answer_errors[str(report.get("id"))] = _error_text(report)
    all_ids = sorted({sid for ids in groups.values() for sid in ids})
    reference = _reference(tuple(all_ids), seed, device)
    waits = {a: course_order_waits(a, tuple(sorted(ids)), device)
             for a, ids in _ids_by_assignment(groups).items()}  # fmt: skip
    for test in tests:
        scenario_results = []
        for check in test.checks:
            key = _bind_key(check)
            for sid in check.scenario_ids():
                engine = observed.get((key, sid))
                diffs = _differences(reference["scenarios"][sid], engine, device)
                missing = why[key] and (key, sid) not in observed
                note = _("not observed ({why})").format(why=why[key]) if missing else ""
                wait = waits.get(key[0], {}).get(sid) if key else None
                if wait and _waits_as_expected(reference["scenarios"][sid], engine, diffs, wait):
                    scenario_results.append(_waiting_result(sid, wait))
                else:
                    scored = _scenario_result(sid, diffs, note)
                    scored.graph = compared(reference["scenarios"][sid], engine, diffs)
                    scenario_results.append(scored)
        report = Report(ENGINE_NAME, device, seed, _torch_version(), scenario_results,
                        notes=cell_notes + notes)  # fmt: skip
        rules = sorted({r for c in test.checks for r in (c.rules or ())})
        # as Validate judges it, and never for scenarios that all wait: points for nothing
        passed = (
            any(r.passed for r in scenario_results)
            and judge(report, test.checks[0].seams or "", rules).passed
        )
        result.cells[test.grade_id] = CellScore(
            grade_id=test.grade_id,
            points=test.points if passed else 0.0,
            max_points=test.points,
            status="passed" if passed else "failed",
            verdict=_passed_verdict(report, rules) if passed else verdict(report, rules),
            feedback=_feedback(report, rules, passed),
            scenarios=[r.id for r in scenario_results],
            failed=[r.id for r in scenario_results if r.status != "passed"],
            diagnoses=[] if passed else report.diagnoses,
            graph=None if passed else report.graph,
        )


# Why groups cannot share a sandbox on this machine (isolation.py), once found out.
_SHARING_REFUSED: list[str] = []


def _sealed_runs(base: dict, groups: dict, limits, device: str) -> dict:
    """Each group's Outcome: one sandbox whose child isolates each group (isolation.py), or
    one sandbox per group where that cannot be done here (no namespace layer, a kernel that
    refuses a user namespace inside it, a GPU run)."""
    keys = list(groups)
    specs = {key: {"scenarios": sorted(groups[key])} for key in keys}
    for (assignment, functions), spec in ((k, specs[k]) for k in keys if k):
        spec["bind"] = {"assignment": assignment, "functions": list(functions)}
    engines = {key: staged_engine(*key) if key else None for key in keys}
    gpu, outcomes = device == "cuda", {}
    # a GPU run keeps a sandbox per group: its driver reads /proc, which a group has covered,
    # and sharing has never run on a GPU
    if len(keys) > 1 and not gpu and layers()["namespace"] == "active" and not _SHARING_REFUSED:
        with Sandbox(limits, gpu=gpu, engines=[engines[k] for k in keys]) as box:
            shared = box.run_groups(base, [specs[k] for k in keys])
        if shared[0].isolation_failed:  # before any student code ran: this kernel refuses
            _SHARING_REFUSED.append(shared[0].isolation_failed)
        outcomes = {k: o for k, o in zip(keys, shared, strict=True) if not o.isolation_failed}
    for key in keys:
        if key not in outcomes:
            with Sandbox(limits, gpu=gpu, engine=engines[key]) as box:
                outcomes[key] = box.run({**base, **specs[key]})
    return outcomes


def _ids_by_assignment(groups: dict) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for key, ids in groups.items():
        if key:
            found.setdefault(key[0], set()).update(ids)
    return found


# the seed of the course-order run (its stopping points do not depend on the values: a test
# checks that on other seeds)
COURSE_ORDER_SEED = 0


@lru_cache(maxsize=32)
def course_order_waits(assignment: str, ids: tuple[str, ...], device: str) -> dict:
    """The scenarios that the course's own functions of `assignment` cannot finish before the
    later assignments are built, as a sealed run has them (their stubs and stand-ins): each
    with the assignment it waits for and how many observations match PyTorch before it stops.
    Worked out once per grading process, in a sandbox with no student code."""
    request = {"cells": [], "seed": COURSE_ORDER_SEED, "device": device, "scenarios": list(ids),
               "needs": {sid: REGISTRY[sid].needs for sid in ids}, "cell_s": 1,
               "scenario_s": Limits.scenario_s, "bind": {"assignment": assignment,
               "functions": []}}  # fmt: skip
    with Sandbox(Limits(), gpu=device == "cuda", engine=staged_engine(assignment, ())) as box:
        outcome = box.run(request)
    waits = {}
    for message in outcome.messages:
        result = message.get("result") if message.get("scenario") in ids else None
        if isinstance(result, dict) and result.get("status") == "waiting":
            seen = [o.get("label") for o in result.get("observations", [])]
            waits[message["scenario"]] = {"waiting_for": result.get("waiting_for"), "labels": seen}
    return waits


def _waits_as_expected(reference: dict, engine, diffs: list, wait: dict) -> bool:
    """The student's engine matched PyTorch on exactly the observations the course's own
    functions make before they stop at a later assignment, and stopped there, for that one.
    Anything short of that (a student's function that says "not built" early) is a failure."""
    if not isinstance(engine, dict) or engine.get("status") != "waiting" or len(diffs) != 1:
        return False
    labels = [o.get("label") for o in engine.get("observations", []) if isinstance(o, dict)]
    expected = [o["label"] for o in reference.get("observations", [])][: len(wait["labels"])]
    return (
        engine.get("waiting_for") == wait["waiting_for"]
        and labels == wait["labels"] == expected
        and diffs[0]["field"] == "scenario run"
    )


def _waiting_result(sid: str, wait: dict) -> ScenarioResult:
    sc = REGISTRY[sid]
    part = wait["waiting_for"]
    return ScenarioResult(
        id=sid, rules=sc.rules, topic=sc.topic, lecture=sc.lecture, weight=sc.weight,
        status="waiting", waiting_for=part,
        note=_("matched PyTorch up to where it needs {part}, a later assignment").format(part=part),
    )  # fmt: skip


def _feedback(report: Report, rules, passed: bool) -> str:
    if not passed:
        return str(report)
    if report.passed:
        return report.summary()
    first = _("{verdict}; {device}, seed {seed}").format(
        verdict=_passed_verdict(report, rules), device=report.device, seed=report.seed
    )
    return f"{first}\n{waiting_note(report.waiting)}"


def _passed_verdict(report: Report, rules) -> str:
    line = passed_text(rules, len(report.results))
    if report.waiting:
        line += _("; {count} of them up to where they need a later assignment").format(
            count=len(report.waiting)
        )
    return line


def _bind_key(check) -> tuple:
    """What a check's sealed run binds: (assignment, functions), or () for a whole engine."""
    return (check.seams, check.bound_functions()) if check.seams else ()


def _read_notebook(path: Path):
    try:
        notebook = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        return None, f"{type(exc).__name__}: {str(exc)[:200]}"
    return _checked(notebook)


def _checked(notebook):
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None, "not a Jupyter notebook (no list of cells)"
    return notebook, ""


def _read_outcome(outcome: Outcome, ids) -> tuple[list, dict, list[str]]:
    """The child's cell reports and scenario results, and notes on anything odd (never what
    the child printed: its output is the submission's to choose, and the sandbox holds
    reference answers it could quote)."""
    notes = []
    if outcome.problem:
        notes.append(_("sealed run: {problem}").format(problem=outcome.problem))
    if outcome.malformed:
        notes.append(
            _("{count} line(s) on the result pipe were not JSON objects").format(
                count=outcome.malformed
            )
        )
    cell_reports = []
    observed: dict[str, dict] = {}
    repeated = set()
    for message in outcome.messages:
        if "cells" in message and not cell_reports and isinstance(message["cells"], list):
            cell_reports = [c for c in message["cells"] if isinstance(c, dict)]
        elif message.get("scenario") in ids:
            sid = message["scenario"]
            if sid in observed:
                repeated.add(sid)
            observed[sid] = message.get("result")
    for sid in repeated:  # someone else wrote to the pipe: trust neither answer
        observed[sid] = None
    if repeated:
        notes.append(
            _("scenario results were sent twice (not trusted): {ids}").format(ids=sorted(repeated))
        )
    return cell_reports, observed, notes


def _cell_notes(reports: list, program: Program) -> list[str]:
    """What went wrong while the cells were being defined: which cell, and the exception's
    type where it is Python's own. The child's words are not repeated (the submission writes
    them, and could write the reference answers it runs beside); the student reads the
    message by running the cell in their notebook."""
    notes = []
    kinds = {cell["id"]: cell["kind"] for cell in program.cells}
    kinds["bind"] = "given"
    for report in reports:
        cell = report.get("id")
        if kinds.get(cell) is None or report.get("kind") != kinds[cell]:
            continue  # not a cell of this program: nothing the child made up is shown
        named = _(CELL_NAMED[kinds[cell]]).format(cell=cell)
        if report.get("note"):
            notes.append(f"{named}: {_(MAGIC_IGNORED)}")
        if report.get("status") == "ok" or cell in program.missing:
            continue
        notes.append(f"{named} {_error_text(report)}")
    return notes


def _error_text(report: dict) -> str:
    """'raised NameError (...)', 'ran longer than its time limit', or ModuleNotFoundError with
    the module named when it is one the grader knows (torch, IPython...)."""
    if report.get("status") == "timeout":
        return _("ran longer than its time limit")
    error = report.get("error") if isinstance(report.get("error"), dict) else {}
    kind = error.get("type")
    if kind not in _PYTHON_EXCEPTIONS:
        return _("raised an exception of a class of its own ({why})").format(why=_(RUN_IT_TO_READ))
    if kind == "ModuleNotFoundError":
        named = _MISSING_MODULE.fullmatch(str(error.get("message", "")))
        known = named and _installed_here(named[1].split(".")[0])
        error = "ModuleNotFoundError" + (f": {named[0]}" if known else "")
        return _("raised {error} ({why})").format(error=error, why=_(IMPORTABLE))
    return _("raised {error} ({why})").format(error=kind, why=_(RUN_IT_TO_READ))


def _installed_here(name: str) -> bool:
    """Whether the grading machine has a top-level module of that name (torch, IPython...):
    only such a name is repeated, so a made-up one carries nothing out."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _differences(reference: dict, engine, device: str) -> list[dict]:
    if engine is not None and not _well_formed(engine):
        engine = {"status": "error", "observations": [],
                  "error": {"type": "Malformed", "message": "unreadable observations"}}  # fmt: skip
    try:
        diffs = compare_scenario(reference, engine, device)
    except Exception as exc:  # a well-formed shape with odd contents: never a pass
        return [_malformed(type(exc).__name__)]
    return [_capped(diff) for diff in diffs]


def _capped(diff: dict) -> dict:
    """A difference with the engine's side cut to ENGINE_TEXT_LIMIT characters: what the
    submission controls reaches its feedback only as its own side of one comparison."""
    engine = str(diff.get("engine", ""))
    if len(engine) <= ENGINE_TEXT_LIMIT:
        return diff
    engine = engine[:ENGINE_TEXT_LIMIT] + " ..."
    head = f"{diff['label']}: {diff['field']}" if diff.get("label") else diff.get("field")
    summary = f"{head}: PyTorch {diff.get('reference')}; your engine {engine}"
    return {**diff, "engine": engine, "summary": summary}


def _well_formed(engine) -> bool:
    if not isinstance(engine, dict) or not isinstance(engine.get("status"), str):
        return False
    observations = engine.get("observations")
    if not isinstance(observations, list):
        return False
    return all(isinstance(o, dict) and isinstance(o.get("label"), str) for o in observations)


def _malformed(text: str) -> dict:
    return {"label": None, "field": "observations", "reference": "readable",
            "engine": f"unreadable ({text[:200]})",
            "summary": f"observations: unreadable ({text[:200]})"}  # fmt: skip


def _scenario_result(sid: str, diffs: list[dict], note: str) -> ScenarioResult:
    sc = REGISTRY[sid]
    return ScenarioResult(
        id=sid, rules=sc.rules, topic=sc.topic, lecture=sc.lecture, weight=sc.weight,
        status="failed" if diffs else "passed", differences=list(diffs), note=note,
    )  # fmt: skip


def _zero(test: TestCell, status: str, verdict: str, reason: str = "") -> CellScore:
    ids = [sid for check in test.checks for sid in check.scenario_ids()]
    return CellScore(
        test.grade_id, 0.0, test.points, status, verdict, verdict, ids, ids, reason=reason
    )


@lru_cache(maxsize=8)
def _reference(ids: tuple[str, ...], seed: int, device: str) -> dict:
    """PyTorch's observations (the same for every student graded with this seed)."""
    import torch  # the trusted side only

    return observe(torch, list(ids), seed=seed, device=device)


def _torch_version() -> str:
    import torch

    return torch.__version__


def _gpu_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())
