"""The class's grades read in a constant number of queries (issue 17), with the figures
nbgrader's own per-submission API gives."""

from __future__ import annotations

import csv
from contextlib import contextmanager

import pytest
from nbgrader.api import Gradebook
from sqlalchemy import event

from bench.gradebook import build_gradebook
from coursekit.classroom import scores as read
from coursekit.classroom.results.export import export_csv
from coursekit.classroom.results.report import summarise, write_report
from coursekit.classroom.results.table import grade_summary, grade_table


@pytest.fixture(autouse=True)
def gradebook_schema_in_process():
    from coursekit.nbgrader_schema import answer_in_process

    answer_in_process()


def _class(tmp_path, students):
    course = build_gradebook(tmp_path / f"c{students}", students=students, assignments=3,
                             cells=3, seed=students)  # fmt: skip
    with Gradebook(course.url) as gb:  # a manual score with extra credit beats the auto score
        grade = gb.find_grade("test_1", "a2", "a2", "s00003")
        grade.manual_score, grade.extra_credit = 0.5, 0.25
        gb.db.commit()
    return course


def test_scores_match_nbgraders_own_figures(tmp_path):
    course = _class(tmp_path, 12)
    with Gradebook(course.url) as gb:
        totals, cells = read.submission_scores(gb.db), read.cell_scores(gb.db)
        expected = {
            (s.student.id, a.name): (s.score, s.max_score)
            for a in gb.assignments
            for s in a.submissions
        }
        assert totals == expected
        assert totals[("s00003", "a2")][0] == expected[("s00003", "a2")][0]
        for (student, assignment, notebook, cell), score in cells.items():
            assert score == gb.find_grade(cell, notebook, assignment, student).score
        assert len(cells) == 3 * len(expected)
        assert cells[("s00003", "a2", "a2", "test_1")] == 0.75
    rows = list(csv.DictReader(open(export_csv(course, tmp_path / "grades.csv"))))
    by_id = {r["student_id"]: r for r in rows}
    for (student, assignment), (score, _) in expected.items():
        assert float(by_id[student][assignment]) == score
    missing = [(s, a) for s in by_id for a in ("a1", "a2", "a3") if (s, a) not in expected]
    assert missing and all(by_id[s][a] == "" for s, a in missing)


@contextmanager
def counted_queries(course):
    """How many SQL statements the gradebook receives inside the block."""
    import sqlalchemy

    count = [0]

    def tally(*args):
        count[0] += 1

    event.listen(sqlalchemy.engine.Engine, "before_cursor_execute", tally)
    try:
        yield count
    finally:
        event.remove(sqlalchemy.engine.Engine, "before_cursor_execute", tally)


@pytest.mark.parametrize(
    "read_all", [grade_table, summarise, lambda c: export_csv(c, c.root / "g.csv")]
)
def test_a_class_ten_times_larger_costs_no_more_queries(tmp_path, read_all):
    """Table, report and export read the same number of statements for 8 and 80 students
    (they were one query per submission and per cell: minutes for 5,000 students)."""
    counts = []
    for students in (8, 80):
        course = _class(tmp_path, students)
        with counted_queries(course) as count:
            read_all(course)
        counts.append(count[0])
    assert counts[0] == counts[1], counts


def test_grade_prints_what_it_did_not_the_class():
    results = [
        {"student": "ada", "assignment": "a1", "status": "graded", "notes": [],
         "cells": [{"score": 2.0, "max_score": 3.0}]},
        {"student": "ada", "assignment": "a2", "status": "graded_with_problems",
         "notes": ["a syntax error in cell 4"], "cells": [{"score": 0.0, "max_score": 3.0}]},
    ]  # fmt: skip
    text = grade_summary(results)
    assert text.splitlines()[0] == (
        "graded 2 submission(s) of 1 student(s): 1 cleanly, 1 with problems"
    )
    assert "  * ada / a2: graded_with_problems: a syntax error in cell 4" in text
    assert "  ada / a1: 2/3" in text
    assert grade_summary([]).startswith("nothing to grade")


