"""The instructor pipeline (issue 6): `minigrad-course` from init to report, through real nbgrader.

Most tests grade a toy assignment (two answers, two test cells worth 2 and 1 points, a CUDA
cell that --cpu-only leaves out) so that a submission grades in seconds; one small class
grades the real leaf_nodes assignment. Expected scores are the cells' points, by hand.
Grades are read back with nbgrader's own Gradebook, not through the pipeline's code.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import nbformat
import psutil
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from rosters import roster_text

from bench.postgres import installed_bin, private_postgres
from coursekit.classroom.course import Course
from coursekit.classroom.hidden import REMOVED
from coursekit.cli import main as cli
from coursekit.nbgrader_schema import answer_in_process

REPO = Path(__file__).resolve().parents[1]
TOY_POINTS = {"test_add": 2.0, "test_mul": 1.0}
HIDDEN_TOY_LINES = ("assert add(2, 3) == 5", "assert mul(3, 5) == 15")


PEOPLE = [("ada", "Ada", "Lovelace"), ("ben", "Ben", "Bitdiddle"), ("cy", "Cy", "D'Fect"),
          ("dee", "Dee", "Cohen"), ("kim", "Kim", "Park")]  # fmt: skip
ROSTER = roster_text(PEOPLE)


# --- the toy assignment ---------------------------------------------------------------------
def _meta(grade_id, **flags):
    meta = {
        "grade": False,
        "grade_id": grade_id,
        "locked": False,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    meta.update(flags)
    return {"nbgrader": meta}


def toy_source() -> nbformat.NotebookNode:
    def answer(name, body):
        return f"def {name}(a, b):\n    ### BEGIN SOLUTION\n    return {body}\n    ### END SOLUTION"

    def test(visible, hidden):
        return f"{visible}\n### BEGIN HIDDEN TESTS\n{hidden}\n### END HIDDEN TESTS"

    cells = [
        new_markdown_cell("# Toy", id="md-1"),
        new_code_cell("BASE = 10", id="engine-1", metadata=_meta("engine-1", locked=True)),
        new_code_cell(
            answer("add", "a + b"), id="sol-add", metadata=_meta("sol-add", solution=True)
        ),
        new_markdown_cell("Test add", id="md-2"),
        new_code_cell(
            test("assert add(1, 1) == 2", HIDDEN_TOY_LINES[0]),
            id="test_add",
            metadata=_meta("test_add", grade=True, locked=True, points=2),
        ),
        new_code_cell(
            answer("mul", "a * b"), id="sol-mul", metadata=_meta("sol-mul", solution=True)
        ),
        new_code_cell(
            test("assert mul(2, 2) == 4", HIDDEN_TOY_LINES[1]),
            id="test_mul",
            metadata=_meta("test_mul", grade=True, locked=True, points=1),
        ),
        new_code_cell(
            "raise AssertionError('not run: no GPU on the grader')",
            id="test_cuda_toy",
            metadata=_meta("test_cuda_toy", grade=True, locked=True, points=1),
        ),
    ]
    kernelspec = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    return new_notebook(cells=cells, metadata={"kernelspec": kernelspec})


def toy_solutions(root: Path) -> Path:
    (root / "toy").mkdir(parents=True)
    nbformat.write(toy_source(), root / "toy" / "toy.ipynb")
    return root


def answered(course: Path, add="a + b", mul="a * b", preamble="") -> nbformat.NotebookNode:
    """The released toy notebook, answered as a student would."""
    nb = nbformat.read(course / "release" / "toy" / "toy.ipynb", as_version=4)
    for cell, name, body in [(nb.cells[2], "add", add), (nb.cells[5], "mul", mul)]:
        cell.source = f"{preamble}def {name}(a, b):\n    return {body}"
    return nb


def hand_in(course: Path, student: str, nb, name="toy.ipynb", assignment="toy") -> None:
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    text = nb if isinstance(nb, str) else nbformat.writes(nb)
    (folder / name).write_text(text)


# --- reading results back ---------------------------------------------------------------------
def gradebook_scores(url: str) -> dict:
    """(student, assignment) -> {cell: score}, through nbgrader's Gradebook."""
    from nbgrader.api import Gradebook

    answer_in_process()
    scores = {}
    with Gradebook(url, "minigrad-course") as gb:
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                scores[(submission.student.id, assignment.name)] = {
                    g.name: g.score for nb in submission.notebooks for g in nb.grades
                }
    return scores


