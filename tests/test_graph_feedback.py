"""The student's graph beside PyTorch's, the first node where they differ marked (issue 34,
item 3; autograder/graph_diff.py): in `check`'s report, and in the graded feedback page, as
the page's sanitiser leaves it."""

from __future__ import annotations

import base64
import html
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest
import torch
from planted_bugs import BUGS

import minigrad
from autograder import check
from autograder.graph_diff import (
    HTML_LIMIT,
    MARK,
    MAX_NODES,
    MAX_TEXT,
    UNREADABLE,
    capture,
    first_difference,
    pictures,
    pictures_html,
)
from coursekit.classroom.results.display_budget import PAGE_BYTES, SHOWN_CHARS
from coursekit.planted import planted_engine
from minigrad.viz import ALERT

REPO = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"
IMAGES = re.compile(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"')


def marked_box(svg: str) -> list[str]:
    """The texts inside the box drawn with the marking outline (red, thick)."""
    root = ET.fromstring(svg)
    rects = [r for r in root.iter(SVG + "rect")
             if r.get("stroke") == ALERT and float(r.get("stroke-width", 0)) > 3]  # fmt: skip
    assert len(rects) == 1, f"{len(rects)} marked boxes"
    box = rects[0]
    left, top = float(box.get("x")), float(box.get("y"))
    right, bottom = left + float(box.get("width")), top + float(box.get("height"))
    inside = [t for t in root.iter(SVG + "text") if left <= float(t.get("x")) <= right]
    return [t.text for t in inside if top <= float(t.get("y")) <= bottom]


def test_an_inner_node_that_differs_is_the_one_marked():
    """PyTorch itself, two graphs of a * b: b a leaf that requires grad, or a constant. The
    first difference is b's slot of MulBackward0: its AccumulateGrad against None."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with_b = a * torch.tensor([3.0, 4.0], requires_grad=True)
    without_b = a * torch.tensor([3.0, 4.0])
    mine, theirs = capture(with_b), capture(without_b)
    i, j = first_difference(mine, theirs)
    assert mine["nodes"][i]["title"] == "AccumulateGrad"
    assert (theirs["nodes"][j]["kind"], theirs["nodes"][j]["title"]) == ("none", "None")
    assert first_difference(mine, capture(a * torch.tensor([5.0, 6.0], requires_grad=True))) is None
    comparison = {"label": "a * b", "field": "grad_fn", "pytorch": mine, "engine": theirs,
                  "first": [i, j]}  # fmt: skip
    left, right = (p.svg() for p in pictures(comparison))
    assert marked_box(left)[:2] == ["AccumulateGrad", f"<- {MARK}"]
    assert marked_box(right)[:2] == ["None", f"<- {MARK}"]


def test_a_compared_graph_shown_in_chinese_says_its_words_in_chinese(monkeypatch):
    """The feedback's two pictures in a Chinese class: the captured (English) lines of a stale
    saved tensor, of a cut and the mark are shown in the catalogue's Chinese, names, types,
    versions and grad_fn names as captured; in English, exactly as captured."""
    from coursekit import i18n

    monkeypatch.delenv("MINIGRAD_COURSE_LANG", raising=False)
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.sigmoid()
    out = b * 2
    b.mul_(2)
    stale = capture(out)
    cut_lines = [
        "graph cut here: no grad_fn, requires_grad=False",
        "is_leaf=True requires_grad=False",
    ]
    cut = {
        "nodes": [{"kind": "cut", "title": "float32[2]", "lines": cut_lines, "alerts": []}],
        "edges": [],
        "left_out": 0,
    }  # fmt: skip  (an engine's graph cut where PyTorch's is not)
    comparison = {"label": "out", "field": "grad_fn", "pytorch": stale, "engine": cut,
                  "first": [0, 0]}  # fmt: skip
    stale_line = "saved result: float32[2], version 0, now 1: modified in place!"
    words = i18n.catalogue("zh-CN").gettext

    def texts(picture) -> str:
        return " ".join(html.unescape(t) for t in re.findall(r">([^<>]+)</text>", picture.svg()))

    english = [texts(p) for p in pictures(comparison)]
    assert stale_line[:MAX_TEXT] in english[0] and f"<- {MARK}" in english[0]
    assert "graph cut here: no grad_fn, requires_grad=False" in english[1]
    with i18n.speaking("zh-CN"):
        chinese = [texts(p) for p in pictures(comparison)]
        caption = pictures_html(comparison)
    stale_zh = words("saved {name}: {tensor}, version {then}, now {now}: modified in place!")
    stale_zh = stale_zh.format(name="result", tensor="float32[2]", then=0, now=1)
    assert stale_zh != stale_line and stale_zh[:MAX_TEXT] in chinese[0]
    assert f"<- {words('first difference')}" in chinese[0] and MARK not in chinese[0]
    assert words("graph cut here: no grad_fn, requires_grad=False") in chinese[1]
    assert "MulBackward0" in chinese[0] and "is_leaf=False requires_grad=True" in chinese[0]
    assert html.escape(repr(words("first difference"))) in caption


def test_a_graph_captured_in_a_chinese_folder_is_in_the_words_the_checker_reads(
    tmp_path, monkeypatch
):
    """A Chinese lecture or exercise folder draws its pictures in Chinese (minigrad.viz), but
    a captured graph is data: in the English texts _checked reads and PyTorch's recorded
    observations hold, so an engine's graph is not UNREADABLE there."""
    from autograder.graph_diff import _checked
    from coursekit.languages import in_language

    monkeypatch.delenv("MINIGRAD_COURSE_LANG", raising=False)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("A leaf.")])
    nbformat.write(in_language(nb, "zh-CN"), str(tmp_path / "exercise.ipynb"))
    monkeypatch.chdir(tmp_path)
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.sigmoid()
    out = b * 2
    b.mul_(2)
    graph = capture(out)
    lines = [line for node in graph["nodes"] for line in node["lines"]]
    assert "saved result: float32[2], version 0, now 1: modified in place!" in lines
    assert UNREADABLE not in str(_checked(graph))