def test_totals_count_every_assignment_and_the_missing_are_listed(tmp_path):
    """One assignment handed in is not full marks: the total is out of all of them, and each
    assignment lists who has not handed it in (the table and the report)."""
    course = _class(tmp_path, 12)
    with Gradebook(course.url) as gb:
        handed = {(s.student.id, a.name): s.score for a in gb.assignments for s in a.submissions}
        out_of = sum(a.max_score for a in gb.assignments)
    table = grade_table(course).splitlines()
    assert table[0].split()[-1] == f"{out_of:g})"
    missing = sorted((s, a) for s in (f"s{i:05d}" for i in range(12))
                     for a in ("a1", "a2", "a3") if (s, a) not in handed)  # fmt: skip
    assert missing
    for student in {s for s, _ in missing}:
        (row,) = [line for line in table if line.startswith(student + " ")]
        total = sum(score for (s, _), score in handed.items() if s == student)
        assert row.split()[-1] == f"{total:g}/{out_of:g}"
    data = summarise(course)
    page = write_report(course, tmp_path / "report").read_text()
    section = page.split("<h2>Missing submissions</h2>")[1].split("<h2>")[0]
    for student, assignment in missing:
        assert student in section
        assert student in data["missing"][assignment]
        (line,) = [line for line in table if line.startswith(f"missing {assignment} (")]
        assert student in line


def test_the_report_names_students_sorts_and_lists_what_needs_attention(tmp_path):
    course = _class(tmp_path, 12)
    folder = write_report(course, tmp_path / "report")
    page = folder.read_text()
    data = summarise(course)
    troubled = {(r["student"], r["assignment"]) for r in data["problems"]}
    attention = {(a["student"], a["assignment"]): a["why"] for a in data["attention"]}
    assert troubled and troubled <= set(attention)
    assert "<td>s00003</td><td>Firsts00003 Lasts00003</td>" in page
    assert '<script src="sort.js"></script>' in page and (folder.parent / "sort.js").is_file()
    assert "script-src 'self'" in page  # its own file only, never inline
    failed = data["failed_cells"]
    assert failed == sorted(failed, key=lambda f: (-f["submissions"], f["assignment"], f["cell"]))


def test_a_course_test_cell_is_named_by_its_rule_in_words():
    from autograder.rules import statement
    from coursekit.classroom.results.report import _rule_in_words

    assert _rule_in_words("test_L3") == f"L3: {statement('L3')}"
    assert _rule_in_words("test_add") == ""


def test_needs_attention_lists_what_is_missing_only_after_its_due_date(tmp_path):
    """Issue 32: it listed every student for every assignment just released (21 of 22 rows).
    a1 is past due (one missing student has an extension beyond today), a2 due in the
    future, a3 without a due date: only a1's missing, extension aside, need attention."""
    from coursekit.classroom.deadlines import extend, set_deadline

    course = _class(tmp_path, 40)
    missing = summarise(course)["missing"]
    assert len(missing["a1"]) >= 2 and missing["a2"] and missing["a3"]
    (course.root / "source" / "a1").mkdir(parents=True)  # what `deadline` checks exists
    (course.root / "source" / "a2").mkdir()
    set_deadline(course, "a1", "2026-01-05 12:00")
    set_deadline(course, "a2", "2999-01-01 00:00")
    extended, *overdue = missing["a1"]
    extend(course, extended, "a1", 24 * 365 * 50)
    attention = summarise(course)["attention"]
    listed = {(a["student"], a["assignment"]): a["why"] for a in attention}
    unhanded = {key for key, why in listed.items() if why.startswith("not handed in")}
    assert unhanded == {(s, "a1") for s in overdue}
    assert listed[(overdue[0], "a1")] == "not handed in, due 2026-01-05 12:00 UTC"
