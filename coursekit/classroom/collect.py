"""`minigrad-course collect`: submissions into submitted/<student>/<assignment>/.

From nbgrader's exchange (NbGraderAPI.collect), or from a folder or zip downloaded from a
learning-management system, through nbgrader's zip_collect (ZipCollectApp) with a collector
plugin that matches each file to the roster. Files whose student is unknown, ambiguous or
who handed in the same notebook twice are left out and listed: a wrong match would give one
student's grade to another.

LMS layouts understood: a folder per student (`Ada Lovelace_123_assignsubmission_file_/x.ipynb`,
Moodle) and a name before the first underscore followed by numeric ids
(`lovelaceada_123_456_x.ipynb`, Canvas; `_LATE` allowed). --pattern takes a regular
expression with the groups `name` and `file_id` for anything else.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Unicode
from traitlets.config import Config

from coursekit.classroom.course import check_result
from coursekit.classroom.roster import Matcher, read_roster

MOODLE_FOLDER = re.compile(r"^(?P<name>.+?)_\d+_assignsubmission_\w*$")
CANVAS_FILE = re.compile(r"^(?P<name>[^_]+)(?:_LATE)?(?:_\d+)+_(?P<file_id>.+)$")


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
        problems, owners = [], {}
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
        return plan, problems

    def _identify(self, relative: Path) -> tuple[str, str]:
        if self.pattern:
            match = re.search(self.pattern, str(relative))
            return (match["name"], match["file_id"]) if match else ("", relative.name)
        folder = MOODLE_FOLDER.match(relative.parent.name) if len(relative.parts) > 1 else None
        if folder:
            return folder["name"], relative.name
        match = CANVAS_FILE.match(relative.name)
        if match:
            return match["name"], match["file_id"]
        if len(relative.parts) > 1:  # a plain folder per student
            return relative.parent.name, relative.name
        return "", relative.name


def collect_from_exchange(course, assignments) -> None:
    api = course.api()
    for assignment in assignments:
        check_result(api.collect(assignment, update=True), f"collect {assignment}")


def collect_from_lms(
    course, assignment: str, download: Path, roster: Path, pattern=""
) -> list[str]:
    """Copy `download` (folder or zip) in as nbgrader's zip_collect expects, collect, report."""
    from nbgrader.apps.zipcollectapp import ZipCollectApp
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    archive = course.path("downloaded", assignment, "archive")
    shutil.rmtree(archive, ignore_errors=True)
    archive.mkdir(parents=True)
    if download.is_dir():
        shutil.copytree(download, archive, dirs_exist_ok=True)
    else:
        shutil.copy(download, archive / download.name)
    config = course.config()
    config.merge(
        Config(
            {
                "ZipCollectApp": {"force": True, "collector_plugin": RosterCollector},
                "RosterCollector": {"roster": str(Path(roster).resolve()), "pattern": pattern},
            }
        )
    )
    app = ZipCollectApp(config=config)
    app.coursedir = CourseDirectory(parent=app, root=str(course.root))
    app.coursedir.assignment_id = assignment
    cwd = os.getcwd()
    try:
        outcome = capture_log(app)
    finally:
        os.chdir(cwd)
    check_result(outcome, f"zip_collect {assignment}")
    problems = getattr(app.collector_plugin_inst, "problems", [])
    record = course.work / "collect-problems.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    known = json.loads(record.read_text()) if record.is_file() else {}
    known[assignment] = problems
    record.write_text(json.dumps(known, indent=1))
    return problems