@pytest.mark.parametrize("name", ["stack_cuts_graph", "to_returns_a_leaf"])
def test_a_planted_graph_bug_gets_both_graphs_with_the_first_difference_marked(name):
    bug = BUGS[name]
    report = check(planted_engine(bug, name), rules=[bug.rule], seed=3)
    graph = report.graph
    assert graph is not None and not report.passed
    ours = graph["pytorch"]["nodes"][graph["first"][0]]
    theirs = graph["engine"]["nodes"][graph["first"][1]]
    if name == "stack_cuts_graph":  # torch.stack of tensors that require grad: StackBackward0
        expected = torch.stack([torch.ones(2, requires_grad=True)] * 2, dim=-1).grad_fn
        assert type(expected).__name__ in [n["title"] for n in graph["pytorch"]["nodes"]]
        assert ours["lines"] == ["is_leaf=False requires_grad=True"]
        assert theirs["lines"] == ["is_leaf=True requires_grad=False"]
        assert len(graph["engine"]["nodes"]) == 1  # cut: nothing behind it
    else:  # .to(): PyTorch's result hangs from ToCopyBackward0; the bug makes a new leaf
        assert "ToCopyBackward0" in [n["title"] for n in graph["pytorch"]["nodes"]]
        assert (ours["kind"], theirs["kind"]) == ("tensor", "leaf")
        assert ours["lines"][0] == "is_leaf=False requires_grad=True"
        assert theirs["lines"][0] == "is_leaf=True requires_grad=True"
    shown = pictures_html(graph)
    svgs = [base64.b64decode(data).decode() for _, data in IMAGES.findall(shown)]
    assert len(svgs) == 2
    assert marked_box(svgs[0])[:2] == [ours["title"], ours["lines"][0]]
    assert marked_box(svgs[1])[:2] == [theirs["title"], theirs["lines"][0]]
    assert f"<- {MARK}" in marked_box(svgs[0]) and f"<- {MARK}" in marked_box(svgs[1])
    assert graph["label"] in shown and "first differs from PyTorch" in report._repr_html_()


