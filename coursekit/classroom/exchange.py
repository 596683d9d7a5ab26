"""Collect from nbgrader's exchange entry by entry: one bad entry is left out, not fatal.

nbgrader's ExchangeCollect stops the whole class on one entry name without a timestamp,
follows symlinks (an entry linking to the course's source/ hands in the instructor's
notebook), blocks for ever on a FIFO, and only logs an entry handed in under another
student's name. VettedCollect keeps its rules (the newest entry per student, --update
semantics, CourseDirectory.ignore/include/max_file_size) and leaves out, with a reason:
an entry name without a valid timestamp; an entry that is not a folder, or holds anything but
folders and regular files; an entry owned by someone else than the student it names, where
the uids are known (a local user of that name exists; check_owner, on by default); an entry
over the limits (intake.Limits). Collected files are written 0644, staged beside their place
so that a refused entry leaves the copy collected before in place.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
from pathlib import Path

from nbgrader.exchange import ExchangeError
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import ignore_patterns, parse_utc

from coursekit.classroom.deadlines import record_submission
from coursekit.classroom.intake import DEFAULT_LIMITS, Budget, Limits, Unsafe, copy_entry, kind
from coursekit.classroom.quiet import nbgrader_log
from coursekit.classroom.roster import id_problem


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
    try:
        with nbgrader_log(collector.log, verbose):
            collector.start()
    except ExchangeError as error:
        raise SystemExit(f"collect {assignment} from the exchange: {error}") from None
    return collector.taken, collector.problems


class VettedCollect(ExchangeCollect):
    limits = DEFAULT_LIMITS
    problems: list[str]
    taken: list[str]  # the students whose entry this collect copied into submitted/

    def init_src(self):
        self.problems, self.taken = [], []
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
        if self.check_owner:
            try:
                expected = pwd.getpwnam(student).pw_uid
            except KeyError:  # no local user of that name: nothing to compare with
                return ""
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
            if not self._newer(record, dest):
                continue
            staged = dest.with_name(f".{dest.name}.collecting")
            shutil.rmtree(staged, ignore_errors=True)
            staged.mkdir(parents=True)
            try:
                copy_entry(
                    Path(self.inbound_path, record["filename"]), staged, Budget(self.limits), ignore
                )
            except Unsafe as why:
                shutil.rmtree(staged, ignore_errors=True)
                if not any(dest.parent.iterdir()):  # no folder left for a student with nothing
                    dest.parent.rmdir()
                self.problems.append(f"inbound entry {record['filename']!r}: {why}; left out")
                continue
            # the entry's time, not the timestamp.txt inside it (the student's file)
            record_submission(staged, record["timestamp"], "the exchange")
            if dest.exists():
                shutil.rmtree(dest)
            staged.rename(dest)
            self.taken.append(student)
            self.log.info("Collected submission: %s %s", student, assignment)

    def _newer(self, record: dict, dest: Path) -> bool:
        """Whether the entry is newer than the copy collected before (nbgrader's --update)."""
        if not dest.is_dir():
            return True
        try:
            existing = self.coursedir.get_existing_timestamp(str(dest))
        except (ValueError, OverflowError):  # timestamp.txt is the student's text
            return True
        return existing is None or record["timestamp"] > existing


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
