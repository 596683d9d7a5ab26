"""`minigrad-course init DIR`: an instructor's course directory, ready to release.

The course directory is private to the instructor; nbgrader's exchange, the one place that
students write, lives outside it (default: DIR-exchange beside it, or --exchange).

Writes nbgrader_config.py, copies the assignments of the nbgrader source (solutions/ in a
clone, carried inside the instructor's package: coursekit.content) to source/ (without the CUDA
test cells with --cpu-only, so that full marks stay reachable on a course with no GPU),
and lets nbgrader's generate_assignment fill release/ and the gradebook. The source is laid
out in the class's language (--lang, recorded in COURSE/course_language; coursekit/languages.py).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from pathlib import Path

import nbformat

from coursekit.classroom.course import CONFIG_FILE, Course, check_result, write_gradebook_url
from coursekit.classroom.intake.roster import import_roster, read_roster
from coursekit.classroom.runs import ensure_table
from coursekit.content import folder as content_folder
from coursekit.languages import LANGUAGE_FILE, checked, write_in_language
from coursekit.routes import lay_out

COURSE_MODE = 0o700  # source/ holds the solutions, gradebook.db the grades: the instructor's
# nbgrader's documented exchange root (`chmod ugo+rw`), plus the sticky bit: a student may
# not rename or delete the course's folder in it and put a fake outbound in its place
EXCHANGE_MODE = 0o1777

CONFIG = """\
# nbgrader's configuration for this course (written by `minigrad-course init`).
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
# the gradebook, when not gradebook.db here: its URL is in a file of its own (it may hold a
# password, and this file goes to grading workers, which never need it)
from coursekit.classroom.course import read_gradebook_url  # noqa: E402

read_gradebook_url(c, __file__)  # noqa: F821
# Feedback never shows a hidden test: nbgrader's ClearHiddenTests removes their source, and
# HideHiddenTests drops traceback lines and output that would quote it.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "coursekit.classroom.hidden.HideHiddenTests",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# The Formgrader and feedback show submitted markdown and outputs without their script
# (coursekit/classroom/safe_html.py). The Formgrader reads this file from its working directory.
from coursekit.classroom.safe_html import render_safely  # noqa: E402

render_safely(c)
{sealed_lines}"""

# The verdict that counts comes from the sealed run (coursekit/sealed): student code never
# runs in nbgrader's kernel, which shares the grader's rights and the hidden tests.
SEALED = """from coursekit.sealed.nbgrader_steps import autograde_steps  # noqa: E402

