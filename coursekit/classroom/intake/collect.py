"""`minigrad-course collect`: submissions into submitted/<student>/<assignment>/.

From nbgrader's exchange (exchange.VettedCollect), or from a folder or zip downloaded from a
learning-management system, through nbgrader's zip_collect (ZipCollectApp) with an extractor
plugin that opens the download safely (download.SafeExtractor) and a collector plugin that
matches each file to the roster. Entries that are unsafe, files whose student is unknown,
ambiguous or who handed in the same notebook twice are left out and listed: a wrong match
would give one student's grade to another.

LMS layouts understood: a folder per student (`Ada Lovelace_123_assignsubmission_file_/x.ipynb`,
Moodle) and a name before the first underscore followed by numeric ids
(`lovelaceada_123_456_x.ipynb`, Canvas; `_LATE` marks a late upload, kept with the
submission's time, see deadlines.py). --pattern takes a regular
expression with the groups `name` and `file_id` for anything else. Only the download's
top-level name says whose an entry is: the names inside a student's folder or uploaded zip
are file names, never identities (an upload cannot claim to be another student's).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Unicode
from traitlets.config import Config

from coursekit.classroom.course import check_result
from coursekit.classroom.deadlines import FROM_LMS, record_submission
from coursekit.classroom.intake import exchange
from coursekit.classroom.intake.download import SafeExtractor
from coursekit.classroom.intake.file_limits import DEFAULT_LIMITS, Limits
from coursekit.classroom.intake.roster import Matcher, read_roster
from coursekit.classroom.quiet import nbgrader_log

MOODLE_FOLDER = re.compile(r"^(?P<name>.+?)_\d+_assignsubmission_\w*$")
CANVAS_FILE = re.compile(r"^(?P<name>[^_]+)(?P<late>_LATE)?(?:_\d+)+_(?P<file_id>.+)$")


class RosterCollector(FileNameCollectorPlugin):
    """nbgrader collector plugin: file name -> roster student, or a reported problem."""

    roster = Unicode("", help="Path of the roster CSV").tag(config=True)
    pattern = Unicode("", help="Regex with groups name and file_id (optional)").tag(config=True)

    def collect(self, submitted_file: str):
        if not hasattr(self, "plan"):
            self.plan, self.problems = self._scan(Path(submitted_file))
        return self.plan.get(submitted_file)

    def _scan(self, any_file: Path):
        root = Path(self.parent._format_collect_path(self.parent.extracted_directory))
        matcher = Matcher(read_roster(Path(self.roster)))
        problems, owners, self.late = [], {}, set()
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if path.suffix not in self.valid_ext:
                continue
            relative = path.relative_to(root)
            name, file_id = self._identify(relative)
            student, why = matcher.match(name) if name else (None, "no student name in it")
            if student is None:
                problems.append(f"{relative}: {why}; left out")
                continue
            owners.setdefault((student, file_id), []).append(str(path))
            canvas = CANVAS_FILE.match(relative.parts[0])
            if canvas and canvas["late"]:  # Canvas's own mark, whatever our due date says
                self.late.add(student)
        released = self._released()
        if owners and not any(Path(file_id).name in released for _, file_id in owners):
            # nbgrader would collect them under names grading never looks at
            problems.append(
                f"none of the download's {len(owners)} notebook(s) is one of "
                f"{self.parent.coursedir.assignment_id}'s ({', '.join(sorted(released))}); "
                "none collected: is it the download of another assignment?"
            )
            owners = {}
        plan = {}
        for (student, file_id), paths in owners.items():
            if len(paths) > 1:
                listed = ", ".join(str(Path(p).relative_to(root)) for p in paths)
                problems.append(
                    f"{student} handed in {file_id} {len(paths)} times ({listed}); "
                    "none collected (not guessed)"
                )
                continue
            plan[paths[0]] = {"student_id": student, "file_id": file_id}
        self.tops = {p: Path(p).relative_to(root).parts[0] for p in plan}
        return plan, problems

    def _released(self) -> set[str]:
        """The assignment's notebooks, as nbgrader's zip_collect names them."""
        from nbgrader.utils import find_all_notebooks

        coursedir = self.parent.coursedir
        folder = coursedir.format_path(coursedir.release_directory, ".", coursedir.assignment_id)
        return set(find_all_notebooks(folder))

    def _identify(self, relative: Path) -> tuple[str, str]:
        """(name, file id): the name from the top-level name alone; a file inside a folder or
        an uploaded zip is identified by its own name."""
        top, nested = relative.parts[0], len(relative.parts) > 1
        if self.pattern:
            match = re.search(self.pattern, top)
            if match is None:
                return "", relative.name
            return match["name"], relative.name if nested else match["file_id"]
        folder = MOODLE_FOLDER.match(top) if nested else None
        if folder:
            return folder["name"], relative.name
        match = CANVAS_FILE.match(top)
        if match:
            return match["name"], relative.name if nested else match["file_id"]
        if nested:  # a plain folder per student
            return top, relative.name
        return "", relative.name


@dataclass
class Collected:
    """What one collect of one assignment did."""

    taken: list[str]  # the students whose submission it copied into submitted/ (new or newer)
    left_out: list[str]  # the entries it left out, each with why
    notes: list[str] = field(default_factory=list)  # what it collected with a remark


def collect_from_exchange(
    course, assignments, limits: Limits = DEFAULT_LIMITS, verbose=False
) -> dict[str, Collected]:
    """nbgrader's collect, one assignment after another (its log shown if verbose)."""
    found = {a: Collected(*exchange.collect(course, a, limits, verbose)) for a in assignments}
    for assignment, collected in found.items():
        record_problems(course, assignment, collected.left_out + collected.notes)
    return found


