"""The course as a package (issue 21): the wheel built from the checkout carries the lectures
and the exercises, and from an empty directory `start` copies them and `check` grades an
exercise, with PyTorch and without it (on the recorded observations)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from coursekit.exercises.planted import BUGS, answered

CHECKOUT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("package")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel, built from this checkout and installed into a folder of its own."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # pip builds in the tree it is given: a copy, not the checkout
    shutil.copytree(CHECKOUT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", "test-artifacts", "results",
        "my_assignments", ".pytest_cache", ".ruff_cache", ".hypothesis"))  # fmt: skip
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
             "-w", str(root / "dist"), str(source)]  # fmt: skip
    subprocess.run(build, check=True, capture_output=True, cwd=root)
    (wheel,) = (root / "dist").glob("minigrad_course-*.whl")
    site = root / "site"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
               str(wheel)]  # fmt: skip
    subprocess.run(install, check=True, capture_output=True)
    return site


def course_command(site: Path, cwd: Path, *args, without_torch: bool = False):
    """`minigrad-course ARGS` as the installed package runs it (the clone not on the path)."""
    path = [str(site)]
    if without_torch:  # a `torch` that cannot be imported, as where none is installed
        shim = cwd / "no-torch"
        (shim / "torch").mkdir(parents=True, exist_ok=True)
        (shim / "torch" / "__init__.py").write_text("raise ImportError('no torch here')\n")
        path.insert(0, str(shim))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run([sys.executable, "-m", "coursekit.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1500)  # fmt: skip


def _started(site: Path, tmp_path: Path, without_torch=False) -> Path:
    out = course_command(site, tmp_path, "start", "mine", without_torch=without_torch)
    assert out.returncode == 0, out.stderr[-2000:]
    folder = tmp_path / "mine"
    assert "Traceback" not in out.stdout + out.stderr
    assert (folder / "lectures" / "02_leaf_nodes.ipynb").is_file()
    assert (folder / "lectures" / "capstone_train.py").is_file()
    return folder


def _check(site, folder, answer: str | None, without_torch=False):
    notebook = folder / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb"
    if answer is not None:
        notebook.write_text(answer)
    return course_command(site, folder, "check", str(notebook.relative_to(folder)),
                          without_torch=without_torch)  # fmt: skip


def test_the_installed_package_holds_the_course_and_no_solutions(installed):
    files = {p.relative_to(installed).as_posix() for p in installed.rglob("*") if p.is_file()}
    assert "coursekit/_content/course/00_start_here.ipynb" in files
    assert "coursekit/_content/exercises/leaf_nodes/leaf_nodes.ipynb" in files
    assert "autograder/recorded_torch_cpu.json.gz" in files
    assert not [f for f in files if "solutions" in f.split("/")]


@pytest.mark.parametrize("without_torch", [False, True], ids=["pytorch", "recorded"])
def test_start_then_check_from_an_empty_directory(installed, tmp_path, without_torch):
    folder = _started(installed, tmp_path, without_torch)
    released = folder / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb"
    right = answered(released, "leaf_nodes")
    bug = BUGS["leaf_nodes"][0]
    wrong = answered(released, "leaf_nodes", bug)
    rule = bug.rule
    assert nbformat.reads(right, as_version=4).cells

    good = _check(installed, folder, right, without_torch)
    assert good.returncode == 0, good.stdout[-3000:] + good.stderr[-3000:]
    bad = _check(installed, folder, wrong, without_torch)
    assert bad.returncode == 1, bad.stdout[-3000:]
    summary = bad.stdout.rpartition("===== summary")[2]
    assert f"test_{rule}" in summary and f"rule {rule}" in bad.stdout
    for out in (good, bad):
        assert "Traceback" not in out.stdout + out.stderr
        recorded = "PyTorch 2.13.0+cpu (recorded) on cpu" in out.stdout
        assert recorded == without_torch, out.stdout[-2000:]


def test_commands_outside_a_course_say_what_to_do(installed, tmp_path):
    out = course_command(installed, tmp_path, "check")
    assert out.returncode == 2 and "minigrad-course start" in out.stderr
    assert "Traceback" not in out.stderr
    out = course_command(installed, tmp_path, "table")
    assert out.returncode != 0 and "is not a course" in out.stderr
