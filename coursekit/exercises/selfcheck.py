"""`make check [NB=...] [SEED=N] [VERBOSE=1]` in a clone, `minigrad-course check [--seed N]
[--verbose] [NOTEBOOK ...]` elsewhere: grade your own notebook, no instructor needed (no
notebook named: every assignment fetched into my_assignments/, else a `start` folder's).

Runs the notebook top to bottom in a fresh kernel (cells that fail do not stop it), then, in
the same kernel, runs for each test cell the check its hidden tests run when graded (the
autograder's scenarios for that rule, on one seed, against PyTorch) and prints one screen:
each cell's points, or its verdict as Validate words it (grading.judge): the failing rule,
the lecture section, the first difference and how many more (--verbose: all of them). A
cell earns its points when its visible tests and its hidden check pass. A cell whose
scenarios stop at a function of this notebook not written yet, or fail only where they ran
one failing its own rule, which the cell does not grade (the class edition has no reference
for it), is NOT CONFIRMED: its points are counted apart, never in the total. Without a GPU
the CUDA cell is neither passed nor failed: "CUDA: not run here (no GPU), not counted".
The last line is the command that checks the same values again.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import subprocess
import sys
from pathlib import Path

import nbformat

from autograder.i18n import padded
from coursekit.exercises.assignments import ASSIGNMENTS, BY_NAME, FETCH_DIR
from coursekit.exercises.grading import (
    NOT_RUN_HERE,
    check_command,
    check_seams,
    judge,
    other_failures,
    report_text,
    until,
)
from coursekit.feedback_graphs import graph_line
from coursekit.i18n import _, speaking
from coursekit.kernel_start import START_ATTEMPTS, never_started
from coursekit.languages import notebook_language

RESULTS_MARK = "@@selfcheck-results@@ "
SCREEN = 40  # lines: one notebook's check fits a screen; --verbose prints everything


def graded_cells(nb) -> list[dict]:
    """grade_id and points of each test cell, in notebook order."""
    cells = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            cells.append({"grade_id": meta["grade_id"], "points": meta["points"], "cell": cell})
    return cells


def hidden_checks_in_kernel(namespace: dict, assignment_name: str, seed=None, language=None):
    """Kernel side: each test cell's judgement (grading.judge) and full report, on one seed
    (the first check's when none is given), in `language` (the notebook's), as one JSON line
    of results."""
    with speaking(language):
        _hidden_checks(namespace, assignment_name, seed)


def _hidden_checks(namespace: dict, assignment_name: str, seed) -> None:
    a = BY_NAME[assignment_name]
    checks = [(f"test_{rule}", [rule], "cpu") for rule in a.rules]
    checks.append((f"test_cuda_{a.name}", list(a.cuda_rules), "cuda"))
    results = {}
    for grade_id, rules, device in checks:
        report = check_seams(namespace, a.name, rules, device, seed=seed)
        if device == "cpu":
            seed = report.seed
        others = other_failures(namespace, a.name, rules, report)
        judgement = judge(report, a.name, rules, others)
        results[grade_id] = {
            "status": judgement.status,
            "verdict": judgement.text,
            "note": judgement.note,
            "unwritten": list(judgement.unwritten),
            "failing": list(judgement.failing),
            "report": report_text(report),
            "graph": graph_line(report),
            "reference": report.reference,
        }
    print(RESULTS_MARK + json.dumps({"seed": seed, "cells": results}))


def run(path: Path, out=sys.stdout, seed=None, verbose=False) -> int:
    """Check one notebook; print its verdicts (all of them with verbose). 0: every CPU cell
    passed; 1: not all did; 2: it could not be checked."""
    nb = nbformat.read(path, as_version=4)
    name = path.stem
    if name not in BY_NAME:
        raise SystemExit(
            _("{path}: not one of the course's assignments ({names})").format(
                path=path, names=", ".join(BY_NAME)
            )
        )
    language = notebook_language(nb)
    with speaking(language):
        return _check(nb, path, language, seed, verbose, out)


def _check(nb, path: Path, language: str, seed, verbose, out) -> int:
    from nbclient import NotebookClient

    name = path.stem
    cells = graded_cells(nb)
    probe = nbformat.v4.new_code_cell(
        "from coursekit.exercises.selfcheck import hidden_checks_in_kernel\n"
        f"hidden_checks_in_kernel(globals(), {name!r}, {seed!r}, {language!r})"
    )
    nb.cells.append(probe)
    for attempt in range(1, START_ATTEMPTS + 1):
        client = NotebookClient(
            nb,
            timeout=1800,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(path.parent.resolve())}},
        )
        try:
            with _quiet_kernel():
                client.execute(stderr=subprocess.DEVNULL)  # its log is not for students
            break
        except RuntimeError as exc:
            if not never_started(exc):
                raise
            if attempt == START_ATTEMPTS:
                why = _(
                    "no Python kernel could be started to check {path}: {error}. Close "
                    "notebooks you are not using, then check again."
                )
                print(why.format(path=path, error=exc), file=out)
                return 2

    text = "".join(o.get("text", "") for o in probe.outputs if o.output_type == "stream")
    errors = [o for o in probe.outputs if o.output_type == "error"]
    if errors or RESULTS_MARK not in text:
        detail = errors[0]["evalue"] if errors else text[-2000:]
        print(
            _("the notebook's engine could not be checked: {detail}").format(detail=detail),
            file=out,
        )
        return 2
    hidden = json.loads(text.rpartition(RESULTS_MARK)[2])
    lines, complete = summary(path, cells, hidden, verbose)
    print("\n".join(lines), file=out)
    return 0 if complete else 1


def summary(path: Path, cells: list[dict], hidden: dict, verbose=False) -> tuple[list, bool]:
    """The lines `check` prints for one notebook, and whether every CPU cell passed."""
    results = hidden["cells"]
    first = next(iter(results.values()), {})
    reference = first.get("reference", "?")
    lines = [
        _("{path}: checked against PyTorch {version} on cpu, seed {seed}").format(
            path=path, version=reference, seed=hidden["seed"]
        )
    ]
    earned = possible = unconfirmed = 0.0
    waiting_on: list[str] = []
    failing_on: list[str] = []
    complete = True
    for entry in cells:
        grade_id, points = entry["grade_id"], entry["points"]
        result = results.get(grade_id, {"status": "failed", "verdict": _("not checked")})
        status, text = cell_verdict(result, entry["cell"])
        if status == "not run":  # never a pass, never a failure of CPU work: one quiet line
            lines.append(f"{grade_id:<24} {_(NOT_RUN_HERE)}")
            continue
        possible += points
        if status == "passed":
            earned += points
            lines.append(f"{grade_id:<24} {points:>4g} / {points:<4g} " + _("passed"))
            continue
        complete = False
        if status == "not confirmed":
            unconfirmed += points
            waiting_on += [n for n in result["unwritten"] if n not in waiting_on]
            failing_on += [n for n in result.get("failing", []) if n not in failing_on]
            lines.append(f"{grade_id:<24} {'?':>4} / {points:<4g} {text.splitlines()[0]}")
        else:
            lines.append(f"{grade_id:<24} {0:>4g} / {points:<4g} {text.splitlines()[0]}")
        lines += ["    " + line for line in text.splitlines()[1:]]
        if result.get("graph"):
            lines.append(f"    {result['graph']}")
        if verbose and result.get("report"):
            lines += ["    " + line for line in result["report"].splitlines()]
    total = padded(_("total"), 24) + f" {earned:>4g} / {possible:<4g}"
    if unconfirmed:
        why = until(waiting_on, failing_on, path.stem)
        total += " " + _("confirmed ({points} of them {until})").format(
            points=f"{unconfirmed:g}", until=why
        )
    lines.append(total)
    lines.append(
        _("regrade the same values: {command}").format(command=check_command(path, hidden["seed"]))
    )
    return lines, complete


def cell_verdict(result: dict, cell) -> tuple[str, str]:
    """A test cell's status and text: its hidden check's (judge), unless that passed and the
    cell's visible tests did not."""
    if result["status"] != "passed":
        return result["status"], result["verdict"]
    visible = _visible_error(cell)
    if visible is None:
        return "passed", result["verdict"]
    return "failed", _("NOT PASSED: its visible tests: {error}").format(error=visible)


