"""The batched gradebook writer (coursekit/classroom/grading/writer.py, issue 32).

- Its rows are nbgrader's: the same results written one by one through nbgrader's Gradebook
  API (add_submission, find_grade, find_comment: what `nbgrader autograde` does) and in
  batches by the writer give the same gradebook, cell by cell.
- A `grade` killed (kill -9) in the middle of a batch, its rows written but not committed,
  holds the batches before it and nothing of that one; the next `grade` stores every other
  result, each once, in the order they finished.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import warnings
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy.exc import SAWarning
from test_pipeline import (
    answered,
    gradebook_scores,
    hand_in,
    run,
    runs,
    sqlite_url,
    toy_solutions,
)

from coursekit.classroom.course import Course
from coursekit.classroom.grading.writer import GradebookRows
from coursekit.classroom.runs import ensure_table, new_run

REPO = Path(__file__).resolve().parents[1]


def _course(root: Path) -> Course:
    """A gradebook with one assignment of two notebooks: grade cells, a manually graded
    answer (a grade cell and a solution cell of the same name), a task cell."""
    root.mkdir()
    course = Course.at(root, f"sqlite:///{root / 'gradebook.db'}")
    with course.gradebook() as gb:
        ensure_table(gb.engine)
        gb.add_assignment("hw")
        for nb in ("one", "two"):
            gb.add_notebook(nb, "hw")
            gb.add_grade_cell("test_a", nb, "hw", max_score=2, cell_type="code")
            gb.add_grade_cell("essay", nb, "hw", max_score=3, cell_type="markdown")
            gb.add_solution_cell("essay", nb, "hw")
            gb.add_solution_cell("answer", nb, "hw")
            gb.add_task_cell("task", nb, "hw", max_score=1, cell_type="markdown")
        gb.add_student("known")  # from the roster, never graded yet
    return course


def _result(student, score, stamp="2026-11-01T10:00:00+01:00", penalty=None, comment="ok"):
    cells = [
        {"notebook": nb, "cell": cell, "score": score * top, "max_score": top,
         "needs_manual_grade": cell == "essay"}
        for nb in ("one", "two") for cell, top in (("test_a", 2), ("essay", 3), ("task", 1))
    ]  # fmt: skip
    comments = [{"notebook": "one", "cell": c, "auto_comment": f"{comment} {c}"}
                for c in ("essay", "answer", "task")]  # fmt: skip
    return {"student": student, "assignment": "hw", "seed": 7, "status": "graded",
            "notes": [], "timestamp": stamp, "autograded_dir": None, "cells": cells,
            "comments": comments, "scenarios": [],
            "notebooks": [{"notebook": "two", "late_penalty": penalty}]}  # fmt: skip


RESULTS = [
    _result("ada", 1.0),
    _result("known", 0.5, stamp=None),  # no time known: nbgrader's default (none)
    _result("ben", 0.0, penalty=1.5),
    _result("ada", 0.5, stamp="2026-11-02T09:00:00+00:00", comment="again"),  # a regrade
    _result("cy", 1.0, stamp=None, penalty=0.0),
]


def _through_nbgrader(gb, result: dict, fingerprint: str) -> None:
    """One result as the writer stored it before batches: nbgrader's API, object by object."""
    student, assignment = result["student"], result["assignment"]
    gb.update_or_create_student(student)
    if result["timestamp"]:
        stamp = datetime.fromisoformat(result["timestamp"])
        gb.update_or_create_submission(assignment, student, timestamp=stamp)
    else:
        gb.update_or_create_submission(assignment, student)
    for cell in result["cells"]:
        grade = gb.find_grade(cell["cell"], cell["notebook"], assignment, student)
        grade.auto_score = cell["score"]
        grade.needs_manual_grade = cell["needs_manual_grade"]
    for entry in result["comments"]:
        comment = gb.find_comment(entry["cell"], entry["notebook"], assignment, student)
        comment.auto_comment = entry["auto_comment"]
    for entry in result["notebooks"]:
        if entry["late_penalty"] is not None:
            notebook = gb.find_submission_notebook(entry["notebook"], assignment, student)
            notebook.late_submission_penalty = entry["late_penalty"]
    gb.db.add(new_run(result, fingerprint))
    gb.db.commit()


