"""What an autograded notebook says, cell by cell: status, the failure message, scenarios.

nbgrader's gradebook holds the points. Why, as data: a sealed run (coursekit.sealed) leaves its
verdicts in the autograded notebook's metadata; nbgrader's in-kernel run (a course that is not
sealed) leaves outputs, among them the hidden test's verdict data (grade() shows it:
coursekit/exercises/verdict_data.py). Either is read as it is, never the words around it,
which are in the class's language.

A notebook autograded before grade() showed its verdict as data has only its printed report,
which was always in English: read by _printed_facts, the one place that still reads text.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograder.report import NOT_RUN_NO_GPU
from coursekit.exercises import verdict_data
from coursekit.i18n import N_, _
from coursekit.sealed.contract import CHECK_KEY
from coursekit.sealed.nbgrader_steps import VERDICT_KEY

ANSI = re.compile(r"\x1b\[[0-9;]*m")
ARROW = re.compile(r"^-+> *\d+ ?")  # IPython marks the failing line: "---> 4 assert ..."
# what grade() printed before it showed its verdict as data (always in English)
PRINTED_FAILED_SCENARIO = re.compile(r"^\[([\w.]+)\] (?:failed|not run)", re.M)
PRINTED_SEED = re.compile(r"seed (\d+): score")
NOT_FOUND = N_("cell not found in the graded notebook")
DID_NOT_RUN = N_("the cell did not run")
NO_RESULT = N_("no points (the cell printed to stderr or gave no result)")


def read_cells(folder: Path, sealed: bool = True) -> dict[tuple[str, str], dict]:
    """(notebook, grade_id) -> {error, ran, scenarios, failed, seeds, reason} for each graded
    cell found: in a sealed course from the sealed run's verdict (data) where it graded the
    cell, otherwise (nbgrader's in-kernel verdict) from the cell's outputs."""
    found = {}
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        nb = nbformat.read(path, as_version=4)
        run = _sealed_run(nb) if sealed else None
        for cell in nb.cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if cell.cell_type != "code" or not grade_id:
                continue
            verdict = cell.metadata.get(CHECK_KEY, {}).get(VERDICT_KEY) if run else None
            if verdict is not None:
                found[(path.stem, grade_id)] = _sealed_facts(verdict, run["seed"])
            else:
                found[(path.stem, grade_id)] = _cell_facts(cell)
    return found


def sealed_notes(folder: Path) -> list[str]:
    """The sealed runs' notes (an import refused, a syntax error, a timeout...), each naming
    its notebook, as the grader's other notes do."""
    notes = []
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        run = _sealed_run(nbformat.read(path, as_version=4))
        notes += [f"{path.name}: {note}" for note in (run or {}).get("notes", [])]
    return notes


def _sealed_run(nb) -> dict | None:
    run = nb.metadata.get(CHECK_KEY, {}).get(VERDICT_KEY)
    return run if isinstance(run, dict) else None


def _printed(cell) -> str:
    """What a cell printed (its stream outputs), without colour codes."""
    return "".join(
        ANSI.sub("", out.get("text", "")) for out in cell.outputs if out.output_type == "stream"
    )


def _sealed_facts(verdict: dict, seed: int) -> dict:
    status = verdict["status"]
    # a verdict recorded before reasons were: its only "not run" was a GPU-less grader's
    reason = verdict.get("reason", verdict_data.NO_GPU if status == "not run" else "")
    return {
        # its first line: the rules that failed (the rest differs from seed to seed)
        "error": "" if status == "passed" else verdict["verdict"].splitlines()[0],
        "ran": True,
        "scenarios": list(verdict["scenarios"]),
        "failed": list(verdict["failed"]),
        "seeds": [seed],
        "reason": reason if status == "not run" else "",
        "diagnoses": list(verdict.get("diagnoses", [])),
    }


def incidents(folder: Path) -> list[str]:
    """One sentence per cell whose kernel died or that ran past the cell time limit, in the
    current language."""
    from coursekit.classroom.grading.execute import KERNEL_DIED

    found = []
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            name = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or f"#{index}"
            for out in cell.get("outputs", []):
                if out.output_type != "error":
                    continue
                if out.ename == KERNEL_DIED:
                    said = _(
                        "the kernel died in cell '{cell}'; the cells after it were graded in "
                        "a new kernel"
                    )
                    found.append(f"{path.name}: " + said.format(cell=name))
                elif out.ename == "CellTimeoutError":
                    said = _("cell '{cell}' ran past the cell time limit")
                    found.append(f"{path.name}: " + said.format(cell=name))
    return found


def _cell_facts(cell) -> dict:
    text = _printed(cell)
    errors = [out for out in cell.outputs if out.output_type == "error"]
    error = ""
    if errors:
        last = errors[-1]
        error = ANSI.sub("", f"{last.ename}: {last.evalue}".strip().rstrip(":")).splitlines()[0]
        if not last.evalue.strip():  # a bare assert: name the line that failed
            lines = [x for t in last.get("traceback", []) for x in ANSI.sub("", t).splitlines()]
            failing = [ARROW.sub("", line).strip() for line in lines if ARROW.match(line)]
            if failing:
                error += f" at `{failing[-1]}`"
    facts = {
        "error": error,
        "ran": bool(cell.outputs) or cell.get("execution_count") is not None,
        "scenarios": planned_scenarios(cell),
    }
    data = verdict_data.read(cell.outputs)
    if data is None:
        return {**facts, **_printed_facts(text, error)}
    return {**facts, "failed": data["failed"], "seeds": [data["seed"]], "reason": data["reason"]}


def _printed_facts(text: str, error: str) -> dict:
    """The failed scenarios, seeds and "not run" reason of a cell autograded before grade()
    showed its verdict as data, from the English report it printed then."""
    no_gpu = NOT_RUN_NO_GPU in text or NOT_RUN_NO_GPU in error
    return {
        "failed": sorted(set(PRINTED_FAILED_SCENARIO.findall(text))),
        "seeds": sorted({int(s) for s in PRINTED_SEED.findall(text)}),
        "reason": verdict_data.NO_GPU if no_gpu else "",
    }


def planned_scenarios(cell) -> list[str]:
    """Scenario ids the test cell's metadata says it checks ([] if it states none)."""
    from coursekit.sealed.contract import ContractError, checks_of

    try:
        checks = checks_of(cell, "")
    except ContractError:
        return []
    return [sid for check in checks for sid in check.scenario_ids()]


def status_and_message(score: float, max_score: float, facts: dict | None) -> tuple[str, str]:
    """('passed'|'failed'|'not run'|'missing', one line a person can act on, in the current
    language)."""
    if facts is None:
        return "missing", _(NOT_FOUND)
    if max_score and score >= max_score:
        return "passed", ""
    if facts.get("reason"):
        return "not run", verdict_data.reason_text(facts["reason"])
    if facts["error"]:
        return "failed", facts["error"]
    if not facts["ran"]:
        return "not run", _(DID_NOT_RUN)
    return "failed", _(NO_RESULT)
