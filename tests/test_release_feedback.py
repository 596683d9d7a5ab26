"""`minigrad-course release-feedback`: the page of a submission handed in through nbgrader's
exchange goes where nbgrader's own fetch_feedback finds it (the student's cache holds the
submission's secret); a submission from an LMS download has no secret and is listed, with
what to do, instead of released. No hub, no account: tests/test_hub.py does the class."""

from __future__ import annotations

import nbformat
import pytest
from test_pipeline import answered, hand_in, released_toy_and_student, run, student_step

pytestmark = pytest.mark.xdist_group("release_feedback")


def test_exchange_feedback_reaches_its_student_and_an_lms_one_is_listed(tmp_path, capsys):
    import getpass

    from nbgrader.exchange.default import (
        ExchangeFetchAssignment,
        ExchangeFetchFeedback,
        ExchangeSubmit,
    )

    course, home, config = released_toy_and_student(tmp_path)
    student_step(ExchangeFetchAssignment, config, home)
    nbformat.write(answered(course, add="a - b"), home / "toy" / "toy.ipynb")  # 1 of 3 points
    student_step(ExchangeSubmit, config, home)
    hand_in(course, "lms_student", answered(course))  # as `collect --from` leaves it
    run("collect", "-C", course)
    for step in ("grade", "feedback"):
        run(step, "-C", course)
    capsys.readouterr()
    run("release-feedback", "-C", course)
    said = capsys.readouterr().out
    assert "released 1 feedback pages" in said, said
    assert "lms_student/toy: not handed in through the exchange" in said, said

    student_step(ExchangeFetchFeedback, config, home)
    pages = list((home / "toy" / "feedback").rglob("toy.html"))
    assert len(pages) == 1, pages
    text = pages[0].read_text()
    assert "Score: 1.0 / 3.0" in text
    released = list((tmp_path / "course-exchange" / "course" / "feedback").glob("*.html"))
    assert len(released) == 1 and released[0].read_text() == text
    me = getpass.getuser()
    assert (course / "feedback" / me / "toy" / "submission_secret.txt").stat().st_mode & 0o077 == 0
