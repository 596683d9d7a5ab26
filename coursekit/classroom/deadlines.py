"""Due dates, extensions and the late policy (issue 17): when a submission is late, and by how
much it loses.

Where each fact lives: an assignment's due date in nbgrader's Assignment.duedate (naive UTC,
as nbgrader keeps it); extensions in minigrad_extension (given before a submission exists),
mirrored into nbgrader's SubmittedAssignment.extension; the policy in minigrad_late_policy; a
submission's time in nbgrader's SubmittedAssignment.timestamp, from the timestamp.txt that
collect writes; the penalty in nbgrader's SubmittedNotebook.late_submission_penalty.
`apply_penalties` is the one place a penalty is computed: after every `grade`, and after every
change of a due date, an extension or the policy.

A submission's time, by channel (collect writes timestamp.txt and, beside it, where the time
came from): the exchange entry's timestamp; an LMS download's newest file time (a zip
member's date_time, read as UTC, or a folder's mtime) and Canvas's `_LATE` mark; a folder
placed in submitted/ by hand: its newest file's time, read at grade.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import joinedload, selectinload

from coursekit.classroom.printable import printable
from coursekit.classroom.runs import Extension, LatePolicy, ensure_table
from coursekit.i18n import N_, _

DAY = 86400.0
LONGEST_EXTENSION_DAYS = 36525  # a century: beyond it a number is a slip (1e308, inf)
TIMESTAMP = "timestamp.txt"  # nbgrader's
SOURCE = ".submission.json"  # {"source": words, "lms_late": bool}: where the time came from
# Where a submission's time came from, in words (kept as data; shown through _())
FROM_EXCHANGE = N_("the exchange")
FROM_LMS = N_("the LMS download")
FROM_NEWEST_FILE = N_("the newest file's time")


# --- a submission's time -------------------------------------------------------------------
def record_submission(folder: Path, time: datetime, source: str, lms_late=False) -> None:
    """Write the submission's time as nbgrader does (timestamp.txt, UTC) and its source."""
    (folder / TIMESTAMP).write_text(utc(time).isoformat(" "))
    (folder / SOURCE).write_text(json.dumps({"source": source, "lms_late": bool(lms_late)}))


def submission_time(folder: Path) -> dict:
    """{"time": ISO UTC or None, "source": words, "lms_late": bool} of a collected folder."""
    from nbgrader.utils import parse_utc

    try:
        said = json.loads((folder / SOURCE).read_text())
    except (OSError, ValueError):
        said = {}
    said = said if isinstance(said, dict) else {}
    try:
        time = parse_utc((folder / TIMESTAMP).read_text().strip())
        source = said.get("source") if isinstance(said.get("source"), str) else TIMESTAMP
    except (OSError, ValueError, OverflowError):  # none, or not a time: the files' own
        files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
        times = [p.lstat().st_mtime for p in files if p.name not in (TIMESTAMP, SOURCE)]
        time = utc(datetime.fromtimestamp(max(times), timezone.utc)) if times else None
        source = FROM_NEWEST_FILE
    return {
        "time": time.isoformat() if time else None,
        "source": source,
        "lms_late": said.get("lms_late") is True,
    }


def utc(time: datetime) -> datetime:
    """Naive UTC, as nbgrader stores times (a naive time is taken to be UTC already)."""
    if time.tzinfo is not None:
        time = time.astimezone(timezone.utc).replace(tzinfo=None)
    return time


# --- the policy ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Policy:
    per_day: float = 0.0  # percent of the points per day late; a part of a day counts whole
    cap: float | None = None  # the largest penalty, percent of the points
    zero_after: float | None = None  # days late beyond which the score is 0

    def penalty(self, score: float, possible: float, seconds_late: float | None) -> float:
        """Points taken off `score` (never more than it)."""
        if not seconds_late or seconds_late <= 0:
            return 0.0
        if self.zero_after is not None and seconds_late > self.zero_after * DAY:
            return score
        percent = self.per_day * math.ceil(seconds_late / DAY)
        if self.cap is not None:
            percent = min(percent, self.cap)
        return min(score, possible * percent / 100.0)

    def __str__(self) -> str:
        if not self.per_day and self.zero_after is None:
            return "no late penalty"
        said = [f"{self.per_day:g}% of the points per day late (a part of a day counts whole)"]
        if self.cap is not None:
            said.append(f"at most {self.cap:g}%")
        if self.zero_after is not None:
            said.append(f"0 when more than {self.zero_after:g} days late")
        return ", ".join(said)


