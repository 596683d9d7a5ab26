"""The course's text per route (issue 29; coursekit/routes.py): every command and link in a
notebook works on the route it was laid out for.

- `start` (lectures/ beside exercises/, no Makefile, no Assignment List, no my_assignments/);
- the hub (a class's exercises released by nbgrader, fetched into the student's home as
  <name>/<name>.ipynb; no Makefile, no clone, the lectures from `minigrad-course start`);

each in every language the course is written in (coursekit/languages.py).

No clone command (`make ...`) or path is left, every relative link resolves where the
notebook lies, and every `minigrad-course` command parses with the command line's own parser
and names files that are there (`start` is run, and makes the folder the text points to)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
from pathlib import Path

import nbformat
import pytest

from coursekit.cli import _parser
from coursekit.content import copy_content
from coursekit.exercises.assignments import ASSIGNMENTS
from coursekit.languages import LANGUAGES, in_language, write_in_language
from coursekit.routes import START_FOLDER, lay_out, text_for

REPO = Path(__file__).resolve().parent.parent
CLONE_ONLY = re.compile(
    r"`make \w+|\bmake (?:lab|check|html|demo|test)\b|my_assignments|Assignment List|README"
    r"|\.\./course/|\]\(course/"
)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_COMMAND = re.compile(r"`(minigrad-course [^`]+)`")
# a command's placeholders, as a student fills them in
PLACEHOLDERS = {"ASSIGNMENT": ASSIGNMENTS[0].name, "N": "1"}


@pytest.fixture(scope="module", params=LANGUAGES)
def started(request, tmp_path_factory) -> Path:
    """`minigrad-course start --lang LANG`'s folder, in each language."""
    dest = tmp_path_factory.mktemp("started") / "course"
    copy_content(dest, request.param)
    return dest


@pytest.fixture(scope="module", params=LANGUAGES)
def hub_home(request, tmp_path_factory) -> Path:
    """A student's home on a hub after Fetch of every assignment: each released notebook
    laid out as `minigrad-course init --lang LANG` lays out its course's source."""
    home = tmp_path_factory.mktemp("home")
    for a in ASSIGNMENTS:
        (home / a.name).mkdir()
        copy = home / a.name / f"{a.name}.ipynb"
        shutil.copy(REPO / "exercises" / a.name / f"{a.name}.ipynb", copy)
        write_in_language(copy, request.param)
        lay_out(copy, "hub")
    return home


def _markdown(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _links_and_commands(path: Path, cwd: Path) -> list[str]:
    """What does not work in the notebook at `path`, for a terminal in `cwd`: a relative link
    that leads nowhere, a command the command line refuses, a notebook it names that is not
    there."""
    problems = []
    text = _markdown(path)
    for target in _LINK.findall(text):
        if not target.startswith(("http://", "https://", "#")):
            if not (path.parent / target.partition("#")[0]).exists():
                problems.append(f"{path.name}: link {target}")
    for command in _COMMAND.findall(text):
        words = [PLACEHOLDERS.get(w, w) for w in shlex.split(command)[1:]]
        try:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                args = _parser().parse_args(words)
        except SystemExit as stop:  # --help's is 0
            if stop.code:
                problems.append(f"{path.name}: `{command}` is not a command")
            continue
        for notebook in getattr(args, "notebooks", []):
            if not (cwd / notebook).is_file():
                problems.append(f"{path.name}: `{command}` names a notebook not there")
    return problems


def test_no_clone_command_or_path_is_left_on_start(started):
    left = {
        path.name: CLONE_ONLY.findall(_markdown(path))
        for path in [
            *sorted((started / "lectures").glob("*.ipynb")),
            *sorted((started / "exercises").glob("*/*.ipynb")),
        ]  # fmt: skip
    }
    assert {name: found for name, found in left.items() if found} == {}


def test_links_and_commands_work_in_the_started_folder(started):
    problems, commands = [], set()
    for path in [*(started / "lectures").glob("*.ipynb"), *(started / "exercises").glob("*/*")]:
        problems += _links_and_commands(path, started)
        commands.update(_COMMAND.findall(_markdown(path)))
    assert problems == []
    assert any(c.startswith("minigrad-course check ") for c in commands), commands


def test_each_lecture_with_an_exercise_points_to_the_students_copy(started):
    for a in ASSIGNMENTS:
        text = _markdown(started / "lectures" / Path(a.lecture).name)
        assert f"](../{a.started_copy})" in text, a.name
        assert f"minigrad-course check {a.started_copy}" in text, a.name


def test_the_hubs_exercises_name_only_what_a_hub_has(hub_home):
    left = {
        path.name: CLONE_ONLY.findall(_markdown(path))
        for path in sorted(hub_home.glob("*/*.ipynb"))
    }
    assert {name: found for name, found in left.items() if found} == {}
    problems = []
    for path in sorted(hub_home.glob("*/*.ipynb")):
        problems += _links_and_commands(path, hub_home)
    assert problems == []


def test_the_hubs_start_command_makes_the_lectures_its_exercises_name(hub_home, tmp_path):
    """The hub's exercise names its lecture and the `start` that lays the lectures out in
    the home: run, it puts that lecture where the text says."""
    home = tmp_path / "home"
    home.mkdir()
    for a in ASSIGNMENTS:
        text = _markdown(hub_home / a.name / f"{a.name}.ipynb")
        assert f"`minigrad-course start {START_FOLDER}" in text, a.name  # [--lang zh-CN]
        lecture = Path(a.lecture).name
        assert f" {lecture.removesuffix('.ipynb')}" in text, a.name
    assert _parser().parse_args(["start", START_FOLDER]).dir == Path(START_FOLDER)
    copy_content(home / START_FOLDER)  # what `minigrad-course start course` does in the home
    for a in ASSIGNMENTS:
        assert (home / START_FOLDER / "lectures" / Path(a.lecture).name).is_file()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("route", ["start", "hub"])
def test_each_clone_sentence_of_the_exercises_is_rewritten(route, language):
    """A clone sentence the routes no longer match (after an edit of the exercises' text)
    would stay as it is: every exercise's intro changes on every route."""
    for a in ASSIGNMENTS:
        nb = nbformat.read(REPO / "exercises" / a.name / f"{a.name}.ipynb", as_version=4)
        intro = in_language(nb, language).cells[0].source
        laid_out = text_for(intro, route)
        assert "make check" in intro and "make check" not in laid_out, a.name
        assert "../../course/" in intro and "../../course/" not in laid_out, a.name