def test_engines_that_pass_or_fail_without_a_graph_difference_get_no_graph():
    assert check(minigrad, topics=["rebuild"], seed=3).graph is None
    bug = BUGS["grads_overwritten"]  # gradient values only: no flag, no node differs
    report = check(planted_engine(bug, "values_only"), rules=[bug.rule], seed=3)
    assert report.failures and report.graph is None


def test_an_engine_graph_that_is_not_one_capture_makes_is_not_drawn():
    """The engine's side comes from the sandbox: anything odd in it, no picture, no error."""
    from autograder.graph_diff import compared

    graph = capture(torch.ones(2, requires_grad=True) * 2)
    snapshot = {"shape": [2], "dtype": "float32", "requires_grad": True, "is_leaf": False,
                "grad_fn": "MulBackward0", "graph": graph}  # fmt: skip
    reference = {"status": "ok", "observations": [{"label": "y", "value": {"tensor": snapshot}}]}
    diff = {"label": "y", "field": "grad_fn", "reference": "'MulBackward0'", "engine": "None"}
    for odd in (
        {"nodes": [{"kind": "script", "title": "x", "lines": []}], "edges": []},
        {"nodes": [{"kind": "tensor", "title": "x", "lines": []}], "edges": [[0, 7, "flow"]]},
        {"nodes": [{"kind": "tensor", "title": "x", "lines": ["a"] * 50}], "edges": []},
        {"nodes": [{"kind": "tensor", "title": "x", "lines": []}] * 500, "edges": []},
        "not a graph",
    ):
        engine = {"status": "ok", "observations": [
            {"label": "y", "value": {"tensor": {**snapshot, "graph": odd}}}]}  # fmt: skip
        assert compared(reference, engine, [diff]) is None, odd
    # the engine's own words: a box says only what minigrad.viz writes, else "(unreadable)"
    words = ["the reference answer is: return tensor._grad", "is_leaf=True requires_grad=True"]
    engine = {"status": "ok", "observations": [
        {"label": "y", "value": {"tensor": {**snapshot, "graph": {
            "nodes": [{"kind": "tensor", "title": "<script>x</script>", "lines": words}],
            "edges": [], "left_out": 0}}}}]}  # fmt: skip
    shown = pictures_html(compared(reference, engine, [diff]))
    svg = base64.b64decode(IMAGES.findall(shown)[1][1]).decode()
    assert marked_box(svg)[:3] == [UNREADABLE, UNREADABLE, "is_leaf=True requires_grad=True"]
    assert "script" not in shown + svg and "reference answer" not in shown + svg


def test_the_largest_graph_two_pictures_can_show_stays_within_the_display_budget():
    """The most an engine's graph may hold (_checked's limits), every text at its longest:
    one output a feedback page shows whole (never cut mid-image)."""
    assert HTML_LIMIT < SHOWN_CHARS
    node = {"kind": "function", "title": "T" * 200, "lines": ["l" * 200] * 6, "alerts": [0]}
    n = 2 * MAX_NODES
    edges = [[i, i - 1, "flow"] for i in range(1, n)] + [[i, 0, "flow"] for i in range(2, n)]
    graph = {"nodes": [node] * n, "edges": edges[: 4 * MAX_NODES], "left_out": 9}
    comparison = {"label": "y" * 300, "field": "grad_fn", "pytorch": graph, "engine": graph,
                  "first": [3, 3]}  # fmt: skip
    shown = pictures_html(comparison)
    assert len(shown) <= HTML_LIMIT
    svgs = [base64.b64decode(data).decode() for _, data in IMAGES.findall(shown)]
    assert [marked_box(s)[0] for s in svgs] == ["T" * 60] * 2


