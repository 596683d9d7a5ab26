"""The students' distribution as a student meets it (issue 29): installed into a fresh
environment, `minigrad-course start` lays out the lectures, and each runs top to bottom
before any assignment is built, again with assignment 1 done, and without PyTorch and
matplotlib (a bare `pip install minigrad-course-student`), where the cells that need them
say which extra to install. Saved work survives `check` of an untouched copy, and
`minigrad-course saved restore` brings an earlier version back.

The environment is the session's one students' distribution (tests/students_distribution.py);
the notebooks run in a kernel of that environment (its own kernel spec, as pip installs
ipykernel's), never in this checkout's: all the lectures of one route through one process,
each in a kernel of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path

import pytest
from test_package_install import _python, _started

from coursekit.edition import graded_functions, seam_source
from coursekit.exercises.cells import without_markers
from coursekit.exercises.planted import BUGS, answered

pytestmark = [pytest.mark.slow]
OPTIONAL = ("torch", "matplotlib")  # what `[torch]` and `[lab]` bring
LECTURES = (
    "00_start_here",
    "01_tensors_memory",
    "02_leaf_nodes",
    "03_detach_numpy",
    "04_inplace_versions",
    "05_rebuilding_tensors",
    "06_devices",
    "07_capstone",
    "08_extending_autograd",
)
RUNNER = """
import json, sys
import nbformat
from nbclient import NotebookClient

out = {}
for path in sys.argv[2:]:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": sys.argv[1]}})
    client.execute()
    cells = out[path] = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        cells.append({
            "index": index,
            "errors": [f"{o['ename']}: {o['evalue']}" for o in outputs if o.output_type == "error"],
            "text": "".join(o.get("text", "") for o in outputs if o.output_type == "stream"),
        })
