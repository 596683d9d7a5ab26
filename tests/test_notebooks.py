"""Every lecture notebook runs headless on CPU with no error and no unexpected warning; notebooks
are committed without outputs; links between lectures, and the catalogue's citations, resolve."""

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("notebook_tools", ROOT / "tools" / "notebooks.py")
nbtools = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nbtools)

NOTEBOOKS = nbtools.course_notebooks()
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_ANCHOR = re.compile(r"<a id=\"([^\"]+)\"")


def one_group_each(paths):
    """pytest-xdist (--dist loadgroup) runs each notebook in its own group."""
    return [pytest.param(p, id=p.name, marks=pytest.mark.xdist_group(p.stem)) for p in paths]


def markdown(path):
    nb = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def anchors(path):
    return set(_ANCHOR.findall(markdown(path)))


def test_there_are_lectures():
    names = [p.name for p in NOTEBOOKS]
    assert "00_start_here.ipynb" in names
    assert len(names) >= 4


@pytest.mark.parametrize("path", one_group_each(NOTEBOOKS))
def test_notebook_runs_clean(path):
    nb = nbtools.execute(path)
    assert nbtools.unexpected_warnings(nb) == []


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in NOTEBOOKS])
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    assert not nbtools.has_outputs(nb), f"run: python tools/notebooks.py strip {path}"


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in NOTEBOOKS])
def test_links_resolve(path):
    for target in _LINK.findall(markdown(path)):
        if target.startswith(("http://", "https://", "#")):
            continue
        file, _, anchor = target.partition("#")
        # exercises/ holds the release (CUDA cells included); a student works in the copy
        # the Assignment List fetches, which no link can name before it exists
        assert not file.startswith("../exercises/"), f"{path.name} links to the release {file}"
        linked = path.parent / file
        assert linked.exists(), f"{path.name} links to missing {file}"
        if anchor:
            assert anchor in anchors(linked), f"{path.name} links to missing {target}"


def test_exercises_are_named_in_course_order_with_the_copy_a_student_submits():
    from coursekit.exercises.assignments import ASSIGNMENTS

    start = markdown(nbtools.COURSE / "00_start_here.ipynb")
    places = [start.index(f"| **{a.name}** |") for a in ASSIGNMENTS]
    assert places == sorted(places), "the start page lists the exercises out of course order"
    for a in ASSIGNMENTS:
        lecture = markdown(nbtools.ROOT / a.lecture)
        assert f"`{a.fetched_copy}`" in lecture, a.lecture


def test_start_page_links_every_lecture():
    start = markdown(ROOT / "course" / "00_start_here.ipynb")
    for path in NOTEBOOKS:
        if path.name != "00_start_here.ipynb":
            assert f"]({path.name})" in start, f"00_start_here does not link {path.name}"


def test_catalogue_cites_existing_sections():
    from autograder.scenarios import load_catalogue

    missing = []
    for sc in load_catalogue().values():
        file, _, anchor = sc.lecture.partition("#")
        if not (ROOT / file).exists() or anchor not in anchors(ROOT / file):
            missing.append(f"{sc.id} -> {sc.lecture}")
    assert missing == []


def test_strip_removes_outputs_and_keeps_tags(tmp_path):
    cell = nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["warning-expected"]})
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    cell.execution_count = 3
    cell.metadata["execution"] = {"iopub.status.busy": "2024-01-01"}
    path = tmp_path / "x.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    nbtools.strip_files([path])
    nb = nbformat.read(path, as_version=4)
    assert not nbtools.has_outputs(nb)
    assert nb.cells[0].metadata == {"tags": ["warning-expected"]}
    assert not nbtools.strip(nb)  # a second strip changes nothing


def test_unexpected_warnings_spares_tagged_cells():
    warn = nbformat.v4.new_output("stream", name="stderr", text="UserWarning: careful\n")
    tagged = nbformat.v4.new_code_cell("", metadata={"tags": ["warning-expected"]})
    plain = nbformat.v4.new_code_cell("")
    tagged.outputs = [warn]
    plain.outputs = [warn]
    nb = nbformat.v4.new_notebook(cells=[tagged, plain])
    assert nbtools.unexpected_warnings(nb) == [(1, "UserWarning: careful\n")]


def test_site_pages_have_pictures_and_page_links(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    cells = [
        nbformat.v4.new_markdown_cell(
            "# 9. A `tiny` lecture\nSee [the other](98_other.ipynb#top)."
        ),
        nbformat.v4.new_code_cell(
            "import torch\nfrom minigrad.viz import draw\n"
            "x = torch.ones(2, requires_grad=True)\ndraw((x * 2).sum())"
        ),
    ]
    path = course / "99_tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    nbtools.build_site(tmp_path / "site", [path])
    page = (tmp_path / "site" / "99_tiny.html").read_text()
    assert "<svg" in page and "SumBackward0" in page
    assert 'href="98_other.html#top"' in page
    index = (tmp_path / "site" / "index.html").read_text()
    assert '<a href="99_tiny.html">9. A <code>tiny</code> lecture</a>' in index
