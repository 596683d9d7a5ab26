"""The hidden tests' CUDA cells, graded through the sealed run as grading runs them
(coursekit.sealed.grade_notebook, each assignment's contract from its nbgrader source):

- the reference answers get the cell's full marks;
- each planted bug (coursekit.exercises.planted.BUGS) of a rule the cell checks loses it,
  and a bug of another rule does not;
- the released stub scores 0.

With another PyTorch than 2.13, a submission graded otherwise is graded again with the same
cells' checks on the CPU (_control): where it scores the same there, the cause is the release
(its texts, a changed behaviour), not CUDA, and it is counted apart ("as_on_cpu").

Only the CUDA test cells are graded (the CPU ones are the test suite's). The dry run
(device "cpu") grades the same cells with their checks moved to the CPU: the plumbing and
the expectations, not CUDA. All submissions share one seed; each assignment's reference is
graded first (PyTorch's observations, cached for the rest), the others side by side.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import time
from concurrent.futures import ThreadPoolExecutor

WORKERS = 8


def contract_of(name: str, device: str):
    """The assignment's contract with only its CUDA test cells, their checks on `device`."""
    from coursekit.content import folder
    from coursekit.sealed import Contract

    contract = Contract.from_notebook(folder("solutions") / name / f"{name}.ipynb")
    tests = []
    for test in contract.tests:
        if test.device != "cuda":
            continue
        checks = tuple(dataclasses.replace(c, device=device) for c in test.checks)
        tests.append(dataclasses.replace(test, checks=checks))
    return dataclasses.replace(contract, tests=tuple(tests))


def submissions(name: str) -> dict[str, tuple[dict, str | None]]:
    """student -> (notebook, the rule whose cell it must lose; None: full marks; "all": 0)."""
    from coursekit.content import folder
    from coursekit.exercises.planted import BUGS, answered

    released = folder("exercises") / name / f"{name}.ipynb"
    found = {
        "reference": (json.loads(answered(released, name)), None),
        "stub": (json.loads(released.read_text(encoding="utf-8")), "all"),
    }
    for bug in BUGS[name]:
        found[f"bug_{bug.rule}"] = (json.loads(answered(released, name, bug)), bug.rule)
    return found


def expected_points(test, loses: str | None) -> float:
    """The cell's points for a submission that loses `loses` (see submissions)."""
    rules = {r for check in test.checks for r in (check.rules or ())}
    return 0.0 if loses == "all" or loses in rules else test.points


def run(
    device: str, names=None, seed: int | None = None, workers: int = WORKERS, deadline=None
) -> dict:
    """Each submission's CUDA cells as graded, against what they must score; past `deadline`
    (time.monotonic()) a submission is not graded and its row says so."""
    import torch

    from autograder.check import is_reference_release
    from coursekit.exercises.assignments import ASSIGNMENTS
    from coursekit.sealed import grade_notebook, layers
    from coursekit.sealed.sandbox import Sandbox

    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    names = names or [a.name for a in ASSIGNMENTS]
    jobs = []  # (assignment, student, contract, notebook, loses)
    for name in names:
        contract = contract_of(name, device)
        for student, (notebook, loses) in submissions(name).items():
            jobs.append((name, student, contract, notebook, loses))

    def grade(job):
        name, student, contract, notebook, loses = job
        if deadline is not None and time.monotonic() > deadline:
            return _row(name, student, loses, error="not graded: the check's time was spent")
        try:
            result = grade_notebook(contract, notebook, seed=seed)
        except Exception as exc:  # the check goes on; the row says why
            return _row(name, student, loses, error=f"{type(exc).__name__}: {exc}")
        return _row(name, student, loses, contract=contract, result=result)

    references = [job for job in jobs if job[1] == "reference"]
    rows = [grade(job) for job in references]  # warms the per-seed reference caches
    with contextlib.ExitStack() as stack:
        # claim the parallel uid slots one at a time: creating their users at once races
        for _ in range(workers):
            stack.enter_context(Sandbox())
    rest = [job for job in jobs if job[1] != "reference"]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        rows += list(pool.map(grade, rest))
    rows.sort(key=lambda r: (names.index(r["assignment"]), r["student"]))
    if device != "cpu" and not is_reference_release(torch.__version__):
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(lambda row: _control(row, jobs, seed, deadline), rows))
    as_expected = sum(r["as_expected"] for r in rows)
    as_on_cpu = sum(r.get("as_on_cpu", False) for r in rows)
    return {
        "status": "ran",
        "device": device,
        "seed": seed,
        "layers": dict(layers()),
        "counts": {
            "as_expected": as_expected,
            "as_on_cpu": as_on_cpu,
            "unexpected": len(rows) - as_expected - as_on_cpu,
            "total": len(rows),
        },  # fmt: skip
        "submissions": rows,
    }


def _control(row: dict, jobs: list, seed: int, deadline) -> None:
    """With another PyTorch than 2.13, a submission graded other than expected on CUDA is
    graded again with the same cells' checks on the CPU: the same points there ("as_on_cpu")
    are this release's difference from 2.13 (its texts, a changed behaviour), not CUDA's."""
    from coursekit.sealed import grade_notebook

    if row["as_expected"] or row["error"] or (deadline and time.monotonic() > deadline):
        return
    (job,) = [j for j in jobs if (j[0], j[1]) == (row["assignment"], row["student"])]
    cpu = contract_of(row["assignment"], "cpu")
    try:
        result = grade_notebook(cpu, job[3], seed=seed)
    except Exception:  # no control, no excuse: the row stays unexpected
        return
    on_cpu = {t.grade_id: getattr(result.cells.get(t.grade_id), "points", None) for t in cpu.tests}
    row["cpu_points"] = on_cpu
    row["as_on_cpu"] = bool(row["cells"]) and all(
        cell["points"] is not None and cell["points"] == on_cpu.get(grade_id)
        for grade_id, cell in row["cells"].items()
    )


def _row(name, student, loses, contract=None, result=None, error="") -> dict:
    row = {"assignment": name, "student": student, "must_lose": loses, "error": error,
           "as_expected": False, "cells": {}, "notes": []}  # fmt: skip
    if result is None:
        return row
    row["notes"] = result.notes
    expected = True
    for test in contract.tests:
        cell = result.cells.get(test.grade_id)
        want = expected_points(test, loses)
        if cell is None:
            row["cells"][test.grade_id] = {"expected": want, "points": None}
            expected = False
            continue
        row["cells"][test.grade_id] = {
            "expected": want,
            "points": cell.points,
            "max_points": cell.max_points,
            "status": cell.status,
            "verdict": cell.verdict,
            "failed": cell.failed,
        }
        expected = expected and cell.points == want
    row["as_expected"] = expected and bool(contract.tests)
    return row
