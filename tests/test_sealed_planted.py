"""Each planted mistake of the exercises loses its rule's points in the sealed run too.

A sealed run stubs every later assignment (a submission never runs beside an answer it may not
see yet), so a scenario that reaches a later assignment waits there. What still runs before it
must show each one-line mistake that in-kernel grading (tests/test_exercises.py) catches, or
the sealed grade gives credit that Validate refuses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coursekit import sealed
from coursekit.exercises.assignments import ASSIGNMENTS
from coursekit.exercises.planted import BUGS, answered

REPO = Path(__file__).resolve().parents[1]
SEED = 3

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sealed_planted")]


@pytest.mark.parametrize("name", [a.name for a in ASSIGNMENTS])
def test_each_planted_bug_loses_its_rules_cells_in_the_sealed_run(name):
    contract = sealed.Contract.from_notebook(REPO / "solutions" / name / f"{name}.ipynb")
    released = REPO / "exercises" / name / f"{name}.ipynb"
    rules = {t.grade_id: {r for c in t.checks for r in (c.rules or ())} for t in contract.tests}
    kept = []
    for bug in BUGS[name]:
        result = sealed.grade_notebook(
            contract, json.loads(answered(released, name, bug)), seed=SEED
        )
        cells = [g for g, cell in result.cells.items() if bug.rule in rules[g] and cell.points]
        cells = [g for g in cells if "cuda" not in g]  # no GPU here: those cells are not run
        kept += [f"bug {bug.rule} ({bug.why}) keeps the points of {g}" for g in cells]
        assert any(bug.rule in rules[g] for g in result.cells), f"no cell grades {bug.rule}"
    assert kept == []
