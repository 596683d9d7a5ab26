"""The Colab cell (issue 21): first in every notebook, installing the student's distribution
on Colab and doing nothing elsewhere. Colab itself is out of reach here: the cell runs with a
stand-in `google.colab` module and a pip that only records what it was asked."""

import subprocess
import sys
import types
from pathlib import Path

import nbformat
import pytest

from coursekit import colab
from coursekit.edition import STUDENT_PROJECT

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = [
    *sorted((ROOT / "course").glob("*.ipynb")),
    *sorted((ROOT / "solutions").glob("*/*.ipynb")),  # the nbgrader source
    *sorted((ROOT / "exercises").glob("*/*.ipynb")),  # as released to students
]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_notebook_starts_with_the_colab_cell(path):
    assert colab.first_code_cell(nbformat.read(path, as_version=4)) == colab.CELL


def _run_cell(monkeypatch, on_colab: bool) -> list:
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append((a, k)))
    if on_colab:
        monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    exec(compile(colab.CELL, "colab-cell", "exec"), {})
    return calls


def test_on_colab_the_cell_installs_the_students_distribution(monkeypatch):
    (call,) = _run_cell(monkeypatch, on_colab=True)
    (command,), options = call
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    assert command[-1] == "minigrad-course-student"
    assert options == {"check": True}  # a failed install stops the notebook, loudly


def test_elsewhere_the_cell_does_nothing(monkeypatch):
    assert _run_cell(monkeypatch, on_colab=False) == []


def test_the_cell_names_the_distribution_the_edition_writes():
    assert f'name = "{colab.PACKAGE}"' in STUDENT_PROJECT