def feedback_page(tmp_path: Path) -> tuple[str, dict]:
    """A sealed grade of the rebuilding_tensors notebook with a typical R1 mistake (tensor()
    of parts keeps their graph), rendered as nbgrader's feedback renders it: its template,
    the course's sanitiser (safe_html), then the page's finishing (policy, notes)."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.converters import GenerateFeedback
    from traitlets.config import Config

    from coursekit import sealed
    from coursekit.classroom.results.display_budget import CutForDisplay
    from coursekit.classroom.results.feedback import _finish_page
    from coursekit.classroom.safe_html import render_safely
    from coursekit.exercises.planted import BUGS as EXERCISE_BUGS
    from coursekit.exercises.planted import answered
    from coursekit.sealed.nbgrader_steps import seal_outputs

    name = "rebuilding_tensors"
    bug = next(b for b in EXERCISE_BUGS[name] if b.rule == "R1")
    contract = sealed.Contract.from_notebook(REPO / "solutions" / name / f"{name}.ipynb")
    nb = json.loads(answered(REPO / "exercises" / name / f"{name}.ipynb", name, bug))
    result = sealed.grade_notebook(contract, nb, seed=3)
    nb = seal_outputs(nbformat.reads(json.dumps(nb), as_version=4), result)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["score"] = result.cells[meta["grade_id"]].points
    config = Config()
    render_safely(config)
    config = GenerateFeedback(config=config).config
    exporter = HTMLExporter(config=config)
    exporter.register_preprocessor(CutForDisplay, enabled=True)
    facts = {"notebook": name, "score": result.score, "max_score": result.max_score,
             "late_penalty": 0}  # fmt: skip
    page, _ = exporter.from_notebook_node(nb, resources={"nbgrader": facts})
    path = tmp_path / f"{name}.html"
    path.write_text(page)
    _finish_page(path, [])
    return path.read_text(), result.cells["test_R1"].graph


@pytest.mark.slow
def test_the_feedback_page_shows_both_graphs_marked_within_its_budget(tmp_path):
    page, graph = feedback_page(tmp_path)
    assert graph is not None
    images = IMAGES.findall(page)  # kept by the sanitiser, as data: images
    assert [alt.split(":")[0] for alt, _ in images] == ["PyTorch", "your engine"]
    svgs = [base64.b64decode(data).decode() for _, data in images]
    for svg, side, node in zip(svgs, ("pytorch", "engine"), graph["first"], strict=True):
        assert marked_box(svg)[0] == graph[side]["nodes"][node]["title"]
    assert "StackBackward0" in svgs[1] and "StackBackward0" not in svgs[0]
    assert "first differs from PyTorch" in page
    assert len(page.encode()) < PAGE_BYTES


@pytest.mark.slow
def test_a_test_cells_check_shows_the_pictures_in_jupyter_and_check_says_where(monkeypatch):
    """The visible check of a test cell, in a notebook: the verdict raised, the pictures
    displayed; `check`'s line for the cell names where the graphs first differ."""
    import IPython
    import IPython.display

    from coursekit.exercises.grading import NotPassed, check_rule
    from coursekit.exercises.planted import BUGS as EXERCISE_BUGS
    from coursekit.exercises.planted import answer_functions
    from coursekit.exercises.selfcheck import hidden_checks_in_kernel

    name = "rebuilding_tensors"
    bug = next(b for b in EXERCISE_BUGS[name] if b.rule == "R1")
    namespace = answer_functions(name, bug)
    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", shown.append)
    with pytest.raises(NotPassed):
        check_rule(namespace, name, ["R1"])
    images = [IMAGES.findall(h.data) for h in shown if "data:image/svg+xml" in h.data]
    assert len(images) == 1 and len(images[0]) == 2
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    printed = []
    monkeypatch.setattr("builtins.print", lambda *a, **k: printed.append(" ".join(map(str, a))))
    hidden_checks_in_kernel(namespace, name, seed=5)
    cells = json.loads(printed[-1].partition(" ")[2])["cells"]
    assert cells["test_R1"]["graph"].startswith("The graph behind 'A1 = T.tensor(parts)'")
    assert cells["test_R2"]["graph"] == ""  # a cell that passed


def test_graphs_never_decide_a_comparison():
    """Which nodes an engine builds is its own choice: a tensor's fields are compared, never
    its graph, also inside a dict (compared whole)."""
    from autograder.compare import diff_values
    from autograder.recorder import Recorder

    w = torch.ones(2, requires_grad=True)
    one, other = Recorder(), Recorder()
    assert diff_values(one.encode(w * 2), other.encode(w * 1 * 2)) == []
    assert diff_values(one.encode({"y": w * 2}), other.encode({"y": w * 1 * 2})) == []
    assert diff_values(one.encode([w * 2]), other.encode([w * 1 * 2])) == []