c.Autograde.autograde_preprocessors = autograde_steps()
"""
NOT_SEALED = """# NOT SEALED: {why}
# Student code runs inside nbgrader's kernel, with the grader's rights (see README, Trust model).
"""


def sealed_config(assignments) -> str:
    """The sealed grading steps when every source notebook states what its tests check."""
    from coursekit.sealed.contract import Contract, ContractError

    for folder in assignments:
        for path in _notebooks(folder):
            try:
                Contract.from_notebook(path)
            except ContractError as exc:
                why = (
                    f"{folder.name}/{path.name} has no sealed contract: {str(exc).splitlines()[0]}"
                )
                print(f"minigrad-course init: {why}; grading is NOT sealed", file=sys.stderr)
                return NOT_SEALED.format(why=why)
    return SEALED


def init_course(
    dest: Path,
    solutions: Path | None = None,
    cpu_only: bool = False,
    db_url: str | None = None,
    roster: Path | None = None,
    exchange: Path | None = None,
    course_id: str | None = None,
    language: str | None = None,
) -> Course:
    language = checked(language)  # before anything is made
    dest = Path(dest).resolve()
    course_id = course_id or _plain(dest.name)
    if not course_id or _plain(course_id) != course_id:
        raise SystemExit(f"the course id {course_id!r} must be letters, digits, - and _ only")
    if db_url:  # before anything is made: a refused init leaves nothing behind
        _refuse_a_shared_database(db_url, course_id)
    if (dest / CONFIG_FILE).exists():
        raise SystemExit(f"{dest} is already a course ({CONFIG_FILE} exists); nothing changed")
    solutions = Path(solutions) if solutions else content_folder("solutions")
    if not solutions.is_dir():
        raise SystemExit(f"{solutions} is not a folder: --solutions names the nbgrader source")
    assignments = sorted(p for p in solutions.iterdir() if p.is_dir() and _notebooks(p))
    if not assignments:
        raise SystemExit(f"no assignments (folders with notebooks) in {solutions}")
    exchange = Path(exchange or dest.parent / f"{dest.name}-exchange").resolve()
    if exchange == dest or dest in exchange.parents:
        raise SystemExit(
            f"the exchange {exchange} is inside the course: every student could reach the "
            "course's files through it; give --exchange a folder outside it"
        )
    rows = read_roster(Path(roster)) if roster else []  # a bad roster stops it here
    created = not dest.exists()
    try:
        return _build(dest, assignments, cpu_only, db_url, rows, exchange, course_id, language)
    except BaseException:
        if created:  # all or nothing: a retry never meets half a course
            shutil.rmtree(dest, ignore_errors=True)
        raise


def _build(dest, assignments, cpu_only, db_url, rows, exchange, course_id, language) -> Course:
    dest.mkdir(parents=True, exist_ok=True)
    dest.chmod(COURSE_MODE)
    if not exchange.exists():  # an existing one (shared by courses) is its admin's to set
        exchange.mkdir(parents=True)
        exchange.chmod(EXCHANGE_MODE)
    if db_url:
        write_gradebook_url(dest, db_url)
    (dest / CONFIG_FILE).write_text(
        CONFIG.format(
            course_id=course_id,
            exchange=str(exchange),
            sealed_lines=sealed_config(assignments),
        )
    )
    (dest / LANGUAGE_FILE).write_text(language + "\n")  # what later commands write in
    for folder in assignments:
        target = dest / "source" / folder.name
        shutil.copytree(folder, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        for path in _notebooks(target):  # its students fetch it: no clone's command or path
            write_in_language(path, language)
            lay_out(path, "hub")
        if cpu_only:
            for path in _notebooks(target):
                drop_cuda_cells(path)
    course = Course.at(dest)
    api = course.api()
    for folder in assignments:
        check_result(api.generate_assignment(folder.name), f"generate_assignment {folder.name}")
    with course.gradebook() as gb:
        ensure_table(gb.engine)
        import_roster(gb, rows)
    return course


def _plain(name: str) -> str:
    """A course id from a folder name: nbgrader puts it in exchange paths and the gradebook."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")


def _refuse_a_shared_database(db_url: str, course_id: str) -> None:
    """nbgrader keeps one course per gradebook database (its students and assignment names
    are not per course), so a second course there would silently share grades: refuse."""
    from nbgrader.api import Course as CourseRow
    from sqlalchemy import create_engine, inspect, select

    engine = create_engine(db_url)
    try:
        if not inspect(engine).has_table("course"):
            return
        with engine.connect() as db:
            found = set(db.execute(select(CourseRow.id)).scalars())
    finally:
        engine.dispose()
    # nbgrader's own placeholder, made wherever a Gradebook is opened without a course id
    others = sorted(found - {course_id, "default_course"})
    if others:
        raise SystemExit(
            f"the gradebook database already holds the course {', '.join(others)}: nbgrader keeps "
            "one course per database, so give this course its own (--db URL)"
        )


def protect_inbound(course: Course) -> None:
    """The sticky bit on the inbound folder nbgrader's release made (0733: students write
    there, unseen): a student may then delete or rename only their own entries."""
    config = course.config()
    inbound = Path(config.Exchange.root, course.course_id, "inbound")
    if inbound.is_dir() and inbound.stat().st_uid == os.geteuid():
        inbound.chmod(inbound.stat().st_mode | stat.S_ISVTX)


def drop_cuda_cells(path: Path) -> int:
    """Remove the cells whose nbgrader grade id names CUDA; returns how many."""
    nb = nbformat.read(path, as_version=4)
    kept = [c for c in nb.cells if "cuda" not in _grade_id(c).lower()]
    removed = len(nb.cells) - len(kept)
    nb.cells = kept
    nbformat.write(nb, path)
    return removed


def _grade_id(cell) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def _notebooks(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.ipynb"))
