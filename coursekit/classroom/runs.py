"""The pipeline's own record, beside nbgrader's tables: one row per grading run.

It holds what nbgrader's gradebook has no place for: the seed a run used (an appeal reuses
it), a fingerprint of the collected files (a resumed class skips what is graded and
unchanged), and the run's result (notes, per-cell messages, scenarios) for reports.
"""

from __future__ import annotations

import hashlib
import json
import stat
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    String,
    Text,
    select,
)
from sqlalchemy.orm import declarative_base

Base = declarative_base()


class GradingRun(Base):
    __tablename__ = "minigrad_grading_run"
    id = Column(Integer, primary_key=True, autoincrement=True)
    student_id = Column(String(128), nullable=False, index=True)
    assignment_id = Column(String(128), nullable=False, index=True)
    seed = Column(BigInteger, nullable=False)
    fingerprint = Column(String(64), nullable=False)
    status = Column(String(32), nullable=False)
    score = Column(Float, nullable=False)
    max_score = Column(Float, nullable=False)
    finished_at = Column(DateTime, nullable=False)
    duration_s = Column(Float)
    result_json = Column(Text, nullable=False)

    @property
    def result(self) -> dict:
        return json.loads(self.result_json)


class Extension(Base):
    """A student's extra time on an assignment, given before or after they hand it in
    (nbgrader's SubmittedAssignment.extension exists only once a submission does)."""

    __tablename__ = "minigrad_extension"
    student_id = Column(String(128), primary_key=True)
    assignment_id = Column(String(128), primary_key=True)
    hours = Column(Float, nullable=False)


class LatePolicy(Base):
    """The course's late policy, one row (none stored: no penalty). Percent of the points."""

    __tablename__ = "minigrad_late_policy"
    id = Column(Integer, primary_key=True)
    per_day = Column(Float, nullable=False, default=0.0)
    cap = Column(Float)  # largest penalty, percent; None: up to the whole score
    zero_after = Column(Float)  # days late beyond which the score is 0; None: never


class StudentDetail(Base):
    """What an LMS gradebook import matches a student by, beyond nbgrader's Student (which
    holds the e-mail and the LMS's user id): from the roster's optional columns."""

    __tablename__ = "minigrad_student_detail"
    student_id = Column(String(128), primary_key=True)
    sis_id = Column(String(128))
    sis_login_id = Column(String(128))
    section = Column(String(128))


class Enrolled(Base):
    """A student of the roster (roster.import_roster): the ids that may hand in through the
    exchange. nbgrader's Student table is no roster: grading adds whoever it grades."""

    __tablename__ = "minigrad_enrolled"
    student_id = Column(String(128), primary_key=True)


def ensure_table(engine) -> None:
    """Our table, and indexes on the columns nbgrader's own lookups join on (its schema has
    none: each find_grade scanned every grade, and the writer fell from 56 to 6 results/s
    between an empty gradebook and one of 5,000 students)."""
    Base.metadata.create_all(bind=engine)
    for index in _join_indexes():
        index.create(bind=engine, checkfirst=True)


@cache  # an Index joins its table's metadata: made once per process
def _join_indexes() -> list[Index]:
    from nbgrader.api import Comment, Grade, SubmittedAssignment, SubmittedNotebook

    columns = [
        (Grade, "notebook_id"), (Grade, "cell_id"), (Comment, "notebook_id"),
        (SubmittedNotebook, "assignment_id"), (SubmittedNotebook, "notebook_id"),
        (SubmittedAssignment, "student_id"), (SubmittedAssignment, "assignment_id"),
    ]  # fmt: skip
    table = lambda model: model.__table__
    return [Index(f"ix_minigrad_{table(m).name}_{c}", table(m).c[c]) for m, c in columns]


def new_run(result: dict, fingerprint: str) -> GradingRun:
    return GradingRun(**run_row(result, fingerprint))


def run_row(result: dict, fingerprint: str) -> dict:
    """A run's columns, for an insert of many."""
    return dict(
        student_id=result["student"],
        assignment_id=result["assignment"],
        seed=result["seed"],
        fingerprint=fingerprint,
        status=result["status"],
        score=sum(c["score"] for c in result["cells"]),
        max_score=sum(c["max_score"] for c in result["cells"]),
        finished_at=datetime.now(timezone.utc).replace(tzinfo=None),
        duration_s=result.get("duration_s"),
        result_json=json.dumps(result),
    )


def latest_runs(session, student: str | None = None) -> dict[tuple[str, str], GradingRun]:
    """(student, assignment) -> the last run that was written for it (one student's only,
    if named: an appeal need not load the class)."""
    latest: dict[tuple[str, str], GradingRun] = {}
    query = select(GradingRun).order_by(GradingRun.id)
    if student is not None:
        query = query.where(GradingRun.student_id == student)
    for run in session.execute(query).scalars():
        latest[(run.student_id, run.assignment_id)] = run
    return latest


def fingerprint(folder: Path) -> str:
    """sha256 of a submission's files (names and bytes): changes when it is collected anew.
    Each file is hashed on its own, so no two different sets of files run together into the
    same bytes (an appeal reuses seeds only for the same files); never through a symlink,
    never blocking on a FIFO: those hash as their kind."""
    entries = []
    for path in sorted(folder.rglob("*")):
        kind = path.lstat().st_mode
        if stat.S_ISDIR(kind):
            continue
        if stat.S_ISREG(kind):
            content = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            content = oct(stat.S_IFMT(kind))
        entries.append([str(path.relative_to(folder)), content])
    return hashlib.sha256(json.dumps(entries).encode()).hexdigest()
