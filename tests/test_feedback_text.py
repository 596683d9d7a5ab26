"""Feedback that reads like Python and like the course (issue 29, item 5): values in Python's
words, each failing rule once with its first difference, the lecture section by the heading
a student sees (and a path to it that works from where the notebook is), a CUDA cell that
says in one line that it did not run without a GPU."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import nbformat
import pytest

from autograder.compare import compare_observation, describe
from autograder.report import lecture_link, lecture_section
from autograder.rules import statement
from autograder.scenarios import select
from coursekit.exercises.grading import NOT_RUN_HERE, NotPassed, check_rule
from coursekit.exercises.planted import BUGS, answer_functions

REPO = Path(__file__).resolve().parent.parent
JSON_WORDS = re.compile(r"\b(null|true|false)\b")


def _observation(value, raised=None, label="c.retain_grad()"):
    return {"label": label, "kind": "call", "value": value, "raised": raised, "warnings": []}


def test_differences_are_printed_in_pythons_words():
    """A call PyTorch answers with None, flags True and False: never JSON's null/true/false."""
    (diff,) = compare_observation(
        _observation(None), _observation(None, {"type": "RuntimeError", "message": "no"})
    )
    assert diff["reference"] == "returned None", diff
    snap = {"shape": [1], "dtype": "float32", "device": "cpu", "requires_grad": False,
            "is_leaf": True, "grad_fn": None, "retains_grad": False, "values": [1.0],
            "repr": "tensor([1.])"}  # fmt: skip
    text = describe({"tensor": snap})
    assert text == "tensor([1.]) (requires_grad=False, is_leaf=True, grad_fn=None)", text
    assert describe([None, True, False]) == "[None, True, False]"


def test_a_failing_cell_says_its_rule_once_its_first_difference_and_how_many_more():
    """What Validate shows under a wrong retain_grad: the rule in words once, the section by
    its heading with the lecture's path, PyTorch's value next to the engine's in Python's
    words, then how many more differences, in a few lines and without the checker's frames."""
    bug = next(b for b in BUGS["leaf_nodes"] if b.rule == "L4")
    with pytest.raises(NotPassed) as failed:
        check_rule(answer_functions("leaf_nodes", bug), "leaf_nodes", ["L4"])
    text = str(failed.value)
    lines = text.splitlines()
    assert lines[0] == "NOT PASSED: rule L4", text
    assert text.count(statement("L4")) == 1, text
    assert 'Reread section "retain_grad()" of lecture 02_leaf_nodes' in text, text
    assert "course/02_leaf_nodes.ipynb#retain-grad" in text, text
    assert "retain-grad" not in text.replace("#retain-grad", ""), text  # no bare anchor id
    first = lines.index(next(line for line in lines if line.startswith("First difference")))
    assert lines[first + 1].startswith("  PyTorch:") and lines[first + 2].startswith("  your ")
    listed = r"(make check VERBOSE=1|minigrad-course check --verbose NOTEBOOK) lists them"
    assert re.fullmatch(rf"and \d+ more \({listed}\)", lines[-1]), lines[-1]
    assert not JSON_WORDS.search(text), text
    assert len(lines) <= 10, text
    assert failed.value._render_traceback_() == [f"NotPassed: {text}"]


def test_an_unwritten_function_is_named_where_it_decides_the_verdict():
    """A stub as released (bare NotImplementedError) bound for its rule: the verdict names
    the function to write, not a NotImplementedError from nowhere."""
    namespace = answer_functions("leaf_nodes")
    source = 'def retain_grad(tensor):\n    """Doc."""\n    raise NotImplementedError()\n'
    path = Path("/nonexistent/answer_cell.py")  # inspect reads a cell's source from linecache
    import linecache

    linecache.cache[str(path)] = (len(source), None, source.splitlines(True), str(path))
    exec(compile(source, str(path), "exec"), namespace)
    with pytest.raises(NotPassed) as failed:
        check_rule(namespace, "leaf_nodes", ["L4"])
    text = str(failed.value)
    assert "retain_grad() not written yet" in text.splitlines()[1], text


def test_every_section_is_shown_by_its_heading_with_a_path_that_exists():
    """From an exercise's folder in a clone, each scenario's section reads as the heading
    the lecture shows, and its path leads to the lecture from there."""
    here = REPO / "exercises" / "leaf_nodes"
    for sc in select():
        title, href = lecture_link(sc.lecture, here)
        path, _, anchor = sc.lecture.partition("#")
        assert title and title != anchor, (sc.id, title)
        lecture = (here / href.partition("#")[0]).resolve()
        assert lecture == (REPO / path).resolve(), (sc.id, href)
        cells = json.loads(lecture.read_text())["cells"]
        shown = ["".join(c["source"]).replace("`", "").replace("$", "") for c in cells]
        assert any(f"# {title}\n" in text + "\n" for text in shown), (sc.id, title)
    # where no lecture is above the notebook (a hub's home), the heading without a path
    assert lecture_section("course/02_leaf_nodes.ipynb#retain-grad", Path("/")).startswith(
        'section "retain_grad()" of lecture 02_leaf_nodes'
    )


def test_a_cuda_cell_without_a_gpu_is_one_quiet_line_and_passes():
    """The released CUDA cell's visible part, run where no GPU is: it prints one line and
    raises nothing (Validate passes it; its points are not counted here)."""
    import minigrad

    if minigrad.cuda.is_available():
        pytest.skip("a GPU is here: the cell runs its asserts")
    nb = nbformat.read(REPO / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id", "") ==
               "test_cuda_leaf_nodes"]  # fmt: skip
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(cell.source, "<cuda cell>", "exec"), answer_functions("leaf_nodes"))
    assert printed.getvalue() == NOT_RUN_HERE + "\n"
