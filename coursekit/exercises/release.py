"""Run real nbgrader on the assignments, in a throw-away course directory.

nbgrader keeps a gradebook and writes submitted/, autograded/, ... under its course root; the
repository is never that root. A temporary course gets copies of solutions/<name>/ as its
source, and what nbgrader makes comes back: the release (exercises/) or the scores.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from traitlets.config import Config

from coursekit.nbgrader_schema import answer_in_process

REPO = Path(__file__).resolve().parents[2]
SOLUTIONS = REPO / "solutions"
EXERCISES = REPO / "exercises"


class Course:
    """A temporary nbgrader course whose source is (a copy of) solutions/."""

    def __init__(self, root: Path, names):
        self.root = Path(root)
        for name in names:
            shutil.copytree(SOLUTIONS / name, self.root / "source" / name, dirs_exist_ok=True)
        config = Config()
        config.CourseDirectory.root = str(self.root)
        config.Exchange.root = str(self.root / "exchange")
        config.ExecutePreprocessor.timeout = 900
        from nbgrader.apps.api import NbGraderAPI

        answer_in_process()
        self.api = NbGraderAPI(config=config)

    def generate(self, name: str) -> Path:
        """nbgrader generate_assignment; returns the released notebook."""
        result = self.api.generate_assignment(name)
        if not result["success"]:
            raise RuntimeError(f"generate_assignment {name} failed:\n{result.get('log')}")
        return self.root / "release" / name / f"{name}.ipynb"

    def submit(self, name: str, student: str, notebook_text: str) -> None:
        where = self.root / "submitted" / student / name
        where.mkdir(parents=True, exist_ok=True)
        (where / f"{name}.ipynb").write_text(notebook_text)

    def autograde(self, name: str, students) -> dict:
        """nbgrader autograde of each student's submission (one nbgrader run for all);
        returns {student: {grade_id: (score, max_score)}} from the gradebook."""
        result = self.api.autograde(name, "*")
        if not result["success"]:
            raise RuntimeError(f"autograde {name} failed:\n{result.get('log')}")
        from nbgrader.api import Gradebook

        scores = {}
        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gradebook:
            for student in students:
                graded = gradebook.find_submission_notebook(name, name, student)
                scores[student] = {g.name: (g.score, g.max_score) for g in graded.grades}
        return scores

    def autograded_notebook(self, name: str, student: str) -> Path:
        return self.root / "autograded" / student / name / f"{name}.ipynb"


def release(names, root: Path, target: Path = EXERCISES) -> None:
    """Write nbgrader's release of each assignment under target/<name>/."""
    course = Course(root, names)
    for name in names:
        released = course.generate(name)
        (target / name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(released, target / name / f"{name}.ipynb")
