"""One verdict, three windows (issue 29): for the same exercise notebook, nbgrader's Validate,
`check` and the instructor's sealed grade agree, on the clone and on the students'
distribution (installed in a fresh environment, with PyTorch and without it).

The notebooks: every answer right; each single function right and the rest as released;
each single function wrong and the rest right; untouched. The sealed grade is the truth
(the instructor's, on the course's own functions for what a cell does not grade). A window
may differ from it only where it says a cell is NOT CONFIRMED, naming the function still to
write or still failing its own rule (the class edition has no reference to stand in for
it), and `check` counts those points apart from its total.

The whole set on the clone and the students' distribution with PyTorch, for one assignment
(leaf_nodes: its four functions make ten notebooks; every assignment's would be about five
times as long); without PyTorch (the recorded observations), four of them. Each window runs
a route's notebooks through one process (a kernel per notebook, as the window does); the
students' distribution and the sealed grades are made once for the session
(tests/students_distribution.py, tests/session_once.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from session_once import once_per_session
from test_package_install import course_command

from coursekit import sealed
from coursekit.exercises.grading import PUBLIC_SEED
from coursekit.exercises.planted import BUGS, solution_sources
from coursekit.planted import Bug, planted_in
from minigrad import seams

REPO = Path(__file__).resolve().parent.parent
NAME = "leaf_nodes"
RELEASED = REPO / "exercises" / NAME / f"{NAME}.ipynb"
SOURCE = REPO / "solutions" / NAME / f"{NAME}.ipynb"
SEED = PUBLIC_SEED  # what Validate checks on; recorded, so `check` without PyTorch can too
# one typical mistake per function (the planted bugs of the course, and one for read_grad)
WRONG = {
    "read_grad": Bug("L3", "", "        warn(msg.NONLEAF_GRAD_ACCESS)\n", "        pass\n", ""),
    "retain_grad": next(b for b in BUGS[NAME] if b.rule == "L4"),
    "accumulate_grad": next(b for b in BUGS[NAME] if b.rule == "L8"),
    "set_grad": next(b for b in BUGS[NAME] if b.rule == "L13"),
}
GENEROUS = sealed.Limits(wall_s=900, cpu_s=600, cell_s=300, scenario_s=120)
CHECK_LINE = re.compile(r"^(test_\w+)\s+(\S+) / (\S+)\s+(.*)$")

pytestmark = [pytest.mark.slow]


def notebooks() -> dict[str, str]:
    """name -> notebook text, the set every window sees."""
    answers = solution_sources(NAME)  # answer_<function> -> the reference answer
    functions = list(seams.graded(NAME))

    def written(chosen: dict[str, str]) -> str:
        nb = nbformat.read(RELEASED, as_version=4)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if grade_id.removeprefix("answer_") in chosen:
                cell.source = chosen[grade_id.removeprefix("answer_")]
        return nbformat.writes(nb)

    right = {f: answers[f"answer_{f}"] for f in functions}
    out = {"all_right": written(right), "untouched": written({})}
    for f in functions:
        out[f"only_{f}"] = written({f: right[f]})
        wrong = planted_in(right[f], WRONG[f])
        assert wrong is not None, f"the mistake for {f} is not in its answer"
        out[f"wrong_{f}"] = written({**right, f: wrong})
    return out


def sealed_grades(folder: Path) -> dict[str, dict]:
    """The instructor's sealed grade of each notebook: test cell -> points, under "not run"
    the cells that did not run here (CUDA without a GPU), under "result" the whole
    SealedResult as JSON."""
    contract = sealed.Contract.from_notebook(SOURCE)
    grades = {}
    for path in sorted(folder.glob(f"*/{NAME}.ipynb")):
        # time limits a busy machine cannot trip: the verdicts are under test, not the limits
        result = sealed.grade_notebook(contract, path, seed=SEED, limits=GENEROUS)
        grades[path.parent.name] = {k: c.points for k, c in result.cells.items()}
        grades[path.parent.name]["not run"] = [
            k for k, c in result.cells.items() if c.status == "not run"
        ]
        grades[path.parent.name]["result"] = result.to_json()
    return grades


# Each window over every notebook in one process of the route's Python (one kernel per
# notebook, as the window runs it). Each notebook's kernel saves a class edition's functions
# in a folder of its own under argv[1], so one notebook's never reach the next.
VALIDATE = """
import json, os, sys
from pathlib import Path
from nbgrader.validator import Validator
from coursekit.kernel_start import START_ATTEMPTS, never_started
v = Validator()
v.execute_preprocessor_timeout = 900
out = {}
for path in sys.argv[2:]:
    os.environ["MINIGRAD_MY_SEAMS"] = str(Path(sys.argv[1], "validate", Path(path).parent.name))
    for attempt in range(1, START_ATTEMPTS + 1):  # a kernel that never came up: click again
        try:
            out[path] = v.validate(path)
            break
        except RuntimeError as exc:
            if not never_started(exc) or attempt == START_ATTEMPTS:
                raise