print("@@" + json.dumps(out))
"""


def _environment(site: Path, cwd: Path, without=()) -> dict:
    """What a student's shell has: the environment's own kernel spec first (as pip installs
    ipykernel's: `python` is the kernel's interpreter), saved functions in cwd/my_seams;
    `without`: packages that cannot be imported, as where they are not installed."""
    data = site.parents[2] / "share" / "jupyter"
    spec = data / "kernels" / "python3"
    if not spec.is_dir():
        spec.mkdir(parents=True)
        argv = ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        kernel = {"argv": argv, "display_name": "Python 3", "language": "python"}
        (spec / "kernel.json").write_text(json.dumps(kernel))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["MINIGRAD_MY_SEAMS"] = str(cwd / "my_seams")
    borrowed = Path(sysconfig.get_path("data"), "share", "jupyter")
    env["JUPYTER_PATH"] = os.pathsep.join([str(data), str(borrowed)])
    if without:
        shim = cwd / "not-installed"
        for package in without:
            (shim / package).mkdir(parents=True, exist_ok=True)
            (shim / package / "__init__.py").write_text(
                f"raise ModuleNotFoundError(\"No module named '{package}'\", name={package!r})\n"
            )
        env["PYTHONPATH"] = str(shim)
    return env


def run_lectures(site: Path, folder: Path, without=()) -> dict[str, list[dict]]:
    """Every lecture laid out in folder/lectures, executed in the environment's kernel, one
    after the other by one process: each code cell's errors and printed text, by lecture."""
    lectures = folder / "lectures"
    paths = [str(lectures / f"{name}.ipynb") for name in LECTURES]
    out = subprocess.run(
        [_python(site), "-c", RUNNER, str(lectures), *paths],
        env=_environment(site, folder, without), cwd=folder,
        capture_output=True, text=True, timeout=3000,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    ran = json.loads(out.stdout.rpartition("@@")[2])
    return {Path(path).stem: cells for path, cells in ran.items()}


def course(site: Path, folder: Path, *args, without=()):
    """`minigrad-course ARGS` of the environment, with its own kernel for `check`."""
    command = [_python(site).parent / "minigrad-course", *args]
    return subprocess.run(command, cwd=folder, env=_environment(site, folder, without),
                          capture_output=True, text=True, timeout=1500)  # fmt: skip


def _errors(cells) -> list[str]:
    return [f"cell {c['index']}: {e}" for c in cells for e in c["errors"]]


def _save_assignment_one(folder: Path) -> None:
    """leaf_nodes done: its right functions saved, as binding them in the notebook does."""
    mine = folder / "my_seams"
    mine.mkdir(exist_ok=True)
    functions = graded_functions(seam_source("leaf_nodes")).values()
    (mine / "leaf_nodes.py").write_text(
        "from minigrad.seams.leaf_nodes import *\n\n\n"
        + "\n\n".join(without_markers(f) for f in functions)
    )


@pytest.mark.parametrize(
    "assignment_one",
    [
        pytest.param(False, id="nothing_built"),
        pytest.param(True, id="leaf_nodes_done"),
    ],
)
def test_every_lecture_runs_top_to_bottom_on_the_students_distribution(
    students_distribution, tmp_path, assignment_one
):
    """With PyTorch and matplotlib: no cell fails. Before leaf_nodes is built, lecture 02's
    cells that need it say so and name the assignment; with it done, they run."""
    site = students_distribution
    folder = _started(site, tmp_path)
    if assignment_one:
        _save_assignment_one(folder)
    notes = {}
    for name, cells in run_lectures(site, folder).items():
        assert _errors(cells) == [], name
        notes[name] = "\n".join(c["text"] for c in cells)
    assert sorted(notes) == sorted(LECTURES)
    leaf_nodes_missing = "not built yet; you build it in assignment 1 (leaf_nodes)"
    assert (leaf_nodes_missing in notes["02_leaf_nodes"]) == (not assignment_one)
    assert "you build it in assignment 3 (inplace_versions)" in notes["04_inplace_versions"]
    assert "not installed" not in "".join(notes.values())


def test_without_pytorch_each_lecture_runs_to_the_end_and_says_what_to_install(
    students_distribution, tmp_path
):
    """A bare `pip install minigrad-course-student`: each lecture's cells that need PyTorch
    (or matplotlib, lecture 02's plot) say which extra to install, and the rest run."""
    site = students_distribution
    folder = _started(site, tmp_path)
    texts = {}
    for name, cells in run_lectures(site, folder, without=OPTIONAL).items():
        assert _errors(cells) == [], name
        texts[name] = "\n".join(c["text"] for c in cells)
        assert "pip install 'minigrad-course-student[torch]'" in texts[name], name
    assert sorted(texts) == sorted(LECTURES)
    assert "pip install 'minigrad-course-student[lab]'" in texts["02_leaf_nodes"]


def test_checking_an_untouched_copy_keeps_saved_work_and_restore_brings_back_a_version(
    students_distribution, tmp_path
):
    """A right leaf_nodes is checked (its bind line saves it); `check` of the untouched copy
    leaves the saved functions as they were; a wrong answer replaces them, `saved list`
    shows both versions and `saved restore` brings the right one back."""
    site = students_distribution
    folder = _started(site, tmp_path)
    notebook = folder / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb"
    released = notebook.read_text()
    saved = folder / "my_seams" / "leaf_nodes.py"

    def check(text: str):
        notebook.write_text(text)
        return course(site, folder, "check", str(notebook.relative_to(folder)))

    right = check(answered(notebook, "leaf_nodes"))
    assert right.returncode == 0, right.stdout[-3000:] + right.stderr[-3000:]
    first = saved.read_text()
    assert "def accumulate_grad(" in first
    untouched = check(released)
    assert untouched.returncode == 1, untouched.stdout[-3000:]
    assert saved.read_text() == first

    notebook.write_text(released)
    wrong = check(answered(notebook, "leaf_nodes", BUGS["leaf_nodes"][0]))
    assert wrong.returncode == 1, wrong.stdout[-3000:]
    assert saved.read_text() != first
    listed = course(site, folder, "saved", "list", "leaf_nodes")
    assert listed.returncode == 0 and "current" in listed.stdout, listed.stderr
    assert "      1  " in listed.stdout, listed.stdout
    restored = course(site, folder, "saved", "restore", "leaf_nodes", "1")
    assert restored.returncode == 0, restored.stderr
    assert saved.read_text() == first
    refused = course(site, folder, "saved", "restore", "leaf_nodes", "9")
    assert refused.returncode == 1 and "saved list leaf_nodes" in refused.stderr
    assert "Traceback" not in refused.stderr
