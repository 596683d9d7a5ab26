"""The one writer: a worker's result into the course's gradebook and autograded/ folder.

Grades are set through nbgrader's Gradebook (the same rows `nbgrader autograde` fills), and
the run is recorded in the same commit, after the graded notebooks are in place: a class
killed at any point holds, for each submission, either its last complete grading or none.
"""

from __future__ import annotations

import shutil
import warnings
from datetime import datetime
from pathlib import Path

from sqlalchemy.exc import SAWarning

from coursekit.classroom.runs import new_run


def write_result(gb, course, result: dict, fingerprint: str) -> None:
    with warnings.catch_warnings():  # nbgrader's own ORM use warns on every new submission
        warnings.simplefilter("ignore", SAWarning)
        _write(gb, course, result, fingerprint)


def _write(gb, course, result: dict, fingerprint: str) -> None:
    student, assignment = result["student"], result["assignment"]
    _move_graded_notebooks(course, result)
    gb.update_or_create_student(student)
    if result["timestamp"]:
        timestamp = datetime.fromisoformat(result["timestamp"])
        gb.update_or_create_submission(assignment, student, timestamp=timestamp)
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


def _move_graded_notebooks(course, result: dict) -> None:
    """Replace autograded/<student>/<assignment> with the worker's, by renames."""
    final = course.path("autograded", result["student"], result["assignment"])
    old = final.with_name(final.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    if result.get("autograded_dir") and Path(result["autograded_dir"]).is_dir():
        final.parent.mkdir(parents=True, exist_ok=True)
        Path(result["autograded_dir"]).rename(final)
    shutil.rmtree(old, ignore_errors=True)
