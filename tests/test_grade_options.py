"""`grade`'s options (issue 17): the sealed run's time limits from the command line, with their
defaults in --help."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from test_integrity import FIRST, SOURCE_NB, submission, write

from coursekit.classroom.grading.grade import grade_class
from coursekit.classroom.grading.time_limits import SealedTimes
from coursekit.classroom.setup.init_course import init_course
from coursekit.cli import main as cli
from coursekit.nbgrader_schema import answer_in_process

pytestmark = pytest.mark.xdist_group("integrity")  # the sealed runs share the sandbox slots


def test_grade_help_shows_every_time_limit_with_its_default(capsys):
    with pytest.raises(SystemExit):
        cli(["grade", "--help"])
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps its lines
    for said in (
        "--sealed-cell-timeout SEALED_CELL_TIMEOUT seconds per answer cell, sealed run "
        "(default: 10)",
        "--scenario-timeout SCENARIO_TIMEOUT seconds per test scenario, sealed run (default: 5)",
        "(its cells and scenarios together) (default: 60)",
        "--cell-timeout CELL_TIMEOUT seconds per cell in nbgrader's kernel",
        "--timeout TIMEOUT seconds per submission, all of it (default: 900)",
    ):
        assert said in shown


def test_the_defaults_shown_are_the_sealed_runs_own():
    from coursekit.sealed.sandbox import Limits

    assert (SealedTimes.cell_s, SealedTimes.scenario_s, SealedTimes.run_s) == (
        Limits.cell_s, Limits.scenario_s, Limits.wall_s)  # fmt: skip


def test_the_command_line_loads_no_grader_to_parse_its_options():
    """--help, and every command, parse their options without nbgrader (seconds to import)."""
    code = "import sys, coursekit.cli as c; c._parser(); print('nbgrader' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout.strip() == "False", shown.stderr


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf"])
def test_a_time_limit_is_a_number_of_seconds_above_0(capsys, value):
    with pytest.raises(SystemExit) as stopped:
        cli(["grade", "--sealed-cell-timeout", value])
    assert stopped.value.code == 2
    assert "is not a number of seconds above 0" in capsys.readouterr().err


def _cpu_only(nb: dict) -> dict:
    return {**nb, "cells": [c for c in nb["cells"] if "cuda" not in json.dumps(c["metadata"])]}


@pytest.mark.slow
def test_a_lower_sealed_cell_limit_times_out_a_slow_answer_with_a_plain_reason(tmp_path):
    """An answer cell that takes 3 s passes under the default 10 s; at 1 s (what
    `grade --sealed-cell-timeout 1` passes down) it is stopped, and the notes say so."""
    answer_in_process()
    write(_cpu_only(SOURCE_NB), tmp_path / "solutions" / "leaf_nodes")
    course = init_course(tmp_path / "course", tmp_path / "solutions", cpu_only=True)
    slow = submission(before={FIRST: "import time\ntime.sleep(3)"})
    write(_cpu_only(slow), course.submission_dir("ada", "leaf_nodes"))
    (result,) = grade_class(course, 1, sealed=SealedTimes(cell_s=1.0))
    said = json.dumps(result["notes"]) + json.dumps([c["message"] for c in result["cells"]])
    assert "answer cell answer_read_grad ran longer than its time limit" in said, said
    assert "Traceback" not in said
    assert result["status"] == "graded with problems"


def test_grade_verbose_shows_the_logs_of_this_run_only_printable(tmp_path, capsys):
    """`grade --verbose`: nbgrader's log of each submission graded now (the worker's log
    file); an older run's stays unshown, and a student's escape code cannot reach the
    terminal."""
    import os

    from coursekit.cli import _show_logs

    old, new = tmp_path / "0000-ada--toy.log", tmp_path / "0001-ben--toy.log"
    old.write_text("[INFO] old run\n")
    new.write_text("[INFO] Autograding ben\n\x1b[2Jcleared\n")
    os.utime(old, (1_000_000, 1_000_000))
    _show_logs(tmp_path, since=2_000_000)
    err = capsys.readouterr().err
    assert "Autograding ben" in err and "\\x1b[2Jcleared" in err
    assert "old run" not in err and "\x1b" not in err
