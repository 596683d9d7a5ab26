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
import io
import re
from datetime import datetime

import pytest

from coursekit.classroom.course import Course
from coursekit.classroom.deadlines import apply_penalties
from coursekit.classroom.intake.roster import RosterError, import_roster, read_roster
from coursekit.classroom.results.export_lms import canvas_title_problem, moodle_identifiers
from coursekit.classroom.runs import LatePolicy, ensure_table, new_run
from coursekit.cli import main as cli
from coursekit.nbgrader_schema import answer_in_process

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
    answer_in_process()
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
    assert "1 student(s) have no lms_user_id (a number), sis_id or sis_login_id" in warned
    assert "2 score(s) are empty" in warned  # ben's a2, cy's a1
    assert "cy" in warned and "Traceback" not in warned


def test_moodle_layout_with_feedback_in_words(small_class, capsys):
    text, warned = _export(small_class, "moodle", capsys)
    assert text.replace("\r\n", "\n") == MOODLE
    assert "1 student(s) have no sis_id or no email" in warned and "left out" in warned
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


# --- The importers' own rules, checked on the files we write ----------------------------------
# Read in the importers' source (public GitHub code, through the code index), re-check there
# when an LMS changes:
#   Canvas: instructure/canvas-lms app/models/gradebook_importer.rb (class GradebookImporter:
#     csv_stream, identify_delimiter, header?, row_has_student_headers?, update_column_count,
#     NON_ASSIGNMENT_COLUMN_HEADERS, parse_assignments, check_for_non_student_row,
#     process_student, process_submissions, the :decimal_comma_to_period converter) and
#     spec/models/gradebook_importer_spec.rb. The index stores them without a commit (its file
#     ids 398797707 and 828611098: recent versions, with the Override Status and
#     LastName/FirstName headers). Also
#     ui/features/gradebook_uploads/jquery/process_gradebook_upload.js at commit
#     953c35e6d309044fb6cc1e8d3bb1613c5f154c5f (what the upload page sends).
#   Moodle: moodle/moodle grade/import/csv/classes/load_data.php at commit
#     162f42f0dae3758c9e9b9973749b0a7cd28d9312 (prepare_import_grade_data,
#     map_user_data_with_value, update_grade_item, insert_grade_record), lib/csvlib.class.php
#     at cf29c007d2535bb90d623d0fad76ee8075ced722 (csv_import_reader::load_csv_content),
#     grade/import/lib.php at 9b77dc8db238e73fec3ee78e5ba296614ccacf6f (grade_import_commit)
#     and grade/import/csv/tests/load_data_test.php at a4e657878b2de9a4c3c3bcec74dcd61277bb4b7d.
# Each helper below is that code's rule in Python, applied to our real output.
# Canvas's NON_ASSIGNMENT_COLUMN_HEADERS
CANVAS_TOTALS = ("Current Score", "Current Points", "Current Grade", "Final Score",
                 "Final Points", "Final Grade", "Override Score", "Override Grade",
                 "Override Status")  # fmt: skip


def _export_bytes(course, layout) -> bytes:
    out = course.root / f"{layout}-bytes.csv"
    argv = ["export", "-C", str(course.root), "--db", course.db_url, "--format", layout]
    assert cli([*argv, "--out", str(out)]) == 0
    return out.read_bytes()


def _canvas_number(field: str) -> str:
    """Canvas's :decimal_comma_to_period converter, run on every cell of the file."""
    if not re.fullmatch(r"-?[0-9.,]+%?", field):
        return field
    *parts, last = re.split(r"[,.]", field)
    return ".".join(["".join(parts), last]) if parts else last


def _canvas_delimiter(lines: list[str]) -> str:
    """identify_delimiter on the first 3 lines: a separator counts only when every line has
    the same number of fields with it; ";" wins only with more fields than ","."""
    counts = {}
    for separator in ";,":
        sizes = [len(next(csv.reader([line], delimiter=separator))) for line in lines[:3]]
        counts[separator] = sizes[0] if len(set(sizes)) == 1 else 0
    return ";" if counts[";"] > counts[","] else ","


def test_canvas_reads_our_file_as_its_importer_does(small_class):
    data = _export_bytes(small_class, "canvas")
    text = data.decode("utf-8")  # Ruby's CSV reads it as the server's default (UTF-8) text
    assert _canvas_delimiter(text.splitlines()) == ","
    raw = list(csv.reader(io.StringIO(text)))
    rows = [[_canvas_number(cell) for cell in row] for row in raw]
    assert rows == raw  # the number converter rewrites none of our cells (ids, scores, points)
    header = rows[0]
    # row_has_student_headers? and update_column_count: "Student", "ID", then SIS User ID
    # and SIS Login ID side by side make 5 student columns, the last of which holds "Section".
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    student_columns = 5
    assert "Section" in header[student_columns - 1]
    assert header[:student_columns] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    # parse_assignments: every later column an assignment, matched by its exact title unless
    # it reads "Title (id)"; a title holding a total's name is dropped.
    titles = header[student_columns:]
    assert titles == ["a1", "a2"]
    assert not any(re.fullmatch(r"(.*)\s\((\d+)\)", t) for t in titles)
    assert not any(total in t for t in titles for total in CANVAS_TOTALS)
    # identify_delimiter counts fields per line: every line as wide as the header.
    assert {len(row) for row in rows} == {len(header)}
    # check_for_non_student_row: the row holding "Points Possible" gives the points; ours is
    # right under the header, as Canvas's own export puts it, with the id cells blank.
    points = rows[1]
    assert "Points Possible" in points[0] and points[1:student_columns] == [""] * 4
    assert points[student_columns:] == ["3", "5"]
    students = rows[2:]
    for row in students:
        assert "Points Possible" not in row[0]
        # a row of blanks and "Muted"/"Manual Posting" only is skipped, not a student
        assert not all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row)
        # process_student: ID is Canvas's user id (to_i: digits or nothing), then the SIS ids
        assert row[1] == "" or row[1].isdigit()
        # process_submissions: a grade is the cell stripped; ours a plain number or empty
        for grade in row[student_columns:]:
            assert grade == grade.strip() and (grade == "" or re.fullmatch(r"\d+(\.\d+)?", grade))
    by_id = {row[2]: row for row in students if row[1] or row[2] or row[3]}
    assert by_id["S1"][student_columns:] == ["3", "4"] and by_id["S2"][student_columns:] == [
        "1.7", ""]  # fmt: skip
    # no id at all: Canvas matches the Student cell to a user's name or sortable name
    assert [row[0] for row in students if not (row[1] or row[2] or row[3])] == ["Cy"]


