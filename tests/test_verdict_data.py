"""A hidden test cell's verdict as data (coursekit/exercises/verdict_data.py), read back by the
class pipeline (coursekit/classroom/grading/outputs.py) whatever the class's language; notebooks
autograded before it existed still read; feedback pages leave it out."""

from __future__ import annotations

import nbformat
import pytest

from coursekit.classroom.grading.outputs import _cell_facts, _sealed_facts, status_and_message
from coursekit.exercises import verdict_data
from coursekit.i18n import speaking

NO_GPU_EN = "not run: no GPU on the grader"  # as the grader says it, and said it before
NO_GPU_ZH = "未运行：评分机器上没有 GPU"


def data(**changes) -> dict:
    found = {"version": 1, "status": "failed", "reason": "", "failed": ["leaf.a"], "seed": 7}
    return {**found, **changes}


def shown(value) -> dict:
    return nbformat.v4.new_output("display_data", data={verdict_data.MIME: value})


def test_the_last_well_formed_verdict_is_read_and_anything_else_is_not():
    """A kernel that graded also ran the student's code, which can show outputs of any type:
    a verdict is read only in its shape, and grade()'s own comes last."""
    assert verdict_data.read([]) is None
    later = data(status="passed", failed=[], seed=8)
    assert verdict_data.read([shown(data()), shown(later)])["status"] == "passed"
    assert verdict_data.read([shown(later), shown({"status": "failed"})])["seed"] == 8
    for bad in (
        data(version=2),
        data(status="PASSED"),
        data(reason="no GPU, honest"),
        data(failed="leaf.a"),
        data(failed=[1]),
        data(seed=True),
        data(seed="7"),
        data(seed=-1),
        data(seed=2**63),
        data(failed=["<b>leaf.a</b>"]),
        data(failed=["x" * 121]),
        data(failed=["leaf.a"] * 1001),
        ["not", "a", "dict"],
    ):
        assert verdict_data.read([shown(bad)]) is None, bad
    stream = nbformat.v4.new_output("stream", name="stdout", text=str(data()))
    assert verdict_data.read([stream]) is None


def _cell(*outputs):
    cell = nbformat.v4.new_code_cell("grade(globals(), 'devices', RULES, 'cuda')")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "test_cuda_devices", "points": 2}
    cell.outputs = list(outputs)
    return cell


def _error(text: str):
    return nbformat.v4.new_output("error", ename="AssertionError", evalue=text, traceback=[])


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_cuda_cell_not_run_is_known_by_its_reason_in_either_language(language):
    """What grade() leaves in the kernel's cell for a CUDA cell on a GPU-less grader: its
    words in the notebook's language, its reason as data. The pipeline says why in the
    class's language."""
    words = {"en": NO_GPU_EN, "zh-CN": NO_GPU_ZH}[language]
    verdict = data(status="not run", reason=verdict_data.NO_GPU, failed=["dev.a"], seed=3)
    facts = _cell_facts(_cell(shown(verdict), _error(words)))
    assert (facts["reason"], facts["failed"], facts["seeds"]) == ("no GPU", ["dev.a"], [3])
    assert status_and_message(0.0, 2.0, facts) == ("not run", NO_GPU_EN)
    with speaking("zh-CN"):
        assert status_and_message(0.0, 2.0, facts) == ("not run", NO_GPU_ZH)
    words_only = _cell_facts(_cell(_error(NO_GPU_ZH)))  # Chinese words are never parsed
    assert status_and_message(0.0, 2.0, words_only) == ("failed", f"AssertionError: {NO_GPU_ZH}")


def test_a_notebook_graded_before_the_verdict_data_is_read_from_its_english_report():
    """grade() printed its report in English, and nothing else, before it showed its verdict
    as data: a notebook autograded then (its outputs as that grade() wrote them) reads the
    same."""
    printed = nbformat.v4.new_output(
        "stream",
        name="stdout",
        text="your engine vs PyTorch 2.13.0+cpu on cpu, seed 4242: score 0.50 (1/2 scenarios) "
        "NOT PASSED\n\n[leaf.op_result_not_leaf] failed (rules L3; weight 1)\n",
    )
    facts = _cell_facts(_cell(printed, _error("NOT PASSED: rule L3")))
    assert (facts["failed"], facts["seeds"], facts["reason"]) == (
        ["leaf.op_result_not_leaf"], [4242], "")  # fmt: skip
    assert status_and_message(0.0, 2.0, facts) == ("failed", "AssertionError: NOT PASSED: rule L3")
    cuda = _cell_facts(_cell(_error(NO_GPU_EN)))
    assert cuda["reason"] == verdict_data.NO_GPU
    assert status_and_message(0.0, 2.0, cuda)[0] == "not run"


def test_a_sealed_verdict_says_not_run_by_its_status_and_reason():
    """A sealed verdict records why a cell was not run; one recorded before reasons were has
    only its status, whose one cause then was a GPU-less grader."""
    verdict = {"status": "not run", "verdict": NO_GPU_ZH, "scenarios": ["d.a"], "failed": ["d.a"]}
    for recorded in ({**verdict, "reason": verdict_data.NO_GPU}, verdict):
        facts = _sealed_facts(recorded, 5)
        assert facts["reason"] == verdict_data.NO_GPU
        assert status_and_message(0.0, 2.0, facts) == ("not run", NO_GPU_EN)
    failed = _sealed_facts({**verdict, "status": "failed", "verdict": "未通过：规则 V1\n..."}, 5)
    assert status_and_message(0.0, 2.0, failed) == ("failed", "未通过：规则 V1")


def test_feedback_pages_leave_the_verdict_data_out():
    from coursekit.classroom.results.feedback import DropVerdictData

    printed = nbformat.v4.new_output("stream", name="stdout", text="report\n")
    cell = _cell(printed, shown(data()), _error("NOT PASSED: rule V1"))
    cell, _ = DropVerdictData().preprocess_cell(cell, {}, 0)
    assert [o.output_type for o in cell.outputs] == ["stream", "error"]
