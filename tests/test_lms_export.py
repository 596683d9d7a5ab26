"""LMS gradebook exports (issue 17 item 2): Canvas's and Moodle's import layouts, and the plain
CSV's status and late columns, for a small class built by hand in a gradebook (no grading).

    assignment  points  due (UTC)          policy: 10% of the points per day late
    a1          3       2026-12-01 00:00
    a2          5       none

    student  a1                                        a2
    ada      3 (2 + 1), on time                        4
    ben      2, handed in 12-01 10:00: 1 day late,     not handed in
             10% of 3 = 0.3 off: 1.7
    cy       not handed in                             5, graded with problems

ben's last name and section start with = and -, which a spreadsheet would run as a formula;
cy has no LMS ids, which Canvas and Moodle need to match the row.
"""

from __future__ import annotations

import csv
from datetime import datetime

import pytest

from coursekit.classroom.course import Course, use_venv_tools
from coursekit.classroom.deadlines import apply_penalties
from coursekit.classroom.roster import RosterError, import_roster, read_roster
from coursekit.classroom.runs import LatePolicy, ensure_table, new_run
from coursekit.cli import main as cli

ROSTER = """\
id,first_name,last_name,email,lms_user_id,sis_id,sis_login_id,section
ada,Ada,Lovelace,ada@uni.edu,101,S1,ada.l,Sec A
ben,Ben,=1+1,ben@uni.edu,102,S2,ben.b,-B
cy,Cy,,,,,,
"""
CANVAS = """\
Student,ID,SIS User ID,SIS Login ID,Section,a1,a2
Points Possible,,,,,3,5
"Lovelace, Ada",101,S1,ada.l,Sec A,3,4
"'=1+1, Ben",102,S2,ben.b,'-B,1.7,
Cy,,,,,,5
"""
BEN_LATE = ("handed in 2026-12-01 10:00 UTC, 10 h after the due date 2026-12-01 00:00 UTC; "
            "late penalty 0.3: 2 -> 1.7")  # fmt: skip
MOODLE = f"""\
ID number,Email address,First name,Last name,a1,a1 feedback,a2,a2 feedback
S1,ada@uni.edu,Ada,Lovelace,3,,4,
S2,ben@uni.edu,Ben,'=1+1,1.7,"{BEN_LATE}",,not handed in
"""  # cy has neither id: Moodle would file a row with its identifier empty under ben's
SCORES = {  # (student, assignment) -> ({cell: score}, handed in, run status, notes)
    ("ada", "a1"): ({"t1": 2, "t2": 1}, datetime(2026, 11, 30, 12), "graded", []),
    ("ada", "a2"): ({"t1": 4}, datetime(2026, 12, 5), "graded", []),
    ("ben", "a1"): ({"t1": 2, "t2": 0}, datetime(2026, 12, 1, 10), "graded", []),
    ("cy", "a2"): ({"t1": 5}, datetime(2026, 12, 5), "graded with problems",
                   ["a syntax error in cell 3"]),
}  # fmt: skip


@pytest.fixture(scope="module")
def small_class(tmp_path_factory):
    use_venv_tools()
    tmp_path = tmp_path_factory.mktemp("lms")
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text("")
    course = Course.at(root, f"sqlite:///{root / 'gradebook.db'}")
    (tmp_path / "roster.csv").write_text(ROSTER)
    with course.gradebook() as gb:
        ensure_table(gb.engine)
        gb.update_or_create_assignment("a1", duedate=datetime(2026, 12, 1))
        gb.update_or_create_assignment("a2")
        for assignment, cells in (("a1", {"t1": 2, "t2": 1}), ("a2", {"t1": 5})):
            gb.add_notebook(assignment, assignment)
            for cell, points in cells.items():
                gb.add_grade_cell(cell, assignment, assignment, max_score=points,
                                  cell_type="code")  # fmt: skip
        import_roster(gb, read_roster(tmp_path / "roster.csv"))
        for (student, assignment), (cells, when, status, notes) in SCORES.items():
            gb.add_submission(assignment, student, timestamp=when)
            for cell, score in cells.items():
                gb.find_grade(cell, assignment, assignment, student).auto_score = score
            result = {"student": student, "assignment": assignment, "seed": 1,
                      "status": status, "notes": notes,
                      "cells": [{"score": s, "max_score": 1} for s in cells.values()]}  # fmt: skip
            gb.db.add(new_run(result, "0" * 64))
        gb.db.merge(LatePolicy(id=1, per_day=10.0))
        gb.db.commit()
        apply_penalties(gb.db)
    return course


def _export(course, layout, capsys) -> tuple[str, str]:
    out = course.root / f"{layout}.csv"
    argv = ["export", "-C", str(course.root), "--db", course.db_url, "--format", layout]
    assert cli([*argv, "--out", str(out)]) == 0
    return out.read_text(), capsys.readouterr().err


def test_canvas_layout_with_points_possible_late_and_missing_work(small_class, capsys):
    text, warned = _export(small_class, "canvas", capsys)
    assert text.replace("\r\n", "\n") == CANVAS
    assert "1 student(s) have no lms_user_id, sis_id or sis_login_id" in warned
    assert "2 score(s) are empty" in warned  # ben's a2, cy's a1
    assert "cy" in warned and "Traceback" not in warned


def test_moodle_layout_with_feedback_in_words(small_class, capsys):
    text, warned = _export(small_class, "moodle", capsys)
    assert text.replace("\r\n", "\n") == MOODLE
    assert "1 student(s) have no sis_id or email" in warned and "left out" in warned
    assert "1 score(s) are empty" in warned  # ben's a2: cy's row is not written


def test_the_plain_csv_has_status_late_and_the_rosters_lms_columns(small_class, capsys):
    text, _ = _export(small_class, "csv", capsys)
    rows = {r["student_id"]: r for r in csv.DictReader(text.splitlines())}
    assert [rows[s]["a1/status"] for s in ("ada", "ben", "cy")] == ["graded", "graded", "missing"]
    assert rows["cy"]["a2/status"] == "graded with problems"
    assert rows["ben"]["a2/status"] == "missing" and rows["ben"]["a2"] == ""
    assert [rows[s]["a1/late"] for s in ("ada", "ben")] == ["", "late"]
    ben = rows["ben"]
    assert (ben["a1"], ben["a1/penalty"], ben["total"]) == ("1.7", "0.3", "1.7")
    assert (rows["ada"]["sis_id"], rows["ben"]["section"], rows["ben"]["last_name"]) == (
        "S1", "'-B", "'=1+1")  # fmt: skip
    assert rows["ada"]["total"] == "7" and rows["ada"]["max_total"] == "8"


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        ("sis_id=@SUM(1)", "'@SUM(1)' starts with '@'"),
        ("email=+x@uni.edu", "'+x@uni.edu' starts with '+'"),
        ("lms_user_id=-5", "'-5' starts with '-'"),
        ("section=A\x1b[2J", "holds control characters"),
        ("sis_login_id=<b>", "holds one of &<>"),
        ("section=" + "x" * 129, "is longer than 128 characters"),
    ],
)
def test_a_hostile_lms_column_in_the_roster_is_refused_with_its_line(tmp_path, cell, said):
    field, value = cell.split("=", 1)
    roster = tmp_path / "roster.csv"
    with open(roster, "w", newline="") as handle:
        csv.writer(handle).writerows([["id", field], ["ada", "fine"], ["ben", value]])
    with pytest.raises(RosterError) as refused:
        read_roster(roster)
    assert str(refused.value).startswith(f"{roster}, line 3: the {field} ")
    assert said in str(refused.value)
