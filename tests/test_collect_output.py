"""What `collect` tells the instructor (issue 17): what this collect took in, not everything in
submitted/; the problems one line each; nbgrader's own log only with --verbose.

A toy class of three: ada and ben hand in through the exchange, kim through an LMS download
that also holds a file of someone not on the roster.
"""

from __future__ import annotations

import zipfile

import nbformat
import pytest
from rosters import roster_text
from test_pipeline import answered, toy_solutions

from coursekit.classroom.course import Course
from coursekit.cli import main as cli

pytestmark = pytest.mark.xdist_group("collect_output")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("collect")
    course, roster = tmp / "course", tmp / "roster.csv"
    roster.write_text(roster_text([("ada", "Ada", "L"), ("ben", "Ben", "B"), ("kim", "Kim", "P")]))
    assert cli(["init", str(course), "--solutions", str(toy_solutions(tmp / "solutions")),
                "--cpu-only", "--roster", str(roster)]) == 0  # fmt: skip
    assert cli(["release", "-C", str(course)]) == 0
    notebook = nbformat.writes(answered(course)).encode()
    return tmp, course, roster, notebook


def _hand_in(tmp, course, student, when, notebook):
    inbound = tmp / "course-exchange" / Course.at(course).course_id / "inbound"
    entry = inbound / f"{student}+toy+{when}.000000 UTC+{student}{when[-2:]}"
    entry.mkdir()
    (entry / "toy.ipynb").write_bytes(notebook)


def _collect(capsys, *argv) -> tuple[list[str], str]:
    assert cli(["collect", *map(str, argv)]) == 0
    said = capsys.readouterr()
    return said.out.splitlines(), said.err


def test_counts_say_what_this_collect_took_in_and_nbgraders_log_stays_quiet(toy, capsys):
    tmp, course, roster, notebook = toy
    for student in ("ada", "ben"):
        _hand_in(tmp, course, student, "2026-12-01 10:00:00", notebook)
    out, err = _collect(capsys, "-C", course)
    assert out == ["collected from the exchange: 2 new or updated submissions "
                   "(2 in submitted/ in all)"]  # fmt: skip
    assert err == ""
    out, _ = _collect(capsys, "-C", course)  # nothing new in the exchange
    assert out[0].startswith("collected from the exchange: 0 new or updated submissions (2 ")
    _hand_in(tmp, course, "ada", "2026-12-01 11:00:00", notebook)  # ada hands in again
    out, _ = _collect(capsys, "-C", course)
    assert out[0].startswith("collected from the exchange: 1 new or updated submissions (2 ")

    download = tmp / "canvas.zip"
    with zipfile.ZipFile(download, "w") as zipped:
        zipped.writestr("pkim_101_201_toy.ipynb", notebook)
        zipped.writestr("nobody_102_202_toy.ipynb", notebook)
    lms = ["-C", course, "toy", "--from", download, "--roster", roster]
    out, err = _collect(capsys, *lms)
    assert out == [
        "collected toy from canvas.zip: 1 submissions (3 of toy in submitted/ in all)",
        "  left out: nobody_102_202_toy.ipynb: no student on the roster is called 'nobody'; "
        "left out",
    ]
    assert err == ""  # nbgrader's zip_collect logged a dozen lines here (250 for a class)

    out, err = _collect(capsys, *lms, "--verbose")
    assert "Using file collector: RosterCollector" in err
    assert len(out) == 2  # the same two lines, whatever nbgrader logs
    _hand_in(tmp, course, "ben", "2026-12-01 12:00:00", notebook)
    _, err = _collect(capsys, "-C", course, "--verbose")
    assert "Collected submission: ben toy" in err
