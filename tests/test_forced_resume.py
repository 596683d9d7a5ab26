"""An interrupted `grade --force` (issue 17): the next `grade` regrades what it had not reached,
says so, and then forgets it. Graded by stand-ins (tests/fake_graders.py): the pipeline's
planning, not nbgrader, is under test.

Three students, graded once. `grade --force -j 1` regrades them in id order and is killed
(kill -9) when it reaches ben: ada is regraded, ben and cy still hold their first run with
unchanged files. The next plain `grade` must regrade ben and cy, not ada; the one after it,
nothing.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_graders import KILL_ENV
from test_pipeline import answered, hand_in, run, runs, sqlite_url, toy_solutions

from coursekit.classroom.course import Course
from coursekit.classroom.grading.grade import grade_class

REPO = Path(__file__).resolve().parents[1]
QUICK, KILLER = "fake_graders:quick", "fake_graders:kills_the_grade"
FORCED = """
import os, sys
from coursekit.classroom.course import Course
from coursekit.classroom.grading.grade import grade_class
os.environ["{env}"] = f"{{os.getpid()}}:ben:4"  # once ada's regrade is stored
grade_class(Course.at(sys.argv[1]), 1, force=True, grader="{killer}")
"""


def _runs_per_student(course) -> dict[str, int]:
    counted: dict[str, int] = {}
    for row in runs(sqlite_url(course)):
        counted[row["student_id"]] = counted.get(row["student_id"], 0) + 1
    return counted


@pytest.mark.slow
def test_a_killed_force_regrade_is_finished_by_the_next_grade(tmp_path):
    root = tmp_path / "course"
    run("init", root, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    for student in ("ada", "ben", "cy"):
        hand_in(root, student, answered(root))
    course = Course.at(root)
    assert len(grade_class(course, 1, grader=QUICK, stream=io.StringIO())) == 3

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}
    script = FORCED.format(env=KILL_ENV, killer=KILLER)
    killed = subprocess.run([sys.executable, "-c", script, str(root)], env=env,
                            capture_output=True, timeout=300)  # fmt: skip
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    assert _runs_per_student(root) == {"ada": 2, "ben": 1, "cy": 1}

    said = io.StringIO()
    regraded = grade_class(course, 1, grader=QUICK, stream=said)
    assert sorted(r["student"] for r in regraded) == ["ben", "cy"]
    assert "a `grade --force` was cut short: 2 submissions it had not regraded yet" in (
        said.getvalue()
    )
    assert _runs_per_student(root) == {"ada": 2, "ben": 2, "cy": 2}
    assert grade_class(course, 1, grader=QUICK, stream=io.StringIO()) == []  # nothing owed
