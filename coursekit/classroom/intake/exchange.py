"""Collect from nbgrader's exchange entry by entry: one bad entry is left out, not fatal.

nbgrader's ExchangeCollect stops the whole class on one entry name without a timestamp,
follows symlinks (an entry linking to the course's source/ hands in the instructor's
notebook), blocks for ever on a FIFO, and only logs an entry handed in under another
student's name. VettedCollect keeps its rules (the newest entry per student, --update
semantics, CourseDirectory.ignore/include/max_file_size) and leaves out, with a reason:
an entry name without a valid timestamp; an entry that is not a folder, or holds anything but
folders and regular files; an entry whose id is not on the roster (runs.Enrolled, the ids
the roster imported; with none, every id is taken and a note says so); an entry owned by
someone else than the student it names, or whose owner cannot be checked (no local user has
the student's name) unless the instructor running collect (or root) placed it (check_owner,
on by default); an entry over the limits (intake.Limits). Collected files are written 0644,
staged beside their place so that a refused entry leaves the copy collected before in place.

The time of a student's entry is the exchange's, which no student can set: the newest ctime
of the entry's files and folders (a student can set a name, timestamp.txt and mtimes, never a
ctime earlier than now), remembered in the course (.pipeline/exchange-seen.json) when collect
first sees the entry, with a digest of what it held, so that a later chown or restore of the
exchange does not move it; an entry whose content changed since takes the time it changed.
The name's time counts only when it is not earlier; an entry that claims an earlier time (its
name or its timestamp.txt) is collected with the exchange's time and a note. An entry placed by
the instructor running collect (or root) keeps its name's time, as in nbgrader.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pwd
import shutil
import stat
from datetime import datetime, timedelta, timezone
from pathlib import Path

from nbgrader.exchange import ExchangeError
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import ignore_patterns, parse_utc
from sqlalchemy import select

from coursekit.classroom.deadlines import FROM_EXCHANGE, TIMESTAMP, record_submission
from coursekit.classroom.intake.file_limits import (
    DEFAULT_LIMITS,
    Budget,
    Limits,
    Unsafe,
    copy_entry,
    kind,
    open_regular,
)
from coursekit.classroom.intake.roster import id_problem
from coursekit.classroom.quiet import nbgrader_log
from coursekit.classroom.runs import Enrolled, ensure_table

SEEN = "exchange-seen.json"  # in the course's .pipeline/: what collect saw of each entry, when
# An honest entry's name is written before its files are copied: a claim earlier than the
# exchange's time by less than this is not worth a note (the time is the exchange's anyway).
CLAIM_SLACK = timedelta(minutes=2)
NO_ROSTER = (
    "no roster (`init --roster` or `collect --roster ROSTER`): the ids of the exchange's "
    "entries were not checked against a class list, so an entry under any id was collected"
)


def collect(course, assignment: str, limits: Limits = DEFAULT_LIMITS, verbose=False):
    """Collect `assignment` from the course's exchange; returns (the students whose entry this
    collect copied in, the entries left out and why). nbgrader's log is shown if verbose."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    config = course.config()
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id = assignment
    collector = VettedCollect(
        coursedir=coursedir, authenticator=Authenticator(config=config), config=config
    )
    collector.update, collector.limits = True, limits
    with course.gradebook() as gb:
        ensure_table(gb.engine)  # a gradebook from before the roster was recorded: none
        enrolled = gb.db.execute(select(Enrolled.student_id)).scalars()
        collector.roster = set(enrolled) or None
    seen_file = course.work / SEEN
    seen = json.loads(seen_file.read_text()) if seen_file.is_file() else {}
    collector.seen = seen.setdefault(assignment, {})
    try:
        with nbgrader_log(collector.log, verbose):
            collector.start()
    except ExchangeError as error:
        raise SystemExit(f"collect {assignment} from the exchange: {error}") from None
    seen_file.parent.mkdir(parents=True, exist_ok=True)
    seen_file.write_text(json.dumps(seen, indent=1))
    notes = collector.notes + ([NO_ROSTER] if collector.roster is None else [])
    return collector.taken, collector.problems, notes


