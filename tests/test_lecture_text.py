"""The lectures as `minigrad-course start` lays them out (issue 29): every command and link
works on that route. No clone command (`make ...`), no Assignment List or my_assignments/
(there is no nbgrader exchange), every relative link resolves in the laid-out folder and
every `minigrad-course check PATH` names an exercise that is there."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from coursekit.content import copy_content
from coursekit.exercises.assignments import ASSIGNMENTS

CLONE_ONLY = re.compile(
    r"`make \w+|\bmake (?:lab|check|html|demo|test)\b|my_assignments|Assignment List|README"
)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CHECK = re.compile(r"minigrad-course check ([^\s`]+)")


@pytest.fixture(scope="module")
def started(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("started") / "course"
    copy_content(dest)
    return dest


def _markdown(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_no_clone_command_or_path_is_left(started):
    left = {
        path.name: CLONE_ONLY.findall(_markdown(path))
        for path in sorted((started / "lectures").glob("*.ipynb"))
    }
    assert {name: found for name, found in left.items() if found} == {}


def test_links_and_check_commands_resolve_in_the_started_folder(started):
    lectures = started / "lectures"
    checks = set()
    for path in sorted(lectures.glob("*.ipynb")):
        text = _markdown(path)
        for target in _LINK.findall(text):
            if target.startswith(("http://", "https://", "#")):
                continue
            assert (lectures / target.partition("#")[0]).exists(), f"{path.name}: {target}"
        checks.update(_CHECK.findall(text))
    assert checks, "the lectures never say how to check an exercise"
    for copy in checks:
        assert (started / copy).is_file(), copy


def test_each_lecture_with_an_exercise_points_to_the_students_copy(started):
    for a in ASSIGNMENTS:
        text = _markdown(started / "lectures" / Path(a.lecture).name)
        assert f"](../{a.started_copy})" in text, a.name
        assert f"minigrad-course check {a.started_copy}" in text, a.name
