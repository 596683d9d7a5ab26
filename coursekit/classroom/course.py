"""One instructor's course directory: where things are, its nbgrader config, its gradebook."""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from coursekit.classroom.printable import printable
from coursekit.nbgrader_schema import answer_in_process

CONFIG_FILE = "nbgrader_config.py"
PIPELINE_DIR = ".pipeline"  # the pipeline's own working files, never a student's
# The gradebook's URL when it is not nbgrader's default gradebook.db (`init --db`): a file of
# its own, readable by the course's owner only, as it may hold a password; nbgrader_config.py,
# which goes to grading workers, reads it from there (read_gradebook_url).
GRADEBOOK_URL_FILE = "gradebook_url"


def read_gradebook_url(c: Config, config_file: str) -> None:
    """Called by nbgrader_config.py: the gradebook's URL from the file beside it, if any."""
    path = Path(config_file).with_name(GRADEBOOK_URL_FILE)
    if path.is_file():
        c.CourseDirectory.db_url = path.read_text().strip()


def write_gradebook_url(root: Path, db_url: str) -> None:
    descriptor = os.open(root / GRADEBOOK_URL_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as sink:
        sink.write(db_url + "\n")


@dataclass(frozen=True)
class Course:
    root: Path
    db_url: str | None = None  # None: the config's, else nbgrader's default gradebook.db

    @classmethod
    def at(cls, root, db_url=None) -> Course:
        return cls(Path(root).resolve(), db_url or None)

    # --- paths -----------------------------------------------------------------------------
    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    @property
    def work(self) -> Path:
        return self.path(PIPELINE_DIR)

    def assignments(self) -> list[str]:
        """The assignments in source/, in name order."""
        source = self.path("source")
        return sorted(p.name for p in source.iterdir() if p.is_dir()) if source.is_dir() else []

    def released_notebooks(self, assignment: str) -> dict[str, Path]:
        """notebook name (no suffix) -> the released notebook students started from."""
        folder = self.path("release", assignment)
        return {p.stem: p for p in sorted(folder.glob("*.ipynb"))}

    def submission_dir(self, student: str, assignment: str) -> Path:
        return self.path("submitted", student, assignment)

    def submitted(self) -> list[tuple[str, str]]:
        """(student, assignment) for every collected submission of a known assignment."""
        known = set(self.assignments())
        folder = self.path("submitted")
        if not folder.is_dir():
            return []
        return sorted(
            (student.name, assignment.name)
            for student in folder.iterdir()
            if student.is_dir()
            for assignment in student.iterdir()
            if assignment.is_dir() and assignment.name in known
        )

    # --- nbgrader ----------------------------------------------------------------------------
    def config(self) -> Config:
        """The course's nbgrader_config.py, with root and (when given) the database URL."""
        config = Config()
        if self.path(CONFIG_FILE).is_file():
            config.merge(PyFileConfigLoader(CONFIG_FILE, path=str(self.root)).load_config())
        config.CourseDirectory.root = str(self.root)
        if self.db_url:
            config.CourseDirectory.db_url = self.db_url
        return config

    @property
    def url(self) -> str:
        """The gradebook's SQLAlchemy URL."""
        config = self.config()
        if "db_url" in config.CourseDirectory:
            return config.CourseDirectory.db_url
        return f"sqlite:///{self.path('gradebook.db')}"

    def api(self, extra: Config | None = None):
        """nbgrader's NbGraderAPI on this course (extra config merged over the course's)."""
        from nbgrader.apps import NbGraderAPI

        answer_in_process()
        config = self.config()
        if extra is not None:
            config.merge(extra)
        return NbGraderAPI(config=config)

    @contextmanager
    def gradebook(self):
        """nbgrader's Gradebook on this course's database (closed on exit)."""
        from nbgrader.api import Gradebook

        answer_in_process()
        with Gradebook(self.url, self.course_id) as gb:
            yield gb

    @property
    def course_id(self) -> str:
        config = self.config()
        return config.CourseDirectory.course_id if "course_id" in config.CourseDirectory else ""


def check_result(result: dict, what: str) -> None:
    """NbGraderAPI calls return {success, error, log}: turn a failure into an exception."""
    if not result.get("success"):
        detail = (result.get("error") or result.get("log") or "").strip().splitlines()
        last = printable(detail[-1]) if detail else "no detail"  # may quote a file name
        raise RuntimeError(f"nbgrader {printable(what)} failed: {last}")