print("@@" + json.dumps(out))
"""
# `check --seed SEED NOTEBOOK` is selfcheck.run(NOTEBOOK, seed=SEED), once per notebook
CHECK = """
import io, json, os, sys
from pathlib import Path
from coursekit.exercises.selfcheck import run
out = {}
for path in sys.argv[3:]:
    os.environ["MINIGRAD_MY_SEAMS"] = str(Path(sys.argv[1], "check", Path(path).parent.name))
    text = io.StringIO()
    code = run(Path(path), out=text, seed=int(sys.argv[2]))
    out[path] = {"code": code, "text": text.getvalue()}
print("@@" + json.dumps(out))
"""


def windows(run_python, paths: list[Path], scratch: Path) -> tuple[dict, dict]:
    """nbgrader's Validate and `check --seed SEED` of each notebook, run by
    run_python(ARGS) (the route's `python ARGS`): Validate's test cell -> the error it raised
    ("" when it passed); check's test cell -> (points shown, its verdict line), its total
    line and its text."""
    done = run_python("-c", VALIDATE, str(scratch), *map(str, paths))
    assert done.returncode == 0, done.stderr[-3000:]
    validate = {}
    for path, result in json.loads(done.stdout.rpartition("@@")[2]).items():
        validate[Path(path).parent.name] = {
            _grade_id_of(Path(path), f["source"]): f.get("error") or f.get("raw_error", "")
            for f in result.get("failed", [])
        }
    done = run_python("-c", CHECK, str(scratch), str(SEED), *map(str, paths))
    assert done.returncode == 0, done.stderr[-3000:]
    assert not done.stderr.strip(), done.stderr[-2000:]  # no kernel noise
    check = {}
    for path, result in json.loads(done.stdout.rpartition("@@")[2]).items():
        text = result["text"]
        assert result["code"] in (0, 1) and "Traceback" not in text, text[-3000:]
        cells = {}
        for line in text.splitlines():
            match = CHECK_LINE.match(line)
            if match:
                cells[match[1]] = (match[2], match[4])
            elif line.startswith("test_cuda_"):
                cells[line.split()[0]] = ("not run", line)
        total = next(line for line in text.splitlines() if line.startswith("total"))
        check[Path(path).parent.name] = {"cells": cells, "total": total, "text": text}
    return validate, check


def _grade_id_of(path: Path, source: str) -> str:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.strip() == source.strip():
            return cell.metadata["nbgrader"]["grade_id"]
    raise AssertionError(f"Validate named a cell that is not in {path}: {source[:200]}")


def agree(grades, validate, check, edition: str) -> list[str]:
    """Every disagreement between a window and the sealed grade that the window did not
    name as not confirmed (empty when they agree)."""
    problems = []
    for notebook, grade in grades.items():
        confirmed_total = unconfirmed_total = 0.0
        for cell, points in grade.items():
            if cell in ("not run", "result"):
                continue
            shown, line = check[notebook]["cells"][cell]
            error = validate[notebook].get(cell, "")
            where = f"{edition} {notebook} {cell}"
            if cell in grade["not run"]:  # no GPU here: never counted, never failed
                if shown != "not run" or "not run here (no GPU)" not in line:
                    problems.append(f"{where}: check says {line!r} of a CUDA cell")
                if error:
                    problems.append(f"{where}: Validate fails the CUDA cell: {error[:300]}")
                continue
            if shown == "?":  # not confirmed: must say which function, and count it apart
                if "NOT CONFIRMED" not in line or "not confirmed until" not in line:
                    problems.append(f"{where}: '?' without its reason: {line!r}")
                if "NOT CONFIRMED" not in error:
                    problems.append(f"{where}: check not confirmed, Validate: {error[:300]!r}")
                unconfirmed_total += points or _max(cell)
                continue
            if float(shown) != points:
                problems.append(f"{where}: check {shown}, sealed grade {points:g}: {line!r}")
            if bool(error) != (points == 0):
                problems.append(f"{where}: Validate {error[:300]!r}, sealed grade {points:g}")
            if "NOT CONFIRMED" in error:
                problems.append(f"{where}: Validate not confirmed where check confirmed")
            confirmed_total += float(shown)
        total = check[notebook]["total"].split()
        if float(total[1]) != confirmed_total:
            problems.append(f"{edition} {notebook}: total {total!r}, cells {confirmed_total:g}")
        if unconfirmed_total and "not confirmed" not in check[notebook]["total"]:
            problems.append(f"{edition} {notebook}: total hides the points not confirmed")
        if edition == "clone" and unconfirmed_total:
            problems.append(f"clone {notebook}: nothing is unconfirmable on the clone")
    return problems


def _max(cell: str) -> float:
    nb = nbformat.read(SOURCE, as_version=4)
    return next(
        c.metadata["nbgrader"]["points"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == cell
    )


def _write_notebooks(folder: Path) -> None:
    for name, text in notebooks().items():
        (folder / name).mkdir()
        (folder / name / f"{NAME}.ipynb").write_text(text)


@pytest.fixture(scope="module")
def notebook_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("notebooks")
    _write_notebooks(folder)
    return folder


@pytest.fixture(scope="module")
def grades(tmp_path_factory):
    """The sealed grades, graded once for the session (any worker's first ask)."""

    def grade(folder: Path) -> str:
        _write_notebooks(folder)
        return json.dumps(sealed_grades(folder))

    return json.loads(once_per_session(tmp_path_factory, "one-verdict-grades", grade))


def test_the_issues_case_on_the_clone_check_and_the_sealed_grade_agree(grades):
    """Only read_grad written: the sealed grade gives L3 its 5 points, the rest 0."""
    assert grades["only_read_grad"]["test_L3"] == 5
    assert sum(v for k, v in grades["only_read_grad"].items() if k.startswith("test_L")) == 5
    assert sum(v for k, v in grades["all_right"].items() if k.startswith("test_")) == 23


ROUTES = {"clone": None, "students (PyTorch)": False, "students (recorded)": True}
# The recorded route differs from the PyTorch one only in where PyTorch's side comes from (the
# recorded observations): the set's extremes and the issue's two cases, not every combination.
RECORDED_SET = ("all_right", "untouched", "only_read_grad", "wrong_retain_grad")


@pytest.mark.parametrize("route", ROUTES, ids=["clone", "students_pytorch", "students_recorded"])
def test_the_windows_agree_with_the_sealed_grade(request, grades, notebook_folder, tmp_path, route):
    """Every notebook of the set, on the clone (this checkout's Python) and on the students'
    distribution (its fresh environment, with PyTorch and with PyTorch hidden: the recorded
    observations)."""
    paths = sorted(notebook_folder.glob(f"*/{NAME}.ipynb"))
    if route == "students (recorded)":
        paths = [p for p in paths if p.parent.name in RECORDED_SET]
        grades = {k: v for k, v in grades.items() if k in RECORDED_SET}
    if ROUTES[route] is None:

        def run_python(*args):
            return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                                  timeout=3000)  # fmt: skip
    else:
        site = request.getfixturevalue("students_distribution")

        def run_python(*args):
            return course_command(site, tmp_path, *args, python=True,
                                  without_torch=ROUTES[route])  # fmt: skip

    validate, check = windows(run_python, paths, tmp_path)
    assert sorted(validate) == sorted(check) == sorted(grades)  # the whole set, every window
    assert agree(grades, validate, check, route) == []
    shown, line = check["only_read_grad"]["cells"]["test_L3"]
    if route == "clone":  # the issue's case: nothing is unconfirmable on the clone
        assert shown == "5", line
        return
    # the issue's case: L3 is not contradicted; what cannot be confirmed is named (the class
    # edition's L3 scenarios call backward(), which needs accumulate_grad)
    assert shown == "?" and "accumulate_grad()" in line, line
    if route == "students (PyTorch)":  # a wrong retain_grad() leaves L11 to its own rule
        shown, line = check["wrong_retain_grad"]["cells"]["test_L11"]
        assert shown == "?" and "retain_grad() passes its own rule (L4)" in line, line
        assert check["wrong_retain_grad"]["cells"]["test_L4"][0] == "0"


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CLONE_ONLY = ("make check", "make lab", "course/", "my_assignments/", "minigrad/seams/")


def test_start_lays_out_notebooks_that_work_where_they_are(students_distribution, tmp_path):
    """`start` from the students' distribution: a right notebook Validates clean without a
    GPU (its CUDA cell says it did not run); every link in an exercise leads to a file of the
    started folder and no text names what only a clone has; `start` does not send a student
    to a JupyterLab that is not installed."""
    from coursekit.exercises.planted import answered

    site = students_distribution
    out = course_command(site, tmp_path, "start", "mine")
    assert out.returncode == 0, out.stderr[-2000:]
    lab_installed = course_command(site, tmp_path, "-c", "import jupyterlab", python=True)
    if lab_installed.returncode != 0:
        assert "jupyter lab" not in out.stdout and "[lab] extra" in out.stdout, out.stdout
    folder = tmp_path / "mine"
    for path in sorted((folder / "exercises").glob("*/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            for target in LINK.findall(cell.source):
                assert (path.parent / target).is_file(), f"{path.name}: link {target}"
            text = cell.source.replace("`minigrad/seams/", "")  # named, not linked: exists
            assert not [w for w in CLONE_ONLY if w in text], (path.name, cell.source[:300])
    notebook = folder / "exercises" / NAME / f"{NAME}.ipynb"
    notebook.write_text(answered(notebook, NAME))
    probe = course_command(site, tmp_path, "-c", VALIDATE, str(tmp_path), str(notebook),
                           python=True)  # fmt: skip
    assert probe.returncode == 0, probe.stderr[-3000:]
    result = json.loads(probe.stdout.rpartition("@@")[2])[str(notebook)]
    assert result == {}, result  # nothing failed: "Success!" in the lab's dialog
    readme = site.parents[3] / "project" / "README.md"
    assert "minigrad-course check" in readme.read_text()


ANCHORED_HEADING = re.compile(r'<a\s+id="([^"]+)"\s*>\s*</a>\s*\n\s*#+\s*(.+)')


def test_graded_feedback_links_each_section_to_reread(grades, notebook_folder, tmp_path):
    """The HTML feedback of a wrong accumulate_grad (its sealed outputs, rendered as nbgrader's
    feedback renders them, through the sanitiser): a link whose text is the section's heading
    and whose href, from where Fetch Feedback puts the page in the student's home, opens that
    heading's anchor in the lecture `minigrad-course start course` laid out there."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.converters import GenerateFeedback
    from traitlets.config import Config

    from coursekit.classroom.safe_html import render_safely
    from coursekit.content import copy_content
    from coursekit.routes import START_FOLDER
    from coursekit.sealed.nbgrader_steps import seal_outputs

    notebook = "wrong_accumulate_grad"
    result = sealed.SealedResult.from_json(grades[notebook]["result"])
    assert grades[notebook]["test_L8"] == 0  # a failing cell, which names a section
    nb = nbformat.read(notebook_folder / notebook / f"{NAME}.ipynb", as_version=4)
    config = Config()
    render_safely(config)
    config = GenerateFeedback(config=config).config  # with nbgrader's feedback template
    nb = seal_outputs(nb, result)
    for cell in nb.cells:  # what nbgrader's autograde records for its template
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["score"] = grades[notebook].get(meta["grade_id"], 0)
    facts = {"notebook": NAME, "score": result.score, "max_score": result.max_score,
             "late_penalty": 0}  # fmt: skip
    page, _ = HTMLExporter(config=config).from_notebook_node(nb, resources={"nbgrader": facts})

    home = tmp_path / "home"
    folder = home / NAME / "feedback" / "2026-11-28 10:00:00.000000 UTC"
    copy_content(home / START_FOLDER)
    links = re.findall(r'<a href="([^"]*lectures/[^"]+)"[^>]*>([^<]+)</a>', page)
    assert links, page[-3000:]
    for href, text in links:
        path, _, anchor = href.partition("#")
        lecture = (folder / path).resolve()
        assert lecture.is_file(), href
        headings = dict(ANCHORED_HEADING.findall(_markdown_of(lecture)))
        assert anchor in headings, (href, sorted(headings))
        assert text == headings[anchor].replace("`", "").strip(), (text, headings[anchor])


def _markdown_of(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