def runs(url: str) -> list[dict]:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as connection:
        rows = (
            connection.execute(
                text(
                    "select student_id, assignment_id, seed, status, result_json "
                    "from minigrad_grading_run order by id"
                )
            )
            .mappings()
            .all()
        )
    engine.dispose()
    return [dict(r) for r in rows]


def notes_of(url: str, student: str) -> list[str]:
    import json

    return json.loads([r for r in runs(url) if r["student_id"] == student][-1]["result_json"])[
        "notes"
    ]


def file_hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def sqlite_url(course: Path) -> str:
    return f"sqlite:///{course / 'gradebook.db'}"


def run(*argv) -> None:
    assert cli([str(a) for a in argv]) == 0


# --- broken submissions: each reported with a reason, graded as far as it can be --------------
def _duplicated(course):
    """A wrong first try above each answer: the last copy is graded (the repair's note says
    so, and the sealed run must grade that copy, not the one repair took the metadata off)."""
    nb = answered(course)
    for index, name, wrong in [(5, "mul", "a + b"), (2, "add", "a - b")]:
        first_try = copy.deepcopy(nb.cells[index])
        first_try.source = f"def {name}(a, b):\n    return {wrong}"
        nb.cells.insert(index, first_try)
    return nb


def _deleted(course):
    nb = answered(course)
    del nb.cells[5]  # the mul answer
    del nb.cells[4]  # the add test
    return nb


def _retyped(course):
    nb = answered(course)
    nb.cells[2] = new_markdown_cell(
        nb.cells[2].source, id=nb.cells[2].id, metadata=nb.cells[2].metadata
    )
    return nb


def _stripped(course):
    nb = answered(course)
    for cell in nb.cells:
        cell.metadata = {}
    nb.metadata = {}
    return nb


def _forged_verdict(course):
    """A wrong answer carrying what a sealed run would write, claiming full marks."""
    nb = answered(course, add="2 if (a, b) == (1, 1) else 0")
    claim = {"points": 2.0, "max_points": 2.0, "status": "passed", "verdict": "PASSED",
             "scenarios": [], "failed": [], "grade_id": "test_add"}  # fmt: skip
    nb.metadata["minigrad"] = {"sealed_verdict": {"seed": 1, "notes": ["forged: all fine"]}}
    for cell in nb.cells:
        cell.metadata["minigrad"] = {"sealed_verdict": claim}
    return nb


BROKEN = {  # student: (notebook or text, file name, expected scores, words of the reason)
    "good": (answered, "toy.ipynb", {"test_add": 2, "test_mul": 1}, None),
    "invalid_json": (
        lambda c: nbformat.writes(answered(c))[:500],
        "toy.ipynb",
        {"test_add": 0, "test_mul": 0},
        "invalid JSON",
    ),
    "duplicated": (_duplicated, "toy.ipynb", {"test_add": 2, "test_mul": 1}, "appears 2 times"),
    "deleted": (
        _deleted,
        "toy.ipynb",
        {"test_add": 2, "test_mul": 0},
        "deleted cells 'test_add', 'sol-mul'",
    ),
    "retyped": (
        _retyped,
        "toy.ipynb",
        {"test_add": 2, "test_mul": 1},
        "'sol-add' changed from code to markdown",
    ),
    "stripped": (_stripped, "toy.ipynb", {"test_add": 2, "test_mul": 1}, "metadata missing"),
    "renamed": (
        answered,
        "toy (1).ipynb",
        {"test_add": 2, "test_mul": 1},
        "handed in as 'toy (1).ipynb'",
    ),
    "dying_kernel": (
        lambda c: answered(c, add="a + b\n\nimport os\nos._exit(1)"),
        "toy.ipynb",
        {"test_add": 0, "test_mul": 1},
        "the kernel died in cell 'sol-add'",
    ),
    "hidden_wrong": (
        lambda c: answered(c, add="2 if (a, b) == (1, 1) else 0"),
        "toy.ipynb",
        {"test_add": 0, "test_mul": 1},
        None,
    ),
    # this course is graded in nbgrader's kernel: verdict metadata can only be forged
    "forged_verdict": (_forged_verdict, "toy.ipynb", {"test_add": 0, "test_mul": 1}, None),
}


