"""The gradebook read in a constant number of queries, whatever the size of the class.

nbgrader's ORM computes each submission's score with a correlated subquery and loads
students and grades object by object: fine for one submission, quadratic for a class (a
table of 5,000 students x 5 assignments took minutes). The table, the export and the report
read through here instead: one grouped query per kind of figure.
"""

from __future__ import annotations

from nbgrader.api import (
    Assignment,
    BaseCell,
    Grade,
    Notebook,
    Student,
    SubmittedAssignment,
    SubmittedNotebook,
)
from sqlalchemy import func, select


def students(db) -> list[Student]:
    """Every student of the gradebook, by id (one query)."""
    return list(db.execute(select(Student).order_by(Student.id)).scalars())


def assignments(db) -> list[tuple[str, float]]:
    """(name, points possible) of every assignment, by name (one query)."""
    rows = db.execute(select(Assignment.name, Assignment.max_score).order_by(Assignment.name))
    return [(name, float(maximum or 0.0)) for name, maximum in rows]


def submission_scores(db, student: str | None = None) -> dict[tuple[str, str], tuple]:
    """(student, assignment) -> (score, max score) of every submission (one grouped query),
    or of one student's."""
    query = (
        select(
            SubmittedAssignment.student_id,
            Assignment.name,
            func.coalesce(func.sum(Grade.score), 0.0),
            func.coalesce(func.sum(Grade.max_score), 0.0),
        )
        .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
        .outerjoin(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
        .outerjoin(Grade, Grade.notebook_id == SubmittedNotebook.id)
        .group_by(SubmittedAssignment.id, SubmittedAssignment.student_id, Assignment.name)
    )
    if student is not None:
        query = query.where(SubmittedAssignment.student_id == student)
    return {(s, a): (float(score), float(maximum)) for s, a, score, maximum in db.execute(query)}


def cell_scores(db) -> dict[tuple[str, str, str, str], float]:
    """(student, assignment, notebook, cell) -> score of every graded cell (one query)."""
    query = (
        select(
            SubmittedAssignment.student_id,
            Assignment.name,
            Notebook.name,
            BaseCell.name,
            Grade.score,
        )
        .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
        .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
        .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
        .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id)
        .join(BaseCell, Grade.cell_id == BaseCell.id)
    )
    return {(s, a, nb, cell): float(score) for s, a, nb, cell, score in db.execute(query)}


def lateness(db) -> dict[tuple[str, str], tuple]:
    """(student, assignment) -> (submitted at, due date, extension, late penalty) of every
    submission, times naive UTC (one grouped query; deadlines.lateness reads a row)."""
    query = (
        select(
            SubmittedAssignment.student_id,
            Assignment.name,
            SubmittedAssignment.timestamp,
            Assignment.duedate,
            SubmittedAssignment.extension,
            func.coalesce(func.sum(SubmittedNotebook.late_submission_penalty), 0.0),
        )
        .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
        .outerjoin(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
        .group_by(SubmittedAssignment.id, Assignment.id)  # PostgreSQL: every column's key
    )
    return {(s, a): (t, due, ext, float(p)) for s, a, t, due, ext, p in db.execute(query)}


def identities(db) -> dict[str, dict[str, str]]:
    """student -> what an LMS knows them by: first_name, last_name, email, lms_user_id, sis_id,
    sis_login_id, section ("" where the roster gave none). One query."""
    from coursekit.classroom.runs import StudentDetail, ensure_table

    ensure_table(db.get_bind())  # a gradebook from before the roster's LMS columns
    query = select(
        Student.id, Student.first_name, Student.last_name, Student.email, Student.lms_user_id,
        StudentDetail.sis_id, StudentDetail.sis_login_id, StudentDetail.section,
    ).outerjoin(StudentDetail, StudentDetail.student_id == Student.id)  # fmt: skip
    keys = ("first_name", "last_name", "email", "lms_user_id", "sis_id", "sis_login_id",
            "section")  # fmt: skip
    return {row[0]: {k: v or "" for k, v in zip(keys, row[1:])} for row in db.execute(query)}
