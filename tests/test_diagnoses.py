"""Diagnoses: a failing report names the planted bug it looks like (autograder/diagnoses.py).

The signatures are data (autograder/diagnoses.json.gz, `make diagnoses`); here only whether
they are current is checked, never computed. Each planted bug's own diagnosis comes first is
checked in test_planted_bugs.py, on the failures it observes there anyway (another seed than
the signatures were computed on).
"""

import html

import torch

import minigrad
from autograder import NULL_ENGINE, check
from autograder.diagnoses import diagnose, load
from autograder.report import ScenarioResult
from autograder.scenarios import REGISTRY
from bench.diagnoses import fingerprint, planted


def test_the_signatures_are_those_of_the_current_bugs_and_catalogue():
    data = load()
    assert data["fingerprint"] == fingerprint(), "stale signatures: run `make diagnoses`"
    assert set(data["bugs"]) == set(planted())


def test_engines_that_pass_carry_no_diagnosis():
    assert check(minigrad, topics=["leaf"], seed=3).diagnoses == []
    assert check(torch, topics=["inplace"], seed=3).diagnoses == []


def test_an_engine_that_implements_nothing_gets_no_diagnosis():
    """Every scenario fails, 'not implemented': no one mistake explains that."""
    report = check(NULL_ENGINE, topics=["leaf"], seed=3)
    assert report.failures and report.diagnoses == []


def _failed(sid, diffs):
    sc = REGISTRY[sid]
    return ScenarioResult(sc.id, sc.rules, sc.topic, sc.lecture, sc.weight, "failed", diffs)


def test_differences_no_bug_shows_get_no_diagnosis():
    bug = load()["bugs"]["grads_overwritten"]
    sid = next(iter(bug["scenarios"]))
    odd = {"label": "something else", "field": "values", "reference": "1", "engine": "2"}
    assert diagnose([_failed(sid, [odd])]) == []


def test_a_bugs_own_differences_name_it_with_its_rule_and_text():
    """The differences a signature always holds, as a report would carry them."""
    bug = load()["bugs"]["grads_overwritten"]
    results = []
    for sid, entry in bug["scenarios"].items():
        diffs = []
        for key in entry["always"]:
            label, field, shape = key.split("|")
            reference, engine = shape.split(" -> ")
            diffs.append({"label": label, "field": field, "reference": reference, "engine": engine})
        if diffs:
            results.append(_failed(sid, diffs))
    found = diagnose(results)
    assert found[0]["bug"] == "grads_overwritten"
    assert found[0]["rule"] == "L8" and found[0]["confidence"] > 0.9
    assert "instead of adding" in found[0]["text"]


def test_the_class_report_counts_each_mistake_once_per_submission_with_its_students():
    from types import SimpleNamespace

    from coursekit.classroom.results.mistakes import common_mistakes

    def run(*cells):
        return SimpleNamespace(result={"cells": list(cells)})

    def cell(status, *bugs):
        return {"status": status, "diagnoses": [{"bug": b, "rule": "L8", "text": b} for b in bugs]}

    runs = {
        ("ann", "leaf_nodes"): run(cell("failed", "grads_overwritten"),
                                   cell("failed", "grads_overwritten", "detach_copies")),
        ("bob", "leaf_nodes"): run(cell("failed", "grads_overwritten")),
        ("cy", "leaf_nodes"): run(cell("failed", "detach_copies"),
                                  cell("passed", "stack_cuts_graph")),
        ("dee", "leaf_nodes"): run(cell("failed")),
    }  # fmt: skip
    found = common_mistakes(runs)
    assert [(m["bug"], m["submissions"], m["students"]) for m in found] == [
        ("grads_overwritten", 2, ["ann", "bob"]),
        ("detach_copies", 1, ["cy"]),
    ]


def test_validate_and_check_say_what_the_mistake_looks_like():
    """An exercise's typical wrong answer, as a test cell checks it: its verdict (Validate's
    message, `check`'s and the sealed grade's) and the full report name the mistake."""
    from coursekit.exercises.grading import check_seams, verdict
    from coursekit.exercises.planted import BUGS, answer_functions

    bug = BUGS["leaf_nodes"][0]  # later gradients added in, .grad's version not counted
    namespace = answer_functions("leaf_nodes", bug)
    report = check_seams(namespace, "leaf_nodes", [bug.rule], seed=5)
    assert report.diagnoses and report.diagnoses[0]["bug"] == f"leaf_nodes.{bug.rule}"
    looks_like = f"This looks like: {bug.why} (rule {bug.rule})"
    assert looks_like in verdict(report, [bug.rule])
    assert looks_like in str(report) and html.escape(looks_like) in report._repr_html_()


def test_the_mutant_tally_places_each_mutant_on_its_line_in_its_seam_file():
    """bench.diagnoses lists the killed mutants no diagnosis names by file and line: each
    line is inside its function's solution region, and a mutant of a condition is on the
    line that holds it."""
    from bench.diagnoses import mutant_places
    from coursekit.edition import SEAMS

    places = mutant_places()
    assert places
    for what, place in places.items():
        lines = (SEAMS.parent / place["file"]).read_text().splitlines()
        above = lines[: place["line"] - 1]
        assert "### BEGIN SOLUTION" in next(x for x in reversed(above) if "SOLUTION" in x), what
        assert next(x for x in reversed(above) if x.startswith("def ")).startswith(
            f"def {place['function']}("
        ), what
    negated = next(p for p in places.values() if p["mutation"].startswith("negate in `if value"))
    line = (SEAMS.parent / negated["file"]).read_text().splitlines()[negated["line"] - 1]
    assert line.strip().startswith("if value") and negated["function"] == "set_grad"


def test_the_tally_lists_the_failures_no_diagnosis_names_rightly():
    from bench.diagnoses import Tally

    tally = Tally()
    place = {"file": "seams/x.py", "line": 3, "function": "f", "mutation": "m", "rules": ["L8"]}
    tally.add("named rightly", [{"bug": "a"}], {"a"}, place)
    tally.add("named wrongly", [{"bug": "b"}], {"a"}, place)
    tally.add("no planted bug alike", [], set(), place)
    figures = tally.figures()
    assert (figures["right"], figures["wrong"], figures["diagnosable"]) == (1, 1, 2)
    found = figures["undiagnosed"]
    assert (found["count"], found["no_diagnosis"], found["no_planted_bug_alike"]) == (2, 1, 1)
    assert [(f["named"], f["diagnosable"]) for f in found["list"]] == [("b", True), (None, False)]