class VettedCollect(ExchangeCollect):
    limits = DEFAULT_LIMITS
    roster: set[str] | None = None  # the ids that may hand in (None: no roster, all)
    seen: dict  # entry name -> {"time", "changed", "digest"}: this assignment's, in SEEN
    problems: list[str]  # the entries left out, each with why
    notes: list[str]  # the entries collected with a remark (a claimed time not kept)
    taken: list[str]  # the students whose entry this collect copied into submitted/

    def init_src(self):
        self.problems, self.notes, self.taken = [], [], []
        self.seen = getattr(self, "seen", {})
        self.instructors = {os.geteuid(), 0}  # whose entries are the course's own
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        newest: dict[str, dict] = {}
        for filename in sorted(os.listdir(self.inbound_path)):
            record = self._record(filename)
            if record is None:
                continue
            why = self._refused(record)
            if why:
                self.problems.append(f"inbound entry {filename!r}: {why}; left out")
                continue
            known = newest.get(record["username"])
            if known is None or record["timestamp"] > known["timestamp"]:
                newest[record["username"]] = record
        self.src_records = list(newest.values())

    def _record(self, filename: str) -> dict | None:
        """nbgrader's `student+assignment+timestamp+random`, for this assignment; None else."""
        parts = filename.rsplit("+", 3)  # ids may hold "+": split from the right
        if len(parts) < 3 or parts[1] != self.coursedir.assignment_id:
            return None
        try:
            timestamp = parse_utc(parts[2])
        except (ValueError, OverflowError):
            self.problems.append(
                f"inbound entry {filename!r}: {parts[2]!r} is not a timestamp; left out"
            )
            return None
        return {"username": parts[0], "filename": filename, "timestamp": timestamp}

    def _refused(self, record: dict) -> str:
        """Why the entry cannot be the named student's submission, or ''."""
        info = os.lstat(os.path.join(self.inbound_path, record["filename"]))
        if not stat.S_ISDIR(info.st_mode):
            return f"it is {kind(info.st_mode)}, not a folder"
        student = record["username"]
        if id_problem(student):  # the id is the student's own choice of folder name here
            return id_problem(student)
        if self.roster is not None and student not in self.roster:
            return (
                f"{student!r} is not on the roster (add a student with `collect --roster ROSTER`)"
            )
        if self.check_owner:
            try:
                expected = pwd.getpwnam(student).pw_uid
            except KeyError:  # no local user of that name: only the course's own is theirs
                if info.st_uid in self.instructors:
                    return ""
                return (
                    f"no local user is named {student}, so that it is theirs cannot be checked "
                    f"(it belongs to {_user(info.st_uid)}): give each student a local account "
                    "named by their id (`minigrad-course hub --prepare-only`)"
                )
            if info.st_uid != expected:
                return (
                    f"it names {student} but belongs to {_user(info.st_uid)} (handed in "
                    "under another student's name)"
                )
        return ""

    def copy_files(self):
        ignore = ignore_patterns(
            exclude=self.coursedir.ignore,
            include=self.coursedir.include,
            max_file_size=self.coursedir.max_file_size,
            log=self.log,
        )
        for record in self.src_records:
            student, assignment = record["username"], self.coursedir.assignment_id
            dest = Path(self.coursedir.format_path(
                self.coursedir.submitted_directory, student, assignment
            ))  # fmt: skip
            entry = Path(self.inbound_path, record["filename"])
            time = self._known_time(record, entry)  # None: decided by what the entry holds
            if time is not None and not self._newer(time, dest):
                continue
            staged = dest.with_name(f".{dest.name}.collecting")
            shutil.rmtree(staged, ignore_errors=True)
            staged.mkdir(parents=True)
            try:
                copy_entry(entry, staged, Budget(self.limits), ignore)
            except Unsafe as why:
                shutil.rmtree(staged, ignore_errors=True)
                if not any(dest.parent.iterdir()):  # no folder left for a student with nothing
                    dest.parent.rmdir()
                self.problems.append(f"inbound entry {record['filename']!r}: {why}; left out")
                continue
            if time is None:
                time = self._seen_time(record, entry, staged)
                if not self._newer(time, dest):
                    shutil.rmtree(staged)
                    continue
            record_submission(staged, time, FROM_EXCHANGE)
            if dest.exists():
                shutil.rmtree(dest)
            staged.rename(dest)
            self.taken.append(student)
            self.log.info("Collected submission: %s %s", student, assignment)

    def _known_time(self, record: dict, entry: Path) -> datetime | None:
        """The entry's time when it is known without reading it: an entry of the course's
        own (the name's time), or one seen before and unchanged since (the time it was first
        seen with); None otherwise."""
        if os.lstat(entry).st_uid in self.instructors:
            return record["timestamp"]
        seen = self.seen.get(record["filename"])
        if seen is None or _changed_at(entry, self.limits.max_files) > seen["changed"]:
            return None  # copied again: over the limits now, the copy says so
        return self._kept(record, entry, _utc(seen["time"]))

    def _seen_time(self, record: dict, entry: Path, staged: Path) -> datetime:
        """The time of an entry seen for the first time, or changed since: the exchange's (its
        newest ctime), kept for good the first time; a change of content takes the time of
        the change, a change of owner or mode alone (an administrator's) does not."""
        changed, digest = _changed_at(entry), _digest(staged)
        seen = self.seen.get(record["filename"])
        if seen is not None and seen["digest"] == digest:
            time = _utc(seen["time"])
        else:
            time = _utc_from(changed)
            if seen is not None:
                self.notes.append(
                    f"inbound entry {record['filename']!r}: changed after collect first saw it "
                    f"at {_shown(_utc(seen['time']))}; its time is when it changed, {_shown(time)}"
                )
        self.seen[record["filename"]] = {"time": str(time), "changed": changed, "digest": digest}
        return self._kept(record, entry, time)

    def _kept(self, record: dict, entry: Path, time: datetime) -> datetime:
        """`time`, or the entry's name's when that is later; a claim (the name's, its
        timestamp.txt's) earlier than `time` is noted, never kept."""
        claims = [record["timestamp"], _claimed_inside(entry)]
        earliest = min(c for c in claims if c is not None)
        if earliest < time - CLAIM_SLACK:
            self.notes.append(
                f"inbound entry {record['filename']!r}: it says it was handed in at "
                f"{_shown(earliest)}, but it reached the exchange at {_shown(time)}; collected "
                "with the exchange's time"
            )
        return max(time, record["timestamp"])

    def _newer(self, time: datetime, dest: Path) -> bool:
        """Whether an entry of `time` is newer than the copy collected before (nbgrader's
        --update)."""
        if not dest.is_dir():
            return True
        try:
            existing = self.coursedir.get_existing_timestamp(str(dest))
        except (ValueError, OverflowError):  # a timestamp.txt written before this rule
            return True
        return existing is None or time > existing


def _changed_at(entry: Path, most: int | None = None) -> float:
    """The newest ctime in the entry (its folders and files, never through a symlink): the
    last time anything in it changed, which no student can set back. Past `most` names,
    infinity (an entry grown past the limits is looked at again, not walked to its end)."""
    newest, count = os.lstat(entry).st_ctime, 0
    for folder, dirs, files in os.walk(entry):
        count += len(dirs) + len(files)
        if most is not None and count > most:
            return math.inf
        for name in dirs + files:
            newest = max(newest, os.lstat(os.path.join(folder, name)).st_ctime)
    return newest


def _digest(folder: Path) -> str:
    """sha256 of a collected copy: each file's name and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(os.fsencode(path.relative_to(folder)) + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _claimed_inside(entry: Path) -> datetime | None:
    """The time the entry's own timestamp.txt claims (nbgrader's submit writes one), if any."""
    try:
        with open_regular(entry / TIMESTAMP) as claim:
            return parse_utc(claim.read(200).decode().strip())
    except (Unsafe, OSError, ValueError, OverflowError):
        return None


def _utc_from(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc).replace(tzinfo=None)


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _shown(time: datetime) -> str:
    return f"{time:%Y-%m-%d %H:%M:%S} UTC"


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