def _moodle_import(text: str, mapfrom: int, identifier: str) -> dict:
    """csv_import_reader::load_csv_content then prepare_import_grade_data with column `mapfrom`
    mapped to the user field `identifier` and every other column ignored but the scores
    (mapped to items): {row's identifier: the identifier its grades are filed under}. The
    student id is not reset between rows: a row with its identifier empty keeps the last."""
    content = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").strip()
    rows = list(csv.reader(io.StringIO(content)))
    header, lines = rows[0], rows[1:]
    assert all(len(row) == len(header) for row in lines), "csvweirdcolumns"
    filed, student = {}, None
    for number, line in enumerate(lines, start=2):
        if len(line) <= 1:
            continue  # "There is no data on this line"
        value = line[mapfrom].strip()
        if value:
            student = value
        assert student is not None, f"no {identifier} on the first row: the import stops"
        filed[f"line {number}: {value}"] = student
    return filed


def test_moodle_files_every_row_under_its_own_student_whichever_id_is_mapped(small_class):
    text = _export_bytes(small_class, "moodle").decode("utf-8")  # the form's encoding: UTF-8
    header = next(csv.reader(io.StringIO(text)))
    assert header[:4] == ["ID number", "Email address", "First name", "Last name"]
    for column, identifier in (("ID number", "idnumber"), ("Email address", "email")):
        filed = _moodle_import(text, header.index(column), identifier)
        assert filed and all(key.endswith(f": {who}") for key, who in filed.items()), filed
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        for assignment in ("a1", "a2"):
            # update_grade_item: "" or "-" is no grade, anything else must read as a number
            # (else "badgrade" stops the import); insert_grade_record: at most 100 by default
            score = row[assignment].strip()
            assert score in ("", "-") or (re.fullmatch(r"-?\d+(\.\d+)?", score)
                                          and float(score) <= 100)  # fmt: skip
            assert f"{assignment} feedback" in row  # mapped to "Feedback for <item>"
    assert [r["ID number"] for r in rows] == ["S1", "S2"]  # cy (no id) is left out


def test_the_canvas_mirrors_agree_with_canvas_own_spec():
    """The helpers above give what gradebook_importer_spec.rb expects of the importer."""
    spec = {"123,4": "123.4", "1.234,5": "1234.5", "12.34,5": "1234.5", "-1.234,50": "-1234.50",
            "1.234.5": "1234.5", "1,234,5": "1234.5", "57,4%": "57.4%", "-4.200,30%": "-4200.30%",
            "123.43": "123.43", "45,678.12": "45678.12", "45.678,23": "45678.23",
            "Merkel 1,0, Angela": "Merkel 1,0, Angela"}  # fmt: skip
    assert {field: _canvas_number(field) for field in spec} == spec
    semicolons = [
        "Student;ID;Section;Aufgabe 1;Aufgabe 2;Final Score",
        "Points Possible;;;10000,54;100,00;",
        '"Merkel 1,0, Angela";1;Mein Kurs;123,4;57,4%;',
    ]
    commas = [
        "Student,ID,Section,Assignment 1,Assignment 2,Final Score",
        "Points Possible,,,1000,50000,",
        'C. Iulius Caesar,1,,123.43,"45,678.12",99%',
    ]
    assert (_canvas_delimiter(semicolons), _canvas_delimiter(commas)) == (";", ",")


def test_canvas_title_and_moodle_identifier_rules():
    assert canvas_title_problem("a1") == ""
    assert "assignment id" in canvas_title_problem("hw (2)")
    assert "total" in canvas_title_problem("Final Grade project")
    who = {"ada": {"sis_id": "S1", "email": "a@x"}, "ben": {"email": "b@x"}, "cy": {}}
    assert moodle_identifiers(["ada", "ben", "cy"], who) == (
        [("Email address", "email")], ["ada", "ben"])  # fmt: skip
    who["ben"]["sis_id"] = "S2"
    assert moodle_identifiers(["ada", "ben", "cy"], who)[0] == [
        ("ID number", "sis_id"), ("Email address", "email")]  # fmt: skip


def test_an_lms_user_id_canvas_would_misread_is_left_out_of_the_id_column(
    small_class, capsys, monkeypatch
):
    """Canvas looks the ID cell up as a number (Ruby's to_i: "12abc" reads 12, another user)."""
    from coursekit.classroom.results import export_lms

    read = export_lms._read

    def with_bad_id(course):
        book, who = read(course)
        who["ada"] = {**who["ada"], "lms_user_id": "12abc"}
        return book, who

    monkeypatch.setattr(export_lms, "_read", with_bad_id)
    text, warned = _export(small_class, "canvas", capsys)
    ada = next(r for r in csv.reader(io.StringIO(text)) if r[0] == "Lovelace, Ada")
    assert ada[1:3] == ["", "S1"]
    assert "1 student(s) have an lms_user_id that is not a number" in warned and "ada" in warned
