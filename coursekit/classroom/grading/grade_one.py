"""Grade one submission (one student, one assignment): grade_submission(job) -> result.

This is the only place a verdict is made; everything around it (scheduling, limits, the
gradebook writer, feedback, reports) reads the result, a plain JSON-able dict:

    {"student", "assignment", "seed", "status": "graded" | "graded with problems" | "not graded",
     "notes": [sentences], "timestamp": ISO text or None, "autograded_dir": str or None,
     "cells": [{"notebook", "cell", "score", "max_score", "needs_manual_grade", "status",
                "message" (in the class's language), "reason" (why "not run", as a key of
                coursekit/exercises/verdict_data.py: REASONS; "" otherwise),
                "diagnoses": [the likely mistakes, autograder/diagnoses.py]}],
     "comments": [{"notebook", "cell", "auto_comment"}],
     "notebooks": [{"notebook", "late_penalty"}],
     "scenarios": [{"cell", "id", "passed"}], "seeds_seen": [int], "duration_s"}

and grade.py adds when it was handed in, "submitted": {"time", "source", "lms_late"}
(deadlines.submission_time), which also becomes its "timestamp".
A submission graded on a Dask worker (cluster.py) also says where, and which sealing layers
were active there: "worker": {"address", "host", "sealing"}.

Here the verdict is nbgrader's own (the submission runs in a kernel with the hidden tests,
autograde writes a private gradebook, which is read back). A sealed grader replaces this
function (see GRADER in classroom/grading/grade.py), keeping the result's shape.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlalchemy.exc import SAWarning
from traitlets.config import Config

from coursekit.classroom.course import Course
from coursekit.classroom.grading import nbgrader_reuse
from coursekit.classroom.grading.outputs import (
    incidents,
    read_cells,
    sealed_notes,
    status_and_message,
)
from coursekit.classroom.grading.repair import repair_submission
from coursekit.classroom.grading.time_limits import SealedTimes
from coursekit.i18n import _, speaking
from coursekit.languages import course_language
from coursekit.sealed.sandbox import STAGE_ENV

SEED_ENV = "MINIGRAD_COURSE_SEED"  # the hidden tests' grade() draws its values from this seed


@dataclass(frozen=True)
class Job:
    course_root: str
    student: str
    assignment: str
    seed: int
    work_dir: str  # private: the repaired copy, the private gradebook, the graded notebooks
    template_db: str  # the course's assignments without grades (template.build_template)
    cell_timeout: int = 120
    notes: tuple[str, ...] = ()  # what the plan found before grading (an appeal's changed files)
    sealed: SealedTimes = SealedTimes()


def job_as_data(job: Job) -> dict:
    """The job as JSON types, to send to a grading process (job_from_data reads it back)."""
    return asdict(job)


def job_from_data(data: dict) -> Job:
    return Job(**{**data, "notes": tuple(data["notes"]), "sealed": SealedTimes(**data["sealed"])})


def grade_submission(job: Job) -> dict:
    started = time.monotonic()
    course = Course.at(job.course_root)
    work = Path(job.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    with speaking(course_language(course.root)):  # its notes, as the class's pages
        repair = repair_submission(
            course.submission_dir(job.student, job.assignment),
            work / "submitted" / job.student / job.assignment,
            course.released_notebooks(job.assignment),
        )
    private = _private_gradebook(work)
    db_url = f"sqlite:///{private}"
    shutil.copy(job.template_db, private)
    notes = [*job.notes, *repair.notes]
    if repair.notebooks:
        nbgrader_reuse.install()  # this process grades job after job
        os.environ[SEED_ENV] = str(job.seed)  # inherited by the kernel nbgrader starts
        with warnings.catch_warnings():  # nbgrader's ORM use warns on every new submission
            warnings.simplefilter("ignore", SAWarning)
            outcome = course.api(_autograde_config(course, work, db_url, job)).autograde(
                job.assignment, job.student, force=True, create=True
            )
        # nbgrader's API keeps its log in the outcome: into the worker's log file (stderr),
        # which `grade --verbose` shows
        sys.stderr.write(outcome.get("log") or "")
        if not outcome["success"]:
            notes.append(f"nbgrader stopped: {_last_error(outcome)}")
    graded = work / "autograded" / job.student / job.assignment
    # Verdicts as data exist only where the sealed run wrote them; in a course graded in
    # nbgrader's kernel, metadata of that name can only be the submission's own.
    sealed = _is_sealed(course)
    facts = read_cells(graded, sealed)
    with speaking(course_language(course.root)):  # what people read, as the class's pages
        notes += incidents(graded) + (sealed_notes(graded) if sealed else [])
        result = _read_private_gradebook(db_url, course.course_id, job, facts, notes)
    result.update(
        notes=notes,
        status=_status(repair.notebooks, notes),
        autograded_dir=str(graded) if graded.is_dir() else None,
        duration_s=round(time.monotonic() - started, 2),
    )
    return result


def blank_result(job: Job, note: str) -> dict:
    """Every cell 0, each saying why: the result of a submission that could not be graded."""
    course_id = Course.at(job.course_root).course_id
    result = _read_private_gradebook(f"sqlite:///{job.template_db}", course_id, job, {}, [])
    for cell in result["cells"]:
        cell["status"], cell["message"] = "not graded", note
    result.update(
        notes=[*job.notes, note], status="not graded", autograded_dir=None, duration_s=None
    )
    return result


def _private_gradebook(work: Path) -> Path:
    """The job's private gradebook: one path for all the jobs of a grading process (in its
    pool's folder, named by its pid) where it has one, so that the database engine nbgrader
    makes for it is made once per process (nbgrader_reuse)."""
    stage = os.environ.get(STAGE_ENV)
    return Path(stage) / f"gradebook-{os.getpid()}.db" if stage else work / "gradebook.db"


def _autograde_config(course: Course, work: Path, db_url: str, job: Job) -> Config:
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute

    from coursekit.classroom.grading.execute import ResilientExecute

    config = Config()
    config.CourseDirectory.db_url = db_url
    config.CourseDirectory.submitted_directory = os.path.relpath(work / "submitted", course.root)
    config.CourseDirectory.autograded_directory = os.path.relpath(work / "autograded", course.root)
    config.Execute.timeout = job.cell_timeout
    config.SealedExecute.cell_s = job.sealed.cell_s  # used where the course grades sealed
    config.SealedExecute.scenario_s = job.sealed.scenario_s
    config.SealedExecute.wall_s = job.sealed.run_s
    config.Execute.shutdown_kernel = "immediate"  # a graceful shutdown waits seconds for nothing
    # the course's steps (a sealed grader configures its own), else nbgrader's; its Execute
    # is replaced by one that survives a dying kernel
    course_config = course.config()
    if "autograde_preprocessors" in course_config.Autograde:
        steps = course_config.Autograde.autograde_preprocessors
    else:
        steps = Autograde.class_traits()["autograde_preprocessors"].default()
    config.Autograde.autograde_preprocessors = [
        ResilientExecute if step in (Execute, "nbgrader.preprocessors.Execute") else step
        for step in steps
    ]
    return config


def _is_sealed(course: Course) -> bool:
    from coursekit.sealed.nbgrader_steps import SealedExecute

    steps = course.config().Autograde.get("autograde_preprocessors", [])
    return any(step is SealedExecute or str(step).endswith("SealedExecute") for step in steps)


def _read_private_gradebook(db_url: str, course_id: str, job: Job, facts: dict, notes) -> dict:
    from nbgrader.api import Gradebook, MissingEntry

    cells, comments, notebooks, scenarios, seeds = [], [], [], [], set()
    timestamp = None
    with Gradebook(db_url, course_id) as gb:
        try:
            submission = gb.find_submission(job.assignment, job.student)
            timestamp = submission.timestamp.isoformat() if submission.timestamp else None
            submitted = {nb.name: nb for nb in submission.notebooks}
        except MissingEntry:  # nothing could be graded
            submitted = {}
        graded = []  # every grade cell of the assignment; 0 where nbgrader recorded none
        for definition in gb.find_assignment(job.assignment).notebooks:
            nb = submitted.get(definition.name)
            recorded = {g.name: g for g in nb.grades} if nb is not None else {}
            grades = [recorded.get(c.name) or _Blank(c) for c in definition.grade_cells]
            comments_of = nb.comments if nb is not None else []
            penalty = nb.late_submission_penalty if nb is not None else None
            graded.append((definition.name, grades, comments_of, penalty))
        for notebook, grades, notebook_comments, late_penalty in graded:
            notebooks.append({"notebook": notebook, "late_penalty": late_penalty})
            for grade in grades:
                score = float(grade.auto_score or 0.0)
                cell_facts = facts.get((notebook, grade.name))
                status, message = status_and_message(score, grade.max_score, cell_facts)
                if not any(key[0] == notebook for key in facts):
                    status, message = "not graded", _notebook_note(notebook, notes)
                cells.append(
                    {
                        "notebook": notebook,
                        "cell": grade.name,
                        "score": score,
                        "max_score": float(grade.max_score),
                        "status": status,
                        "message": message,
                        "reason": (cell_facts or {}).get("reason", "")
                        if status == "not run"
                        else "",
                        "needs_manual_grade": bool(grade.needs_manual_grade),
                        "diagnoses": (cell_facts or {}).get("diagnoses", []),
                    }
                )
                for scenario in (cell_facts or {}).get("scenarios", []):
                    passed = status == "passed" or (
                        scenario not in cell_facts["failed"] and bool(cell_facts["seeds"])
                    )
                    scenarios.append({"cell": grade.name, "id": scenario, "passed": passed})
                seeds.update((cell_facts or {}).get("seeds", []))
            comments += [
                {"notebook": notebook, "cell": c.name, "auto_comment": c.auto_comment}
                for c in notebook_comments
                if c.auto_comment
            ]
    return {
        "student": job.student,
        "assignment": job.assignment,
        "seed": job.seed,
        "timestamp": timestamp,
        "cells": cells,
        "comments": comments,
        "notebooks": notebooks,
        "scenarios": scenarios,
        "seeds_seen": sorted(seeds),
    }


def _notebook_note(notebook: str, notes: list[str]) -> str:
    prefix = f"{notebook}.ipynb: "
    found = [note.removeprefix(prefix) for note in notes if note.startswith(prefix)]
    if found:
        return found[0]
    return notes[-1] if notes else _("notebook not graded")


class _Blank:
    """A grade cell nobody's submission reached: 0 of its points."""

    def __init__(self, cell):
        self.name, self.max_score = cell.name, cell.max_score
        self.auto_score, self.needs_manual_grade = 0.0, False


def _status(graded_notebooks: list[str], notes: list[str]) -> str:
    if not graded_notebooks:
        return "not graded"
    return "graded with problems" if notes else "graded"


def _last_error(outcome: dict) -> str:
    """The exception nbgrader logged: the last line of its first traceback."""
    lines = (outcome.get("log") or "").splitlines()
    start = next((i for i, line in enumerate(lines) if "Traceback" in line), None)
    if start is None:
        errors = [line for line in lines if line.startswith("[ERROR]")]
        return errors[0].removeprefix("[ERROR]").strip() if errors else "see nbgrader's log"
    block = []
    for line in lines[start + 1 :]:
        if line.startswith("["):  # the next log record
            break
        if line.strip():
            block.append(line.strip())
    return block[-1] if block else "see nbgrader's log"