def _contents(course: Course) -> dict:
    """Everything nbgrader and the runs hold about the class, by names (ids are random)."""
    with course.gradebook() as gb:
        found = {"students": sorted(s.id for s in gb.students)}
        for submission in gb.find_assignment("hw").submissions:
            key = submission.student.id
            found[key, "timestamp"] = submission.timestamp
            for nb in submission.notebooks:
                found[key, nb.name, "penalty"] = nb.late_submission_penalty
                for g in nb.grades:
                    found[key, nb.name, "grade", g.name] = (
                        g.auto_score, g.manual_score, g.needs_manual_grade, g.score,
                    )  # fmt: skip
                for c in nb.comments:
                    found[key, nb.name, "comment", c.name] = c.auto_comment
        found["runs"] = [(r["student_id"], r["status"], r["seed"]) for r in runs(course.url)]
    return found


def test_batches_write_what_nbgraders_api_writes(tmp_path):
    by_api, batched = _course(tmp_path / "api"), _course(tmp_path / "batched")
    with by_api.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)  # nbgrader's ORM use
        for result in RESULTS:
            _through_nbgrader(gb, result, "f" * 64)
    with batched.gradebook() as gb:
        rows = GradebookRows(batched, gb)
        rows.write([(r, "f" * 64) for r in RESULTS[:2]])
        rows.write([(r, "f" * 64) for r in RESULTS[2:]])  # ada again, in the same batch as ben
    expected = _contents(by_api)
    assert expected[("ada", "one", "grade", "test_a")] == (1.0, None, False, 1.0)  # the regrade
    assert expected[("ben", "two", "penalty")] == 1.5
    assert _contents(batched) == expected


def test_a_result_for_a_cell_the_gradebook_lacks_is_refused_with_its_batch(tmp_path):
    from nbgrader.api import MissingEntry

    course = _course(tmp_path / "course")
    stray = _result("dan", 1.0)
    stray["cells"][0]["cell"] = "test_renamed"
    with course.gradebook() as gb:
        with pytest.raises(MissingEntry, match="hw/one/test_renamed for dan"):
            GradebookRows(course, gb).write([(_result("eve", 1.0), "0" * 64), (stray, "0" * 64)])
    assert _contents(course)["runs"] == [] and "eve" not in _contents(course)["students"]


# --- kill -9 mid-batch -------------------------------------------------------------------------
STUDENTS = [f"s{i:02d}" for i in range(12)]
KILLED = """
import os, signal, sys, threading
from coursekit.classroom.grading import writer
from coursekit.classroom.course import Course
from coursekit.classroom.grading.grade import grade_class

everything_put, puts, batches = threading.Event(), [], []
put, write = writer.BatchWriter.put, writer.GradebookRows._write

def counting_put(self, *args):
    put(self, *args)
    puts.append(args)
    if len(puts) == int(sys.argv[2]):
        everything_put.set()

def dying_write(self, batch):
    batches.append(len(batch))
    if len(batches) == 1:  # the others finish meanwhile: the next batch holds them all
        everything_put.wait(120)
    write(self, batch)
    if len(batches) == 2:  # its rows written, not committed
        print(batches, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

writer.BatchWriter.put, writer.GradebookRows._write = counting_put, dying_write
grade_class(Course.at(sys.argv[1]), 1, grader="fake_graders:quick")
"""


@pytest.mark.slow
def test_a_grade_killed_mid_batch_stores_each_result_once_in_order(tmp_path):
    root = tmp_path / "course"
    run("init", root, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    for student in STUDENTS:
        hand_in(root, student, answered(root))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}
    killed = subprocess.run([sys.executable, "-c", KILLED, str(root), str(len(STUDENTS))],
                            env=env, capture_output=True, timeout=300)  # fmt: skip
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    assert killed.stdout.decode().strip() == f"[1, {len(STUDENTS) - 1}]"  # killed mid-batch
    stored = [r["student_id"] for r in runs(sqlite_url(root))]
    assert stored == STUDENTS[:1]  # the first batch, nothing of the second
    assert _scored(root) == {(STUDENTS[0], "toy")}

    from coursekit.classroom.grading.grade import grade_class

    resumed = grade_class(Course.at(root), 1, grader="fake_graders:quick", stream=io.StringIO())
    assert [r["student"] for r in resumed] == STUDENTS[1:]
    stored = [(r["student_id"], r["assignment_id"]) for r in runs(sqlite_url(root))]
    assert stored == [(s, "toy") for s in STUDENTS]  # each once, in the order they finished
    assert _scored(root) == set(stored)


def _scored(root: Path) -> set[tuple[str, str]]:
    """The submissions in nbgrader's tables, each checked to have every cell's score."""
    scores = gradebook_scores(sqlite_url(root))
    assert all(cells and None not in cells.values() for cells in scores.values()), scores
    return set(scores)
