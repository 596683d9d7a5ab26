"""The course as a package (issue 21), in its two distributions, each installed into a fresh
virtual environment outside the checkout and run by its own `minigrad-course` entry point.

The instructor's (the wheel built from the checkout) carries the lectures, the exercises and
the nbgrader source: from an empty directory `start` copies the course and `check` grades an
exercise, with PyTorch and without it (on the recorded observations), and an instructor runs
`init`, `release` and `demo`. The student's (`minigrad-course edition DIR`, written by the
installed instructor's package) holds no reference body of any graded function, and `start`
and `check` work from it on the student's own answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest
import tomllib
from session_once import once_per_session
from test_seams import NAMES, _normalised, reference_bodies

from coursekit.exercises.cells import SOLUTION_MARKERS
from coursekit.exercises.planted import BUGS, answered

CHECKOUT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("package")]


def fresh_environment(root: Path) -> Path:
    """A new virtual environment in root (outside the checkout), its site-packages returned.
    Only what a test installs lands there; the course's dependencies (NumPy, nbgrader,
    PyTorch, ...) are borrowed from this test's own environment by one path line, because no
    package index is assumed reachable. That line names a folder, not a site directory, so
    the checkout's editable install (a .pth hook there) stays invisible."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(
        subprocess.check_output([root / "bin" / "python", "-c", purelib], text=True).strip()
    )
    (site / "borrowed-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    # its own kernel: the borrowed kernelspec would start this checkout's Python (and minigrad)
    subprocess.run([root / "bin" / "python", "-m", "ipykernel", "install", "--sys-prefix",
                    "--name", "python3"], check=True, capture_output=True)  # fmt: skip
    return site


def _python(site: Path) -> Path:
    return site.parents[2] / "bin" / "python"  # env/lib/pythonX.Y/site-packages


def pip_install(site: Path, *what: str, cwd: Path) -> None:
    """This environment's pip, installing into the fresh one (which has no pip of its own)."""
    command = [sys.executable, "-m", "pip", "--python", str(_python(site)), "install", "-q",
               "--no-deps", "--no-build-isolation", *what]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    assert out.returncode == 0, out.stderr[-2000:]


def build_wheel(root: Path) -> Path:
    """The instructor's wheel, built in root from a copy of this checkout."""
    source = root / "source"  # pip builds in the tree it is given: a copy, not the checkout
    skipped = shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", "test-artifacts",
        "my_assignments", ".pytest_cache", ".ruff_cache", ".hypothesis")  # fmt: skip

    def ignore(folder, names):  # bench's results, never coursekit/classroom/results
        bench = Path(folder) == CHECKOUT / "bench"
        return set(skipped(folder, names)) | ({"results"} & set(names) if bench else set())

    shutil.copytree(CHECKOUT, source, ignore=ignore)
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
             "-w", str(root / "dist"), str(source)]  # fmt: skip
    subprocess.run(build, check=True, capture_output=True, cwd=root)
    (wheel,) = (root / "dist").glob("minigrad_course-*.whl")
    return wheel


def instructors_package(tmp_path_factory) -> tuple[Path, Path]:
    """The instructor's wheel, built from a copy of this checkout and installed into a fresh
    environment, once for the session (tests/session_once.py): the wheel and the
    environment's site-packages."""

    def make(root: Path) -> str:
        wheel = build_wheel(root)
        site = fresh_environment(root / "env")
        pip_install(site, str(wheel), cwd=root)
        return json.dumps([str(wheel), str(site)])

    wheel, site = json.loads(once_per_session(tmp_path_factory, "instructors-package", make))
    return Path(wheel), Path(site)