def _visible_error(cell) -> str | None:
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return f"{output['ename']}: {output['evalue']}".strip()[:600]
        if output.output_type == "stream" and output.name == "stderr":
            return _("wrote to stderr (a graded cell must not)")
    return None


@contextlib.contextmanager
def _quiet_kernel():
    """The kernel's messaging logs a socket's late close as a traceback (tornado's logger,
    when the kernel stops): not the student's business, and never about their code."""
    logger = logging.getLogger("tornado")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def default_notebooks(root: Path = Path(".")) -> list[Path]:
    """The copies a student works in, in course order: fetched from the Assignment List into
    my_assignments/ (`make lab`), else a `minigrad-course start` folder's exercises/."""
    for copy in ("fetched_copy", "started_copy"):
        found = [root / getattr(a, copy) for a in ASSIGNMENTS]
        found = [path for path in found if path.is_file()]
        if found:
            return found
    return []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="minigrad-course check", description=__doc__)
    parser.add_argument(
        "notebooks", type=Path, nargs="*",
        help=f"default: every notebook in {FETCH_DIR}/, else in exercises/ (start's copy)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, help="the values to check on (a check prints its seed to regrade)"
    )
    parser.add_argument(
        "--verbose", action="store_true", help="every difference of every failing scenario"
    )
    args = parser.parse_args(argv)
    notebooks = args.notebooks or default_notebooks()
    if not notebooks:
        text = _(
            "no exercise here: fetch one in JupyterLab (`make lab`, then Nbgrader > "
            "Assignment List > Fetch) into {folder}/, run this in a folder made by "
            "`minigrad-course start`, or name a notebook: minigrad-course check NOTEBOOK"
        )
        print(text.format(folder=FETCH_DIR), file=sys.stderr)
        return 2
    missing = [str(path) for path in notebooks if not path.is_file()]
    if missing:
        print(_("no such notebook: {paths}").format(paths=", ".join(missing)), file=sys.stderr)
        return 2
    return max(run(path, seed=args.seed, verbose=args.verbose) for path in notebooks)


if __name__ == "__main__":
    sys.exit(main())
