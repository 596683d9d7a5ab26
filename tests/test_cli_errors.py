"""An instructor's mistakes get one or two lines saying what to do, a non-zero exit and no
traceback (issue 17); --debug shows the traceback."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from coursekit import cli

pytestmark = pytest.mark.xdist_group("cli_errors")  # one worker inits the module's course


def course_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "coursekit.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=600)  # fmt: skip


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli") / "course"
    out = course_cli("init", root, "--cpu-only")
    assert out.returncode == 0, out.stderr[-2000:]
    return root


def _no_traceback(out):
    assert "Traceback" not in out.stdout + out.stderr


def test_an_unknown_assignment_is_refused_and_creates_nothing(course):
    out = course_cli("collect", "-C", course, "nosuch")
    assert out.returncode != 0 and "no assignment named 'nosuch'" in out.stderr
    assert "leaf_nodes" in out.stderr
    assert not (course / "submitted" / "nosuch").exists()
    _no_traceback(out)


def test_releasing_twice_says_it_is_released(course):
    assert course_cli("release", "-C", course, "leaf_nodes").returncode == 0
    out = course_cli("release", "-C", course, "leaf_nodes")
    assert out.returncode == 0 and "already released" in out.stdout
    assert "--force" not in out.stdout + out.stderr
    _no_traceback(out)


def test_a_missing_roster_or_an_unreachable_database_is_one_message(course, tmp_path):
    out = course_cli("collect", "-C", course, "leaf_nodes", "--from", tmp_path / "x.zip",
                     "--roster", tmp_path / "none.csv")  # fmt: skip
    assert out.returncode == 1 and "No such file or directory" in out.stderr
    assert "--debug" in out.stderr
    _no_traceback(out)
    out = course_cli("table", "-C", course, "--db", "postgresql://nobody@127.0.0.1:1/none")
    assert out.returncode == 1 and "database cannot be used" in out.stderr, out.stderr
    _no_traceback(out)
    out = course_cli("--debug", "table", "-C", course, "--db", "postgresql://x@127.0.0.1:1/n")
    assert "Traceback" in out.stderr


def test_a_full_disk_says_nothing_is_lost(monkeypatch, course, capsys):
    def full(course, args):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setitem(cli.COMMANDS, "table", full)
    assert cli.main(["table", "-C", str(course)]) == 1
    err = capsys.readouterr().err
    assert "the disk is full. Nothing graded so far is lost" in err
    assert len(err.strip().splitlines()) == 2


def test_ctrl_c_is_one_line(monkeypatch, course, capsys):
    def interrupted(course, args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "grade", interrupted)
    assert cli.main(["grade", "-C", str(course)]) == 130
    assert capsys.readouterr().err.strip() == (
        "interrupted: what was finished is kept; run the same command again to go on"
    )


def test_a_second_course_on_the_same_database_is_refused(tmp_path):
    """nbgrader keeps one course per database: a second course there would share its grades
    silently. The course id comes from the course's folder (or --course-id)."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = course_cli("init", tmp_path / "physics", "--cpu-only", "--db", url)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "course_id = 'physics'" in (tmp_path / "physics" / "nbgrader_config.py").read_text()
    second = course_cli("init", tmp_path / "chemistry", "--cpu-only", "--db", url)
    assert second.returncode != 0
    assert "already holds the course physics" in second.stderr
    assert not (tmp_path / "chemistry").exists()  # nothing left half made
    _no_traceback(second)


def test_a_failed_init_leaves_nothing_behind(tmp_path):
    """A roster refused, or a step that fails half way, leaves no half course to block the
    retry."""
    bad = tmp_path / "roster.csv"
    bad.write_text("id,first_name\n../x,Ada\n")
    out = course_cli("init", tmp_path / "c1", "--cpu-only", "--roster", bad)
    assert out.returncode != 0 and "line 2" in out.stderr
    assert not (tmp_path / "c1").exists()
    empty = tmp_path / "solutions" / "broken"
    empty.mkdir(parents=True)
    (empty / "broken.ipynb").write_text("not a notebook")
    out = course_cli("init", tmp_path / "c2", "--solutions", tmp_path / "solutions")
    assert out.returncode != 0 and not (tmp_path / "c2").exists()
    _no_traceback(out)