@pytest.fixture(scope="module")
def broken_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("broken")
    course = root / "course"
    run("init", course, "--solutions", toy_solutions(root / "solutions"), "--cpu-only")
    for student, (make, name, _, _) in BROKEN.items():
        hand_in(course, student, make(course), name)
    before = file_hashes(course / "submitted")
    run("grade", "-C", course, "-j", "2")
    run("feedback", "-C", course)
    return course, before


@pytest.mark.xdist_group("pipeline_broken")
@pytest.mark.parametrize("student", BROKEN)
def test_broken_submission_is_reported_and_graded_as_far_as_it_can_be(broken_class, student):
    course, _ = broken_class
    _, _, expected, reason = BROKEN[student]
    assert gradebook_scores(sqlite_url(course))[(student, "toy")] == expected
    notes = notes_of(sqlite_url(course), student)
    if reason is None:
        assert notes == []
    else:
        assert any(reason in note for note in notes), notes


@pytest.mark.xdist_group("pipeline_broken")
def test_broken_submissions_stop_nobody_and_change_no_file(broken_class):
    course, before = broken_class
    assert sorted(r["student_id"] for r in runs(sqlite_url(course))) == sorted(BROKEN)
    assert file_hashes(course / "submitted") == before


@pytest.mark.xdist_group("pipeline_broken")
def test_cpu_only_course_has_no_cuda_cell(broken_class):
    course, _ = broken_class
    assert set(gradebook_scores(sqlite_url(course))[("good", "toy")]) == set(TOY_POINTS)
    released = (course / "release" / "toy" / "toy.ipynb").read_text()
    assert "test_cuda_toy" not in released


@pytest.mark.xdist_group("pipeline_broken")
def test_feedback_never_shows_a_hidden_test(broken_class):
    course, _ = broken_class
    pages = {p.parts[-3]: p.read_text() for p in (course / "feedback").rglob("*.html")}
    assert set(pages) == set(BROKEN)
    for page in pages.values():
        assert not any(line in page for line in HIDDEN_TOY_LINES)
        assert "HIDDEN TESTS" not in page
    # the failed hidden assert was quoted by its traceback, and is blanked there
    assert REMOVED in pages["hidden_wrong"]
    assert "not a valid notebook" in pages["invalid_json"]