def session_demo(tmp_path_factory) -> dict:
    """`minigrad-course demo DIR -j 2` from the installed instructor's package, once for the
    session: what it printed, its exit status and its class (DIR). Shared by the test that
    the demo runs from the package and the browser test that opens its class in the
    Formgrader (tests/test_browser.py), so the class is graded once."""

    def make(root: Path) -> str:
        _, site = instructors_package(tmp_path_factory)
        demo = course_command(site, root, "demo", "demo-course", "-j", "2")
        return json.dumps({"returncode": demo.returncode, "stdout": demo.stdout,
                           "stderr": demo.stderr, "course": str(root / "demo-course")})  # fmt: skip

    return json.loads(once_per_session(tmp_path_factory, "demo-class", make))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The instructor's package installed (instructors_package): its site-packages."""
    return instructors_package(tmp_path_factory)[1]


@pytest.fixture(scope="module")
def student(installed, tmp_path_factory) -> Path:
    """The student distribution, written by the installed instructor's package from an empty
    directory and installed into a fresh environment of its own."""
    root = tmp_path_factory.mktemp("student")
    out = course_command(installed, root, "edition", "project")
    assert out.returncode == 0, out.stderr[-2000:]
    written = tomllib.loads((root / "project" / "pyproject.toml").read_text())
    ours = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]
    torch = [r for r in ours["optional-dependencies"]["course"] if r.startswith("torch")]
    assert written["project"]["optional-dependencies"]["torch"] == torch  # one pin, ours
    site = fresh_environment(root / "env")
    pip_install(site, str(root / "project"), cwd=root)
    return site