def read_policy(db) -> Policy:
    row = db.execute(select(LatePolicy)).scalars().first()
    return Policy(row.per_day, row.cap, row.zero_after) if row else Policy()


# --- lateness, as the table, export, report and feedback show it -----------------------------
@dataclass(frozen=True)
class Late:
    submitted: datetime | None
    due: datetime | None  # with the extension
    extension_hours: float
    penalty: float
    lms_late: bool  # the LMS marked it late (Canvas's _LATE)
    source: str = ""  # where its time came from (submission_time)

    @property
    def seconds(self) -> float | None:
        """Seconds after the due date and extension (None: no due date or no time)."""
        if self.submitted is None or self.due is None:
            return None
        return (self.submitted - self.due).total_seconds()

    @property
    def is_late(self) -> bool:
        """Late by the due date; without one, by the LMS's mark."""
        return (self.seconds or 0) > 0 if self.due is not None else self.lms_late

    def describe(self, score: float) -> str:
        """One sentence, in the language spoken here (a class's feedback: its own): when, how
        late, what it cost (score is before the penalty)."""
        if self.due is None:
            said = _("marked late by the LMS (no due date set here, so no penalty)")
        else:
            when = _shown(self.submitted)
            if self.source:
                when += _(" (by {source})").format(source=_(self.source))
            said = _("handed in {when}, {duration} after the due date {due}").format(
                when=when, duration=_duration(self.seconds), due=_shown(self.due)
            )
        if self.extension_hours:
            said += _(" (with an extension of {hours} h)").format(hours=f"{self.extension_hours:g}")
        return said + _("; late penalty {penalty}: {before} -> {after}").format(
            penalty=f"{self.penalty:g}", before=f"{score:g}", after=f"{score - self.penalty:g}"
        )


def lateness(row, lms_late: bool, extension_hours: float, source="") -> Late:
    """A Late from scores.lateness's row (timestamp, due date, extension, penalty)."""
    submitted, duedate, extension, penalty = row
    due = duedate + (extension or timedelta()) if duedate else None
    return Late(submitted, due, extension_hours, penalty, lms_late, source)


def read_lateness(db, runs: dict) -> dict[tuple[str, str], Late]:
    """(student, assignment) -> Late of every submission; `runs` (runs.latest_runs) hold the
    LMS's marks. A constant number of queries."""
    from coursekit.classroom import scores as read

    ensure_table(db.get_bind())  # a gradebook from before deadlines has no extension table
    extra = extensions(db)
    said = {key: run.result.get("submitted", {}) for key, run in runs.items()}
    return {
        key: lateness(
            row,
            said.get(key, {}).get("lms_late") is True,
            extra.get(key, 0.0),
            said.get(key, {}).get("source", ""),
        )
        for key, row in read.lateness(db).items()
    }


def _shown(time: datetime) -> str:
    return f"{time:%Y-%m-%d %H:%M} UTC"


def _duration(seconds: float) -> str:
    days, rest = divmod(int(math.ceil(seconds / 60)), 24 * 60)
    hours, minutes = divmod(rest, 60)
    units = [(days, _("{count} d")), (hours, _("{count} h")), (minutes, _("{count} min"))]
    return " ".join(unit.format(count=n) for n, unit in units if n) or _("{count} min").format(
        count=0
    )


# --- the one place a penalty is computed -----------------------------------------------------
def extensions(db) -> dict[tuple[str, str], float]:
    return {
        (e.student_id, e.assignment_id): e.hours for e in db.execute(select(Extension)).scalars()
    }