def collect_from_lms(
    course,
    assignment: str,
    download: Path,
    roster: Path,
    pattern="",
    limits: Limits = DEFAULT_LIMITS,
    verbose=False,
) -> Collected:
    """Unpack `download` (folder or zip) as nbgrader's zip_collect expects, collect, report
    (nbgrader's log shown if verbose)."""
    from nbgrader.apps.zipcollectapp import ZipCollectApp
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    if not download.is_dir() and not zipfile.is_zipfile(download):
        raise SystemExit(f"{download} is neither a folder nor a zip: give the LMS's download")
    archive = course.path("downloaded", assignment, "archive")
    shutil.rmtree(archive, ignore_errors=True)
    archive.mkdir(parents=True)  # zip_collect wants it; SafeExtractor reads the download itself
    config = course.config()
    config.merge(
        Config(
            {
                "ZipCollectApp": {
                    "force": True,
                    "extractor_plugin": SafeExtractor,
                    "collector_plugin": RosterCollector,
                },
                "SafeExtractor": {
                    "download": str(Path(download).resolve()),
                    **asdict(limits),
                },
                "RosterCollector": {"roster": str(Path(roster).resolve()), "pattern": pattern},
            }
        )
    )
    app = ZipCollectApp(config=config)
    app.coursedir = CourseDirectory(parent=app, root=str(course.root))
    app.coursedir.assignment_id = assignment
    cwd = os.getcwd()
    try:
        with nbgrader_log(app.log, verbose):
            outcome = capture_log(app)
    finally:
        os.chdir(cwd)
    check_result(outcome, f"zip_collect {assignment}")
    problems = getattr(app.extractor_plugin_inst, "problems", [])
    problems += getattr(app.collector_plugin_inst, "problems", [])
    _record_times(course, assignment, app.extractor_plugin_inst, app.collector_plugin_inst)
    record_problems(course, assignment, problems)
    plan = getattr(app.collector_plugin_inst, "plan", {})
    return Collected(sorted({found["student_id"] for found in plan.values()}), problems)


def _record_times(course, assignment: str, extractor, collector) -> None:
    """Each collected student's time (their newest upload's) and the LMS's late mark."""
    newest: dict[str, object] = {}
    for path, found in getattr(collector, "plan", {}).items():
        time = extractor.times.get(collector.tops[path])
        student = found["student_id"]
        if time is not None and (student not in newest or time > newest[student]):
            newest[student] = time
    for student, time in newest.items():
        folder = course.submission_dir(student, assignment)
        if folder.is_dir():
            late = student in collector.late
            record_submission(folder, time, FROM_LMS, late)


def record_problems(course, assignment: str, problems: list[str]) -> None:
    """What collect left out or noted, per assignment, for the report
    (.pipeline/collect-problems.json)."""
    record = course.work / "collect-problems.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    known = json.loads(record.read_text()) if record.is_file() else {}
    known[assignment] = problems
    record.write_text(json.dumps(known, indent=1))
