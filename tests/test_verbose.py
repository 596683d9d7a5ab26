"""`grade --verbose` and `feedback --verbose` (issue 17), the real commands on a toy class of
one: nbgrader's own log (about 15 lines a submission, ~250 for a class) is shown only with
--verbose; without it the instructor reads the summary and the problems.

The log records looked for are nbgrader's own: its Autograde converter logs "Autograding
<notebook>", and every converter (autograde, generate_feedback) logs "Converting notebook
<notebook>"; nbgrader's API writes them as "[INFO] ...".
"""

from __future__ import annotations

import pytest
from test_cli_errors import course_cli
from test_pipeline import answered, hand_in, run, toy_solutions

pytestmark = pytest.mark.xdist_group("verbose")

AUTOGRADING = "[INFO] Autograding "  # nbgrader's Autograde converter
CONVERTING = "[INFO] Converting notebook "  # nbgrader's converters, feedback's too


@pytest.fixture(scope="module")
def graded_toy(tmp_path_factory):
    """A toy course with ada's right answers, graded once by a plain `grade`: (course, what
    that `grade` printed)."""
    root = tmp_path_factory.mktemp("verbose")
    course = root / "course"
    run("init", course, "--solutions", toy_solutions(root / "solutions"), "--cpu-only")
    hand_in(course, "ada", answered(course))
    quiet = course_cli("grade", "-C", course)
    assert quiet.returncode == 0, quiet.stderr[-2000:]
    return course, quiet


def test_grade_shows_nbgraders_log_only_with_verbose(graded_toy):
    course, quiet = graded_toy
    said = quiet.stdout + quiet.stderr
    assert "ada / toy: 3/3" in quiet.stdout  # 2 + 1 points, every answer right
    assert AUTOGRADING not in said and CONVERTING not in said and "[INFO]" not in said
    # an appeal, shown with nbgrader's log: the same summary, and the log on stderr
    loud = course_cli("grade", "-C", course, "--student", "ada", "--verbose")
    assert loud.returncode == 0, loud.stderr[-2000:]
    assert "ada / toy: 3/3" in loud.stdout
    graded = "/autograded/ada/toy/toy.ipynb"
    assert any(line.startswith(AUTOGRADING) and line.endswith(graded)
               for line in loud.stderr.splitlines()), loud.stderr  # fmt: skip
    assert CONVERTING in loud.stderr
    assert AUTOGRADING not in loud.stdout  # the summary stays clean for a script to read


def test_feedback_shows_nbgraders_log_only_with_verbose(graded_toy):
    course, _ = graded_toy
    pages = course / "feedback" / "ada" / "toy" / "toy.html"
    quiet = course_cli("feedback", "-C", course)
    assert quiet.returncode == 0, quiet.stderr[-2000:]
    assert quiet.stdout.strip() == f"1 feedback pages in {course / 'feedback'}"
    assert quiet.stderr == ""
    assert pages.is_file()
    loud = course_cli("feedback", "-C", course, "--verbose")
    assert loud.returncode == 0, loud.stderr[-2000:]
    assert loud.stdout == quiet.stdout
    graded = str(course / "autograded" / "ada" / "toy" / "toy.ipynb")
    assert f"{CONVERTING}{graded}" in loud.stderr.splitlines(), loud.stderr