def apply_penalties(db, student: str | None = None) -> None:
    """Each submission's extension and penalty (of one student's, after an appeal) from the
    due dates, extensions and policy; spread over its notebooks, none losing more than it
    scored."""
    from nbgrader.api import SubmittedAssignment

    from coursekit.classroom import scores as read

    ensure_table(db.get_bind())
    policy, extra = read_policy(db), extensions(db)
    possible, totals = dict(read.assignments(db)), read.submission_scores(db, student)
    query = select(SubmittedAssignment).options(
        joinedload(SubmittedAssignment.assignment), selectinload(SubmittedAssignment.notebooks)
    )
    if student is not None:
        query = query.where(SubmittedAssignment.student_id == student)
    for submission in db.execute(query).scalars().unique():
        key = (submission.student_id, submission.assignment.name)
        hours = extra.get(key)
        submission.extension = timedelta(hours=hours) if hours else None
        late = lateness((submission.timestamp, submission.assignment.duedate,
                         submission.extension, 0.0), False, hours or 0.0)  # fmt: skip
        left = policy.penalty(totals[key][0], possible[key[1]], late.seconds)
        for notebook in sorted(submission.notebooks, key=lambda n: n.notebook_id):
            share = min(left, max(notebook.score or 0.0, 0.0))
            notebook.late_submission_penalty = share
            left -= share
    db.commit()


# --- set from the CLI: each returns what it stored, in words ---------------------------------
def set_deadline(course, assignment: str, when: str, zone: str = "UTC") -> str:
    _known_assignment(course, assignment)
    due = None if when.strip().lower() == "none" else parse_when(when, zone)
    with course.gradebook() as gb:
        gb.update_or_create_assignment(assignment, duedate=due)
        apply_penalties(gb.db)
    if due is None:
        return f"{assignment}: no due date (nothing is late)"
    local = due.replace(tzinfo=timezone.utc).astimezone(_zone(zone))
    return f"{assignment} is due {_shown(due)} ({local:%Y-%m-%d %H:%M} {zone})"


def extend(course, student: str, assignment: str, hours: float) -> str:
    from nbgrader.api import Student

    _known_assignment(course, assignment)
    if not 0 <= hours <= LONGEST_EXTENSION_DAYS * 24:  # also false for nan
        raise SystemExit(
            "an extension is a number of days or hours, 0 or more (0 removes it) and at most "
            f"{LONGEST_EXTENSION_DAYS} days (a century), not {hours:g} h"
        )
    with course.gradebook() as gb:
        ensure_table(gb.engine)
        known = gb.db.execute(select(Student.id).where(Student.id == student)).first()
        if known is None and not course.submission_dir(student, assignment).is_dir():
            raise SystemExit(
                f"no student '{printable(student)}' in the gradebook or submitted/: check the id"
            )
        row = gb.db.get(Extension, (student, assignment))
        if hours == 0 and row is not None:
            gb.db.delete(row)
        elif hours:
            gb.db.merge(Extension(student_id=student, assignment_id=assignment, hours=hours))
        gb.db.commit()
        apply_penalties(gb.db)
    who = printable(f"{student} / {assignment}")
    return f"{who}: extension of {hours:g} h" if hours else f"{who}: no extension"


def set_policy(course, policy: Policy) -> str:
    for value in (policy.per_day, policy.cap, policy.zero_after):
        if value is not None and (value < 0 or not math.isfinite(value)):
            raise SystemExit("late policy figures are percents and days, 0 or more")
    for name, percent in (("--per-day", policy.per_day), ("--cap", policy.cap)):
        if percent is not None and percent > 100:
            raise SystemExit(f"{name} is a percent of the points: at most 100, not {percent:g}")
    with course.gradebook() as gb:
        ensure_table(gb.engine)
        gb.db.merge(LatePolicy(id=1, per_day=policy.per_day, cap=policy.cap,
                               zero_after=policy.zero_after))  # fmt: skip
        gb.db.commit()
        apply_penalties(gb.db)
    return f"late policy: {policy}"


def parse_when(text: str, zone: str) -> datetime:
    """'2026-12-01 23:59' (in `zone`) or with its own offset ('...+01:00') -> naive UTC."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise SystemExit(
            f"'{printable(text)}' is not a date and time: write it as \"2026-12-01 23:59\""
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_zone(zone))
    return utc(when)


def _zone(name: str):
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SystemExit(
            f"unknown time zone '{printable(name)}': name one like UTC or Europe/Paris"
        ) from None


def _known_assignment(course, assignment: str) -> None:
    if assignment not in course.assignments():
        raise SystemExit(
            f"no assignment named '{printable(assignment)}': the course's assignments are "
            + ", ".join(course.assignments())
        )
