"""The hidden tests' CUDA cells, graded through the sealed run as grading runs them
(coursekit.sealed.grade_notebook, each assignment's contract from its nbgrader source):

- the reference answers get the cell's full marks;
- each planted bug (coursekit.exercises.planted.BUGS) of a rule the cell checks loses it,
  and a bug of another rule does not;
- the released stub scores 0.

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
    as_expected = sum(r["as_expected"] for r in rows)
    return {
        "status": "ran",
        "device": device,
        "seed": seed,
        "layers": dict(layers()),
        "counts": {
            "as_expected": as_expected,
            "unexpected": len(rows) - as_expected,
            "total": len(rows),
        },  # fmt: skip
        "submissions": rows,
    }


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
