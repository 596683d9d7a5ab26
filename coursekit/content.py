"""The course's notebooks, wherever the package is: beside it in a clone (course/ and
exercises/), inside it when installed from a wheel (coursekit/_content/, copied there by
setup.py's build step), so every command works from any directory."""

from __future__ import annotations

import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
INSTALLED = PACKAGE / "_content"
CLONE = PACKAGE.parent
# What a learner works in: the lectures (with the capstone's script) and the exercises as
# released, never solutions/ (an instructor's) nor nbgrader's config.
LECTURE_FILES = ("*.ipynb", "capstone_train.py")
FOLDERS = {"lectures": "course", "exercises": "exercises"}


class ContentMissing(SystemExit):
    """Neither a clone nor an installed wheel holds the notebooks: say how to get them."""


def folder(name: str) -> Path:
    """The folder of `name` ("lectures" or "exercises")."""
    for root in (INSTALLED, CLONE):
        found = root / FOLDERS[name]
        if found.is_dir():
            return found
    raise ContentMissing(
        f"this installation of minigrad-course has no {name}: reinstall it from a wheel or "
        "the course's repository (pip install minigrad-course, or git clone, then make lab)"
    )


def copy_content(dest: Path) -> dict[str, Path]:
    """Lectures and exercises into dest/lectures and dest/exercises; returns those folders."""
    lectures, exercises = dest / "lectures", dest / "exercises"
    lectures.mkdir(parents=True)
    for pattern in LECTURE_FILES:
        for path in sorted(folder("lectures").glob(pattern)):
            shutil.copy2(path, lectures / path.name)
    shutil.copytree(folder("exercises"), exercises, ignore=shutil.ignore_patterns(".*"))
    return {"lectures": lectures, "exercises": exercises}
