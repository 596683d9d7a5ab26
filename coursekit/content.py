"""The course's files, wherever the package is: beside it in a clone (course/, exercises/,
solutions/), inside it when installed from a wheel (coursekit/_content/, copied there by the
build step), so every command works from any directory.

Two distributions, each sized to its user, chosen here once:

- the instructor's (`minigrad-course`, the wheel built from the repository): the self-paced
  minigrad (reference answers between solution markers), the whole coursekit, the lectures,
  the exercises and the nbgrader source `init` builds a course from (INSTRUCTOR);
- the student's (`minigrad-course-student`, written by `minigrad-course edition DIR`,
  coursekit/edition.py): the class edition of minigrad (every graded function a stub), the
  checker, the modules of coursekit that `start` and `check` run (STUDENT_MODULES), the
  lectures and the exercises (STUDENT). No reference body of any graded function.
"""

from __future__ import annotations

import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
INSTALLED = PACKAGE / "_content"
CLONE = PACKAGE.parent
# Each part: its folder (in a clone and in coursekit/_content alike) and the files of it that
# are carried (None: all of it). Lectures: the notebooks and the capstone's script.
FOLDERS = {"lectures": "course", "exercises": "exercises", "solutions": "solutions"}
CARRIED = {"lectures": ("*.ipynb", "capstone_train.py"), "exercises": None, "solutions": None}
STUDENT = ("lectures", "exercises")  # what a learner works in; `start` copies these
INSTRUCTOR = (*STUDENT, "solutions")  # and the nbgrader source, for `init`
# coursekit's student side, relative to coursekit/: the commands `start` and `check` (and the
# parser's limits and error messages the command line imports from classroom/)
STUDENT_MODULES = (
    "__init__.py",
    "cli.py",
    "content.py",
    "routes.py",
    "saved.py",
    "classroom/__init__.py",
    "classroom/intake/file_limits.py",
    "classroom/printable.py",
    "classroom/grading/time_limits.py",  # grade's option defaults, read while parsing any command
    "exercises/assignments.py",
    "exercises/grading.py",
    "exercises/selfcheck.py",
    "exercises/verdict_data.py",  # grading.py's verdicts as data (the hidden tests show them)
    "feedback_graphs.py",
    "kernel_start.py",
    "languages.py",
    "i18n.py",  # check's and Validate's messages in the notebook's language, and their
    "locale/zh_CN/LC_MESSAGES/minigrad-course.mo",  # translations
)
MISSING = {
    "solutions": "this installation has no nbgrader source (solutions/), which `init` and "
    "`demo` build a course from (the student distribution never carries it). An instructor "
    "installs `pip install minigrad-course[course]` (see README, For instructors), or passes "
    "--solutions DIR",
}


class ContentMissing(SystemExit):
    """Neither a clone nor an installed wheel holds the files: say how to get them."""


def folder(name: str) -> Path:
    """The folder of `name` ("lectures", "exercises" or "solutions")."""
    for root in (INSTALLED, CLONE):
        found = root / FOLDERS[name]
        if found.is_dir():
            return found
    raise ContentMissing(
        MISSING.get(name)
        or f"this installation of minigrad-course has no {name}: reinstall it from a wheel or "
        "the course's repository (pip install minigrad-course, or git clone, then make lab)"
    )


def carry(parts, dest: Path, names: dict[str, str] | None = None) -> dict[str, Path]:
    """Copy each part of `parts` into dest/<its name> (`names`, default: its folder's name, the
    installed layout); returns the folders written."""
    written = {}
    for part in parts:
        target = Path(dest) / (names or FOLDERS)[part]
        if CARRIED[part] is None:
            ignore = shutil.ignore_patterns(".*", "__pycache__")
            shutil.copytree(folder(part), target, ignore=ignore)
        else:
            target.mkdir(parents=True)
            for pattern in CARRIED[part]:
                for path in sorted(folder(part).glob(pattern)):
                    shutil.copy2(path, target / path.name)
        written[part] = target
    return written


def copy_content(dest: Path, language: str = "en") -> dict[str, Path]:
    """`start`: lectures and exercises into dest/lectures and dest/exercises, in `language`
    (coursekit/languages.py), their text laid out for this route (coursekit/routes.py: its
    commands and paths, not the clone's)."""
    from coursekit.languages import checked, write_in_language
    from coursekit.routes import lay_out

    language = checked(language)  # before anything is written
    written = carry(STUDENT, dest, {part: part for part in STUDENT})
    for notebook in [*sorted(written["lectures"].glob("*.ipynb")),
                     *sorted(written["exercises"].glob("*/*.ipynb"))]:  # fmt: skip
        write_in_language(notebook, language)
        lay_out(notebook, "start")
    return written