# --- issue 32: messages that say what happened and what to do ----------------------------------
REPO = Path(__file__).resolve().parents[1]


def test_grade_before_any_collect_says_to_collect_first(course):
    out = course_cli("grade", "-C", course)
    assert out.returncode != 0, out.stdout
    assert "no submission has been collected yet" in out.stderr
    assert "minigrad-course collect ASSIGNMENT" in out.stderr
    assert "graded and unchanged" not in out.stdout + out.stderr
    _no_traceback(out)


def test_outside_a_course_folder_names_the_c_option(tmp_path):
    out = course_cli("table", cwd=tmp_path)
    assert out.returncode != 0
    assert "is not a course folder" in out.stderr and "`-C COURSE`" in out.stderr
    assert "minigrad-course init COURSE" in out.stderr
    _no_traceback(out)


def test_a_reader_that_stops_early_is_no_error(course):
    """`table | head`: the pipe closes before the table is written."""
    process = subprocess.Popen([sys.executable, "-m", "coursekit.cli", "table", "-C", course],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    process.stdout.close()  # before it writes anything: its every write fails
    _, err = process.communicate(timeout=600)
    assert err.decode() == "" and process.returncode == 141


def test_the_plain_wheel_names_the_course_extra(tmp_path):
    """Without the course extras (here: traitlets made unimportable), `edition` and every
    instructor's command say what to install."""
    script = ("import sys; sys.modules['traitlets'] = None\n"
              "from coursekit.cli import main; sys.exit(main(sys.argv[1:]))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", script, "edition", str(tmp_path / "edition")],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert out.returncode == 1
    assert "(traitlets)" in out.stderr and "pip install 'minigrad-course[course]'" in out.stderr
    _no_traceback(out)


def test_make_hub_without_its_arguments_is_one_line():
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE", "ROSTER", "INSTRUCTOR")}
    out = subprocess.run(["make", "--no-print-directory", "hub"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert out.returncode != 0 and out.stdout == ""
    (line,) = out.stderr.splitlines()
    assert "make hub needs COURSE, ROSTER and INSTRUCTOR" in line
    assert "make hub COURSE=/srv/courses/autograd ROSTER=roster.csv INSTRUCTOR=teacher" in line


def test_init_lays_the_released_exercises_out_for_the_hub(course):
    """What a class's students fetch names the hub's commands, not the clone's (the hub's
    text itself is checked in tests/test_lecture_text.py)."""
    text = (course / "release" / "leaf_nodes" / "leaf_nodes.ipynb").read_text()
    assert "make check" not in text and "my_assignments" not in text
    assert "minigrad-course check leaf_nodes/leaf_nodes.ipynb" in text


def test_a_download_without_a_notebook_of_the_assignment_collects_nothing_and_says_so(
    course, tmp_path
):
    import zipfile

    assert course_cli("release", "-C", course, "leaf_nodes").returncode == 0
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name\nada,Ada,Lovelace\n")
    another = tmp_path / "another.zip"  # Canvas's names, another assignment's notebook
    with zipfile.ZipFile(another, "w") as archive:
        archive.writestr("lovelaceada_12_34_gradients.ipynb", '{"cells": []}')
    out = course_cli("collect", "-C", course, "leaf_nodes", "--from", another, "--roster", roster)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "none of the download's 1 notebook(s) is one of leaf_nodes's (leaf_nodes.ipynb)" in (
        out.stdout
    ), out.stdout
    assert "nothing collected for leaf_nodes: every entry of the download was left out" in (
        out.stderr
    ), out.stderr
    no_notebook = tmp_path / "no_notebook.zip"
    with zipfile.ZipFile(no_notebook, "w") as archive:
        archive.writestr("lovelaceada_12_34_answers.txt", "my answers")
    out = course_cli("collect", "-C", course, "leaf_nodes", "--from", no_notebook,
                     "--roster", roster)  # fmt: skip
    assert out.returncode == 1, out.stdout + out.stderr
    assert "nothing collected for leaf_nodes: no_notebook.zip holds no notebook (.ipynb)" in (
        out.stderr
    ), out.stderr
    assert not (course / "submitted" / "ada").exists()
    _no_traceback(out)