def course_command(site: Path, cwd: Path, *args, without_torch: bool = False, python=False):
    """`minigrad-course ARGS` run by the fresh environment's own entry point (python=True:
    its `python ARGS`); a class edition's saved functions go to cwd/my_seams."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["MINIGRAD_MY_SEAMS"] = str(cwd / "my_seams")
    # the borrowed dependencies' data files (nbconvert's and nbgrader's templates), which a
    # real install puts in the environment's own share/jupyter
    borrowed = Path(sysconfig.get_path("data"), "share", "jupyter")
    env["JUPYTER_PATH"] = os.pathsep.join(
        [str(site.parents[2] / "share" / "jupyter"), str(borrowed)]
    )
    if without_torch:  # a `torch` that cannot be imported, as where none is installed
        shim = cwd / "no-torch"
        (shim / "torch").mkdir(parents=True, exist_ok=True)
        (shim / "torch" / "__init__.py").write_text("raise ImportError('no torch here')\n")
        env["PYTHONPATH"] = str(shim)
    entry = [_python(site)] if python else [_python(site).parent / "minigrad-course"]
    return subprocess.run([*entry, *args], cwd=cwd, env=env,
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


def _files(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


@pytest.mark.parametrize("distribution", ["installed", "student"])
def test_each_package_runs_from_its_own_folder(distribution, request, tmp_path):
    """What `check` imports comes from the installed folder (not from an editable install of
    a clone that the interpreter may also see)."""
    site = request.getfixturevalue(distribution)
    modules = "minigrad autograder coursekit coursekit.exercises.selfcheck coursekit.content"
    probe = f"import importlib\nfor m in {modules.split()!r}:\n"
    probe += "    print(importlib.import_module(m).__file__)"
    out = course_command(site, tmp_path, "-c", probe, python=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert all(Path(f).is_relative_to(site) for f in out.stdout.split()), out.stdout


def test_the_instructors_package_holds_the_course_and_its_nbgrader_source(installed):
    files = _files(installed)
    assert "coursekit/_content/course/00_start_here.ipynb" in files
    assert "coursekit/_content/exercises/leaf_nodes/leaf_nodes.ipynb" in files
    assert "coursekit/_content/solutions/leaf_nodes/leaf_nodes.ipynb" in files
    assert "autograder/recorded_torch_cpu.json.gz" in files
    assert "autograder/diagnoses.json.gz" in files  # check() names likely mistakes there too


def test_the_students_package_holds_the_course_and_no_reference_body(student):
    """Every installed file searched for every graded function's reference body (the search
    of tests/test_seams.py); nbgrader's source and the instructor's modules are absent."""
    files = _files(student)
    assert "coursekit/_content/course/00_start_here.ipynb" in files
    assert "coursekit/_content/exercises/leaf_nodes/leaf_nodes.ipynb" in files
    assert "autograder/recorded_torch_cpu.json.gz" in files
    assert "autograder/diagnoses.json.gz" in files  # check() names likely mistakes there too
    assert not [f for f in files if "solutions" in f.split("/")]
    assert not [f for f in files if f.startswith(("coursekit/sealed/", "coursekit/exercises/pl"))]
    texts = {
        f: _normalised((student / f).read_text(errors="replace"))
        for f in files
        if not f.endswith((".pyc", ".gz"))
    }
    assert "def read_grad(tensor):" in texts["minigrad/seams/leaf_nodes.py"]
    for assignment in NAMES:
        for name, body in reference_bodies(assignment).items():
            found = [f for f, text in texts.items() if body in text]
            assert not found, f"{assignment}.{name}'s reference body is installed in {found}"
    assert not SOLUTION_MARKERS.search("\n".join(texts.values()))


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


@pytest.mark.parametrize("without_torch", [False, True], ids=["pytorch", "recorded"])
def test_a_student_starts_then_checks_their_own_answer(student, tmp_path, without_torch):
    """The class edition's stubs are what the student's answers are bound over: a right
    answer passes, a planted bug fails its rule."""
    folder = _started(student, tmp_path, without_torch)
    released = folder / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb"
    bug = BUGS["leaf_nodes"][0]
    good = _check(student, folder, answered(released, "leaf_nodes"), without_torch)
    assert good.returncode == 0, good.stdout[-3000:] + good.stderr[-3000:]
    bad = _check(student, folder, answered(released, "leaf_nodes", bug), without_torch)
    assert bad.returncode == 1 and f"rule {bug.rule}" in bad.stdout, bad.stdout[-3000:]
    for out in (good, bad):
        assert "Traceback" not in out.stdout + out.stderr


def test_an_instructor_inits_releases_and_runs_the_demo_from_an_empty_directory(
    installed, tmp_path, tmp_path_factory
):
    cpu_only = ["--cpu-only"]  # as the demo does where there is no GPU
    out = course_command(installed, tmp_path, "init", "course", *cpu_only)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "course ready in" in out.stdout and "leaf_nodes" in out.stdout
    released = course_command(installed, tmp_path, "release", "-C", "course")
    assert released.returncode == 0, released.stderr[-3000:]
    assert "released leaf_nodes" in released.stdout
    demo = session_demo(tmp_path_factory)  # run once for the session from this package
    assert demo["returncode"] == 0, demo["stdout"][-3000:] + demo["stderr"][-3000:]
    assert (Path(demo["course"]) / "grades.csv").is_file()
    for run in (out, released):
        assert "Traceback" not in run.stdout + run.stderr
    assert "Traceback" not in demo["stdout"] + demo["stderr"]


def test_instructor_commands_in_the_students_package_say_where_they_are(student, tmp_path):
    for command in (["init", "course"], ["demo"], ["release"], ["edition", "again"]):
        out = course_command(student, tmp_path, *command)
        assert out.returncode == 1 and "student distribution" in out.stderr, out.stderr
        assert "pip install minigrad-course[course]" in out.stderr
        assert "Traceback" not in out.stderr
    assert not (tmp_path / "course").exists() and not (tmp_path / "again").exists()


def test_commands_outside_a_course_say_what_to_do(installed, tmp_path):
    out = course_command(installed, tmp_path, "check")
    assert out.returncode == 2 and "minigrad-course start" in out.stderr
    assert "Traceback" not in out.stderr
    out = course_command(installed, tmp_path, "table")
    assert out.returncode != 0 and "is not a course" in out.stderr
