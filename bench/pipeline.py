"""Grading throughput on the demo class: `minigrad-course grade` against plain nbgrader.

The demo class (coursekit/classroom/setup/demo.py: 14 notebook-submissions, broken files included)
is built once and copied. The pipeline grades one copy with its default parallelism (one
worker per core); plain `nbgrader autograde ASSIGNMENT --student ID`, through its CLI and one
student at a time, grades the other. Each figure is total wall-clock time divided by the
number of notebook-submissions. Target (issue 6): under 3 s per notebook-submission.
The two gradebooks must agree on every submission both graded as handed in (plain nbgrader
stops on most broken ones, which the pipeline repairs first).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.results import Row, set_target
from bench.timing import Timing
from bench.verify import Mismatch

TARGET_S = 3.0


def run() -> list[Row]:
    from coursekit.classroom.grading.grade import grade_class
    from coursekit.classroom.setup.demo import build_class

    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        with contextlib.redirect_stdout(io.StringIO()):
            course = build_class(Path(tmp) / "course")
        plain = Path(tmp) / "plain"
        shutil.copytree(course.root, plain)
        submissions = course.submitted()
        workers = os.cpu_count() or 1

        started = time.perf_counter()
        results = grade_class(course, workers=workers, stream=io.StringIO())
        pipeline_s = time.perf_counter() - started
        intact = {(r["student"], r["assignment"]) for r in results if r["status"] == "graded"}

        started = time.perf_counter()
        refused = _plain_nbgrader(plain, submissions)
        plain_s = time.perf_counter() - started

        _check_agreement(course.url, f"sqlite:///{plain / 'gradebook.db'}", intact - refused)
    n = len(submissions)
    ratio = plain_s / pipeline_s
    case = f"demo class ({n} notebook-submissions)"
    ours = Row(
        "pipeline",
        case,
        "minigrad-course",
        Timing([pipeline_s / n]),
        note=f"{workers} workers, {pipeline_s:.0f} s in all; {ratio:.2f}x faster than plain "
        "nbgrader",
        extra={"total_s": pipeline_s, "submissions": n, "workers": workers, "vs_plain": ratio},
    )
    set_target(ours, f"<{TARGET_S:g} s per notebook-submission", pipeline_s / n, TARGET_S)
    theirs = Row(
        "pipeline",
        case,
        "nbgrader CLI",
        Timing([plain_s / n]),
        note=f"one student at a time, {plain_s:.0f} s in all; it stopped on {len(refused)} "
        "broken submissions",
        extra={"total_s": plain_s, "submissions": n, "stopped_on": sorted(map(list, refused))},
    )
    return [ours, theirs]


def _plain_nbgrader(course: Path, submissions) -> set[tuple[str, str]]:
    """`nbgrader autograde` per submission; returns those it stopped on."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    refused = set()
    for student, assignment in submissions:
        done = subprocess.run(
            [
                str(Path(sys.executable).parent / "nbgrader"),
                "autograde",
                assignment,
                "--student",
                student,
            ],
            cwd=course,
            env=env,
            capture_output=True,
        )
        if done.returncode:
            refused.add((student, assignment))
    return refused


def _check_agreement(ours: str, plain: str, compared) -> None:
    """Same scores on the submissions both graded as handed in (nothing repaired)."""
    from nbgrader.api import Gradebook

    def scores(url):
        with Gradebook(url, "minigrad-course") as gb:
            return {(s.student.id, a.name): s.score for a in gb.assignments for s in a.submissions}

    mine, theirs = scores(ours), scores(plain)
    differ = {
        key: (mine.get(key), theirs.get(key))
        for key in compared
        if mine.get(key) != theirs.get(key)
    }
    if not compared or differ:
        raise Mismatch(f"pipeline and plain nbgrader disagree (ours, nbgrader): {differ}")