# --- killed in the middle of a class, then run again ------------------------------------------
@pytest.mark.xdist_group("pipeline_resume")
def test_kill_mid_class_then_resume(tmp_path):
    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    students = ["s1", "s2", "s3", "s4"]
    for student in students:  # each takes a few seconds, so the kill lands mid-class
        hand_in(course, student, answered(course, preamble="import time\ntime.sleep(3)\n"))
    before = file_hashes(course / "submitted")
    grading = subprocess.Popen(
        [sys.executable, "-m", "coursekit.cli", "grade", "-C", str(course), "-j", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for_runs(course, grading)
    os.kill(grading.pid, signal.SIGKILL)
    grading.wait()
    graded_before = {r["student_id"] for r in runs(sqlite_url(course))}
    assert 0 < len(graded_before) < len(students)
    _assert_no_process_left_in(course)
    # consistent: every recorded run has its grades, and no file was changed or lost
    scores = gradebook_scores(sqlite_url(course))
    for student in graded_before:
        assert scores[(student, "toy")] == {"test_add": 2, "test_mul": 1}
    assert file_hashes(course / "submitted") == before

    run("grade", "-C", course, "-j", "2")
    after = runs(sqlite_url(course))
    assert sorted(r["student_id"] for r in after) == students  # the graded were not regraded
    full = {(s, "toy"): {"test_add": 2, "test_mul": 1} for s in students}
    assert gradebook_scores(sqlite_url(course)) == full, [r["result_json"] for r in after]
    assert file_hashes(course / "submitted") == before
    run("grade", "-C", course)  # nothing left to do
    assert len(runs(sqlite_url(course))) == len(students)


def _wait_for_runs(course: Path, process, timeout=180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "grade finished before it could be killed"
        try:
            with sqlite3.connect(course / "gradebook.db") as db:
                if db.execute("select count(*) from minigrad_grading_run").fetchone()[0]:
                    return
        except sqlite3.OperationalError:
            pass
        time.sleep(0.2)
    raise AssertionError("no submission graded in time")


def _assert_no_process_left_in(course: Path, timeout=20) -> None:
    """Workers and their kernels end with the killed `grade` (their cwd is in the course)."""
    deadline = time.monotonic() + timeout
    while True:
        left = []
        for process in psutil.process_iter(["pid"]):
            try:
                if process.cwd().startswith(str(course)):
                    left.append(process)
            except psutil.Error:
                continue
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert not left, [p.info for p in left]


# --- limits: per cell, per submission (wall clock, memory) -------------------------------------
@pytest.mark.xdist_group("pipeline_limits")
def test_time_and_memory_limits_stop_one_submission_not_the_class(tmp_path):
    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    loops = answered(course)
    loops.cells[2].source = "while True:\n    pass\n\n" + loops.cells[2].source  # before add
    hand_in(course, "loops", loops)
    hand_in(course, "hoards", answered(course, preamble="hoard = bytearray(4 * 2**30)\n"))
    hand_in(course, "good", answered(course))
    run("grade", "-C", course, "--cell-timeout", "5", "--memory", "2500")
    hand_in(course, "sleeps", answered(course, preamble="import time\ntime.sleep(600)\n"))
    run("grade", "-C", course, "--timeout", "10")  # grades only the new submission
    scores = gradebook_scores(sqlite_url(course))
    assert scores == {
        ("loops", "toy"): {"test_add": 0, "test_mul": 1},  # interrupted, the rest graded
        ("hoards", "toy"): {"test_add": 0, "test_mul": 0},  # MemoryError in both answers
        ("good", "toy"): {"test_add": 2, "test_mul": 1},
        ("sleeps", "toy"): {"test_add": 0, "test_mul": 0},  # stopped by the wall clock
    }
    assert any("ran past the cell time limit" in n for n in notes_of(sqlite_url(course), "loops"))
    assert any("over the 10 s limit" in n for n in notes_of(sqlite_url(course), "sleeps"))
    _assert_no_process_left_in(course)


# --- nbgrader's exchange ----------------------------------------------------------------------
def released_toy_and_student(tmp_path):
    """A course with the toy assignment released through its exchange (tmp_path/
    course-exchange), and a student's home with their nbgrader config for it."""
    from traitlets.config import Config

    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    run("release", "-C", course)
    home = tmp_path / "student"
    home.mkdir()
    config = Config()
    config.CourseDirectory.course_id = Course.at(course).course_id
    config.CourseDirectory.root = str(home)
    config.CourseDirectory.assignment_id = "toy"
    config.Exchange.root = str(tmp_path / "course-exchange")
    config.Exchange.cache = str(home / "cache")  # the student's own nbgrader cache
    return course, home, config


def student_step(step, config, home):
    """One of nbgrader's student exchange steps (fetch, submit, fetch_feedback), run as the
    student runs it: from their home."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    cwd = os.getcwd()
    os.chdir(home)  # nbgrader's student commands work in the current directory
    try:
        step(
            coursedir=CourseDirectory(config=config),
            authenticator=Authenticator(config=config),
            config=config,
        ).start()
    finally:
        os.chdir(cwd)


def test_release_and_collect_through_the_exchange(tmp_path):
    import getpass

    from nbgrader.exchange.default import ExchangeFetchAssignment, ExchangeSubmit

    course, home, config = released_toy_and_student(tmp_path)
    for step in (ExchangeFetchAssignment, ExchangeSubmit):
        student_step(step, config, home)
    run("collect", "-C", course)
    me = getpass.getuser()
    assert (course / "submitted" / me / "toy" / "toy.ipynb").is_file()
    assert (course / "submitted" / me / "toy" / "timestamp.txt").is_file()


# --- a small class on a real assignment: LMS download to report --------------------------------
@pytest.fixture(scope="module")
def real_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("real")
    solutions = root / "solutions"
    shutil.copytree(REPO / "solutions" / "leaf_nodes", solutions / "leaf_nodes")
    (root / "roster.csv").write_text(ROSTER)
    course = root / "course"
    run("init", course, "--solutions", solutions, "--cpu-only", "--roster", root / "roster.csv")
    from coursekit.classroom.setup import demo

    released = course / "release" / "leaf_nodes" / "leaf_nodes.ipynb"
    handed = {
        "lovelaceada_1_2_leaf_nodes.ipynb": demo.submission(released, "correct")[1],
        "bitdiddleben_LATE_3_4_leaf_nodes.ipynb": demo.submission(released, "bug")[1],
        "dfectcy_5_6_leaf_nodes.ipynb": released.read_bytes(),
        "cohendee_13_14_leaf_nodes.ipynb": _importing_torch(
            demo.submission(released, "correct")[1]
        ),
        "nobody_7_8_leaf_nodes.ipynb": released.read_bytes(),
        "parkkim_9_10_leaf_nodes.ipynb": released.read_bytes(),
        "parkkim_11_12_leaf_nodes.ipynb": released.read_bytes(),
    }
    download = root / "leaf_nodes.zip"
    with zipfile.ZipFile(download, "w") as archive:
        for name, content in handed.items():
            archive.writestr(name, content)
    run("collect", "-C", course, "leaf_nodes", "--from", download, "--roster", root / "roster.csv")
    run("grade", "-C", course)
    run("grade", "-C", course, "--student", "ben")  # an appeal
    for command in ("feedback", "export", "report"):
        run(command, "-C", course)
    return course


def _importing_torch(notebook: bytes) -> bytes:
    """A correct answer whose every answer cell starts with `import torch`, as students write."""
    nb = nbformat.reads(notebook.decode(), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = "import torch\n" + cell.source
    return nbformat.writes(nb).encode()


def _points(course: Path) -> dict[str, float]:
    nb = nbformat.read(course / "source" / "leaf_nodes" / "leaf_nodes.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


@pytest.mark.xdist_group("pipeline_real")
def test_real_class_scores(real_class):
    points = _points(real_class)
    scores = gradebook_scores(sqlite_url(real_class))
    assert set(scores) == {(s, "leaf_nodes") for s in ("ada", "ben", "cy", "dee")}
    assert scores[("ada", "leaf_nodes")] == points
    assert scores[("ben", "leaf_nodes")] == {**points, "test_L8": 0}  # the planted L8 bug
    assert scores[("cy", "leaf_nodes")] == {cell: 0 for cell in points}  # the released stub
    assert scores[("dee", "leaf_nodes")] == {cell: 0 for cell in points}  # torch is not there


@pytest.mark.xdist_group("pipeline_real")
def test_an_import_the_grader_refuses_is_explained_everywhere(real_class):
    """import torch: the reason in the run, the student's feedback, and the instructor's
    table (*), report and CSV; a run without problems says nothing."""
    import csv
    import html

    from coursekit.classroom.course import Course
    from coursekit.classroom.results.table import grade_table
    from coursekit.sealed.grade import IMPORTABLE

    reason = "No module named 'torch'"
    assert any(reason in n and IMPORTABLE in n for n in notes_of(sqlite_url(real_class), "dee"))
    assert notes_of(sqlite_url(real_class), "ada") == []
    table = grade_table(Course.at(real_class))
    (dee_row,) = [line for line in table.splitlines() if line.startswith("dee ")]
    (ada_row,) = [line for line in table.splitlines() if line.startswith("ada ")]
    assert "*" in dee_row and "*" not in ada_row
    assert any(line.strip().startswith("* dee / leaf_nodes:") and reason in line
               for line in table.splitlines())  # fmt: skip
    with open(real_class / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert reason in rows["dee"]["leaf_nodes/problems"]
    assert rows["ada"]["leaf_nodes/problems"] == ""
    # as the pages show it (each page escapes as its own encoder does)
    assert reason in html.unescape((real_class / "report" / "index.html").read_text())
    (page,) = (real_class / "feedback" / "dee").rglob("*.html")
    assert reason in html.unescape(page.read_text())


@pytest.mark.xdist_group("pipeline_real")
def test_collect_reports_unknown_and_duplicate_names(real_class):
    import json

    problems = json.loads((real_class / ".pipeline" / "collect-problems.json").read_text())
    text = "\n".join(problems["leaf_nodes"])
    assert "no student on the roster is called 'nobody'" in text
    assert "kim handed in leaf_nodes.ipynb 2 times" in text
    assert not (real_class / "submitted" / "kim").exists()


@pytest.mark.xdist_group("pipeline_real")
def test_appeal_reuses_the_seed_of_the_last_run(real_class):
    import json

    bens = [r for r in runs(sqlite_url(real_class)) if r["student_id"] == "ben"]
    assert len(bens) == 2 and bens[0]["seed"] == bens[1]["seed"]
    seen = [json.loads(r["result_json"])["seeds_seen"] for r in bens]
    if seen[1] != [bens[1]["seed"]]:
        pytest.xfail("the hidden tests do not read MINIGRAD_COURSE_SEED yet (exercises request 1)")
    assert seen == [[bens[0]["seed"]]] * 2


@pytest.mark.xdist_group("pipeline_real")
def test_export_has_one_row_per_student_and_a_column_per_cell(real_class):
    import csv

    points = _points(real_class)
    scores = gradebook_scores(sqlite_url(real_class))
    with open(real_class / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert sorted(rows) == ["ada", "ben", "cy", "dee", "kim"]
    assert rows["kim"]["leaf_nodes"] == ""  # nothing collected for kim
    for student in ("ada", "ben", "cy", "dee"):
        cells = scores[(student, "leaf_nodes")]
        assert float(rows[student]["leaf_nodes"]) == sum(cells.values())
        for cell in points:
            assert float(rows[student][f"leaf_nodes/{cell}"]) == cells[cell]
    assert rows["ada"]["last_name"] == "Lovelace"


@pytest.mark.xdist_group("pipeline_real")
def test_report_plots_and_summary(real_class):
    from coursekit.classroom.course import Course
    from coursekit.classroom.results.report import summarise

    page = (real_class / "report" / "index.html").read_text()
    for figure in ("score_distribution.svg", "scenario_pass_rate.svg", "failure_messages.svg"):
        assert figure in page
        drawn = ET.parse(real_class / "report" / figure).getroot()
        assert drawn.tag == "{http://www.w3.org/2000/svg}svg"
    data = summarise(Course.at(real_class))
    assert sorted(data["percent"]["leaf_nodes"]) == sorted(
        100 * sum(cells.values()) / sum(_points(real_class).values())
        for cells in gradebook_scores(sqlite_url(real_class)).values()
    )
    # four submissions: the correct one passes every scenario, the stub, the one importing
    # torch and the L8 bug fail at least the L8 scenarios (the stub and the importer pass
    # those that need none of their code)
    rates = data["pass_rate"]
    assert rates and all(round(4 * rate) in (1, 2, 3, 4) for rate in rates.values())
    assert min(rates.values()) == pytest.approx(1 / 4)
    assert any("L8" in message for message, _ in data["messages"])


@pytest.mark.xdist_group("pipeline_real")
def test_feedback_of_the_real_class_hides_hidden_tests(real_class):
    source = (real_class / "source" / "leaf_nodes" / "leaf_nodes.ipynb").read_text()
    assert "grade(globals()" in source
    for page in (real_class / "feedback").rglob("*.html"):
        text = page.read_text()
        assert "grade(globals()" not in text and "exercises.grading import" not in text


@pytest.mark.xdist_group("pipeline_real")
def test_a_feedback_page_of_the_real_class_is_under_100_kb(real_class):
    """nbconvert inlined 117 KB of Bootstrap in each page (~180 KB a page); the page's own
    small stylesheet replaces it, the syntax colours stay. A submission whose every answer
    fails shows at most three differences per failing scenario (it listed all: ~105 KB)."""
    for student in ("ada", "ben", "cy"):  # a correct answer, a typical bug, nothing answered
        page = real_class / "feedback" / student / "leaf_nodes" / "leaf_nodes.html"
        text = page.read_text()
        assert len(text.encode()) < 100_000, (page, len(text.encode()))
        assert "Bootstrap v" not in text and ".highlight" in text and ".input_area {" in text


# --- PostgreSQL --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def postgres_url():
    with private_postgres(_postgres_bin()) as url:
        yield url


def _postgres_bin() -> str:
    if installed_bin() is None:
        if shutil.which("apt-get") is None:
            pytest.skip("PostgreSQL is not installed and apt-get is not available to install it")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-q"], check=True, capture_output=True, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "postgresql"],
            check=True,
            capture_output=True,
            env=env,
        )
    return installed_bin()


@pytest.mark.xdist_group("pipeline_postgres")
def test_whole_pipeline_on_postgresql(postgres_url, tmp_path):
    from sqlalchemy import create_engine, inspect

    course = tmp_path / "course"
    (tmp_path / "roster.csv").write_text(ROSTER)
    run(
        "init",
        course,
        "--solutions",
        toy_solutions(tmp_path / "solutions"),
        "--cpu-only",
        "--db",
        postgres_url,
        "--roster",
        tmp_path / "roster.csv",
    )
    download = tmp_path / "download"  # Moodle: a folder per student
    for folder, nb in [
        ("Ada Lovelace_1_assignsubmission_file_", answered(course)),
        ("Ben Bitdiddle_2_assignsubmission_file_", _deleted(course)),
    ]:
        (download / folder).mkdir(parents=True)
        nbformat.write(nb, download / folder / "toy.ipynb")
    run("collect", "-C", course, "toy", "--from", download, "--roster", tmp_path / "roster.csv")
    run("grade", "-C", course, "-j", "2")
    run("grade", "-C", course)  # resumed: nothing to do
    for command in ("feedback", "export", "report"):
        run(command, "-C", course)

    assert not (course / "gradebook.db").exists()
    engine = create_engine(postgres_url)
    assert {"grade", "minigrad_grading_run"} <= set(inspect(engine).get_table_names())
    engine.dispose()
    assert gradebook_scores(postgres_url) == {
        ("ada", "toy"): {"test_add": 2, "test_mul": 1},
        ("ben", "toy"): {"test_add": 2, "test_mul": 0},
    }
    assert len(runs(postgres_url)) == 2
    with open(course / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    ben = rows["ben"]
    assert [ben[k] for k in ("total", "max_total", "toy", "toy/test_add", "toy/test_mul")] == [
        "2", "3", "2", "2", "0"
    ]  # fmt: skip
    assert ben["toy/problems"].startswith("graded with problems: ")
    assert "deleted cells 'test_add', 'sol-mul'" in ben["toy/problems"]
    assert rows["ada"]["toy/problems"] == ""
    assert (course / "feedback" / "ben" / "toy" / "toy.html").is_file()


def test_the_grade_table_prints_reasons_without_terminal_control_codes():
    from coursekit.classroom.printable import printable

    hostile = "handed in as '\x1b]0;owned\x07\x1b[2J.ipynb'"
    shown = printable(hostile)
    assert shown.isprintable() and "\\x1b" in shown and "owned" in shown
