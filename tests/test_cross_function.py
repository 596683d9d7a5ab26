"""A wrong function fails only its own cell (issue 29, "one verdict, three windows"): in the
class edition a test cell's check runs every function the notebook wrote (there is no
reference to stand in for the others), so a failure that only ran another function failing
its own rule is NOT CONFIRMED, as grading (the course's own function there) may pass it. A
failure that ran no such function stays failed: a student never escapes a real failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.report import Report, ScenarioResult
from coursekit.exercises import grading
from coursekit.exercises.grading import NotPassed, check_rule, check_seams, judge
from coursekit.exercises.planted import BUGS, answer_functions
from coursekit.exercises.selfcheck import summary
from minigrad import seams

NAME = "leaf_nodes"
WRONG_RETAIN = next(b for b in BUGS[NAME] if b.rule == "L4")
WRONG_ACCUMULATE = next(b for b in BUGS[NAME] if b.rule == "L8")


@pytest.fixture
def class_edition(monkeypatch):
    """The students' distribution's binding: every function the notebook defines is bound."""
    monkeypatch.setattr(seams, "EDITION", "class")


def _wrong(*bugs) -> dict:
    namespace = answer_functions(NAME)
    for bug in bugs:
        wrong = answer_functions(NAME, bug)
        namespace.update({n: wrong[n] for n in seams.functions_for(NAME, [bug.rule])})
    return namespace


def _verdict(namespace, rule) -> str:
    with pytest.raises(NotPassed) as raised:
        check_rule(namespace, NAME, [rule])
    return str(raised.value)


def test_a_wrong_retain_grad_leaves_l11_not_confirmed_and_fails_its_own_l4(class_edition):
    namespace = _wrong(WRONG_RETAIN)
    # the engine as written does fail L11 here (where grading, with the course's own
    # retain_grad(), gives it its points): the verdict is what changes
    assert check_seams(namespace, NAME, ["L11"], seed=grading.PUBLIC_SEED).failures
    text = _verdict(namespace, "L11")
    first = text.splitlines()[0]
    assert first.startswith("NOT CONFIRMED: rule L11 (3 points): not confirmed until "), text
    assert "retain_grad() passes its own rule (L4)" in first, text
    assert "accumulate_grad" not in first, text  # the cell's own function is not the excuse
    # retain_grad()'s own cell is failed, not excused by the L11 failure it causes in turn
    own = _verdict(namespace, "L4")
    assert own.startswith("NOT PASSED: rule L4"), own


def test_a_failure_that_runs_no_failing_other_function_stays_failed(class_edition):
    """Both wrong: L8's failing scenarios never call retain_grad() (recorded), so the wrong
    accumulate_grad() fails L8 although retain_grad() fails its own rule."""
    namespace = _wrong(WRONG_RETAIN, WRONG_ACCUMULATE)
    report = check_seams(namespace, NAME, ["L8"], seed=grading.PUBLIC_SEED)
    failed = [r.id for r in report.failures]
    ran = grading.functions_ran(namespace, NAME, ["L8"], failed, report.seed, "cpu",
                                list(seams.graded(NAME)))  # fmt: skip
    assert failed and all("accumulate_grad" in ran[i] for i in failed), ran
    assert not any("retain_grad" in ran[i] for i in failed), ran
    assert check_seams(namespace, NAME, ["L4"], seed=grading.PUBLIC_SEED).failures
    assert _verdict(namespace, "L8").startswith("NOT PASSED: rule L8")


def test_a_failure_beside_a_passing_other_function_stays_failed(class_edition):
    """Only accumulate_grad() wrong: L8's failures run read_grad() too, which passes L3."""
    assert _verdict(_wrong(WRONG_ACCUMULATE), "L8").startswith("NOT PASSED: rule L8")


def _result(sid, status="failed") -> ScenarioResult:
    return ScenarioResult(sid, ("L11",), NAME, "course/02_leaf_nodes.ipynb#retain-grad", 1.0,
                          status, [{"label": "", "field": "value", "reference": "1",
                                    "engine": "2"}] if status == "failed" else [])  # fmt: skip


def test_judge_from_a_report_and_the_other_functions_its_failures_ran():
    """Called and failing its own rule: not confirmed; a failure that ran none: failed."""
    report = Report("your engine", "cpu", 1, "2.13.0", [_result("a"), _result("b")])
    both = judge(report, NAME, ["L11"], {"a": ("retain_grad",), "b": ("retain_grad",)})
    assert both.status == "not confirmed" and both.failing == ("retain_grad",), both
    assert "not confirmed until retain_grad() passes its own rule (L4)" in both.text
    one = judge(report, NAME, ["L11"], {"a": ("retain_grad",)})
    assert one.status == "failed" and one.text.startswith("NOT PASSED: rule L11"), one
    assert judge(report, NAME, ["L11"]).status == "failed"


def test_a_rule_of_the_cells_function_passes_though_some_scenarios_wait(monkeypatch):
    """The class edition before a later assignment is built: a rule whose scenarios pass or
    wait (none failed) counts as the cell's function passing a rule of its own (what lets
    a wrong retain_grad() leave L11 not confirmed there); a failed scenario does not."""
    waiting = Report("your engine", "cpu", 1, "2.13.0", [_result("a", "passed"),
                     _result("b", "waiting")])  # fmt: skip
    monkeypatch.setattr(grading, "check_seams", lambda *args, **kwargs: waiting)
    assert grading._passes_a_rule({}, NAME, "accumulate_grad", waiting)
    failed = Report("your engine", "cpu", 1, "2.13.0", [_result("a", "passed"), _result("b")])
    monkeypatch.setattr(grading, "check_seams", lambda *args, **kwargs: failed)
    assert not grading._passes_a_rule({}, NAME, "accumulate_grad", failed)


def test_the_clone_never_needs_it():
    """The clone binds the course's own retain_grad() for L11: nothing to excuse, L11 passes."""
    assert seams.EDITION != "class"
    check_rule(_wrong(WRONG_RETAIN), NAME, ["L11"])


def test_check_counts_the_points_apart_and_says_why():
    cell = {"cell_type": "code", "outputs": []}
    verdict = "NOT CONFIRMED: rule L11 (3 points): not confirmed until retain_grad() passes"
    hidden = {"seed": 1, "cells": {"test_L11": {
        "status": "not confirmed", "verdict": verdict, "unwritten": [],
        "failing": ["retain_grad"], "reference": "2.13.0"}}}  # fmt: skip
    cells = [{"grade_id": "test_L11", "points": 3, "cell": cell}]
    lines, complete = summary(Path(f"{NAME}.ipynb"), cells, hidden)
    total = next(line for line in lines if line.startswith("total"))
    assert total.split()[1] == "0" and not complete, lines
    assert "3 of them not confirmed until retain_grad() passes its own rule (L4)" in total
