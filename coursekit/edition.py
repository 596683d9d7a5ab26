"""minigrad with some of its graded functions left to the student: the class edition and the
engines a sealed run grades with.

The graded functions ("seams", minigrad/seams/<assignment>.py) hold their reference answers
between nbgrader's solution markers. A stub replaces what is between the markers with
`raise not_built(assignment, name)`, which names the assignment that builds the function, or,
for the few functions every operation goes through (version counters, `.to()`), with the
module's UNTIL_BUILT behaviour: the engine without that rule (no counting, no checks, copies
autograd does not record), so that the assignments before it run in course order.

- The class edition (`build_engine(dest)`): every graded function a stub; the minigrad of the
  student distribution (`write_student_distribution`, see README, "For instructors"). No
  reference body is in it.
- A sealed run's engine (`build_engine(dest, sealed_stubs(assignment, names), sourceless=True)`):
  the functions a test cell grades are stubs (the student's own are bound over them), and so
  is every function of the assignments after the graded one (course order), as in the class
  edition; the graded assignment's other functions and the earlier assignments' keep their
  reference answers, as bytecode only (no source file is staged).
"""

from __future__ import annotations

import ast
import py_compile
import re
import shutil
from pathlib import Path

import minigrad
from minigrad.seams import ASSIGNMENTS

ENGINE = Path(minigrad.__file__).resolve().parent
SEAMS = ENGINE / "seams"
_BEGIN = re.compile(r"^([ \t]*)### BEGIN SOLUTION[ \t]*$")
_END = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")


def seam_source(assignment: str) -> str:
    return (SEAMS / f"{assignment}.py").read_text()


def graded_functions(source: str) -> dict[str, str]:
    """Each module-level function that holds solution markers, as written (docstring and
    markers included): what an exercise's answer cell starts from."""
    lines = source.splitlines()
    found = {}
    for name, (start, end) in _function_spans(source).items():
        text = "\n".join(lines[start:end])
        if "### BEGIN SOLUTION" in text:
            found[name] = text
    return found


def _function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Line spans (0-based, end exclusive) of the module-level functions, with the indented
    comment lines that close them (ast ends a function at its last statement, before its
    `### END SOLUTION`)."""
    lines = source.splitlines()
    spans = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            end = node.end_lineno
            while end < len(lines) and lines[end].startswith((" ", "\t")):
                end += 1
            spans[node.name] = (node.lineno - 1, end)
    return spans


def stubbed(source: str, assignment: str, names=None) -> str:
    """`source` with the solution region of the functions `names` (all graded ones when None)
    replaced by a stub naming the assignment."""
    lines = source.splitlines()
    spans = {n: s for n, s in _function_spans(source).items() if names is None or n in names}
    out, skipping = [], False
    owner = {i: name for name, (a, b) in spans.items() for i in range(a, b)}
    fallback = _until_built(source)
    for i, line in enumerate(lines):
        begin = _BEGIN.match(line)
        if begin and i in owner:
            name = owner[i]
            if name in fallback:  # the engine without the rule, so earlier assignments run
                out.append(f'{begin[1]}return UNTIL_BUILT["{name}"]({fallback[name]})')
            else:
                out.append(f'{begin[1]}raise not_built("{assignment}", "{name}")')
            skipping = True
        elif skipping:
            skipping = not _END.match(line)
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _until_built(source: str) -> dict[str, str]:
    """Functions the module's UNTIL_BUILT covers, each with its call's argument list."""
    tree = ast.parse(source)
    covered = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "UNTIL_BUILT" for t in node.targets
        ):
            covered = {k.value for k in node.value.keys}
    return {
        node.name: ", ".join(a.arg for a in node.args.args)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in covered
    }


def sealed_stubs(assignment: str, names) -> dict[str, list[str] | None]:
    """What a sealed run grading `names` of `assignment` stubs: those, and every function of
    the later assignments (a submission never runs beside an answer it may not see yet)."""
    later = ASSIGNMENTS[ASSIGNMENTS.index(assignment) + 1 :]
    return {assignment: list(names), **dict.fromkeys(later)}


def build_engine(dest: Path, stubs: dict[str, list[str] | None] | None = None,
                 sourceless: bool = False) -> Path:  # fmt: skip
    """Copy minigrad into dest/minigrad with the graded functions of `stubs` (assignment ->
    names, None for all of them; `stubs` None: every graded function of every assignment)
    replaced by stubs. sourceless: the seam modules are staged as bytecode only."""
    package = Path(dest) / "minigrad"
    shutil.copytree(ENGINE, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    write_seams(package, stubs, sourceless)
    return package


def write_seams(package: Path, stubs: dict[str, list[str] | None] | None = None,
                sourceless: bool = False) -> None:  # fmt: skip
    """The graded functions' modules of the minigrad at `package`, each written afresh: the
    functions of `stubs` stubs, the others their reference answers (as build_engine)."""
    stubs = {a: None for a in ASSIGNMENTS} if stubs is None else stubs
    for assignment in ASSIGNMENTS:
        path = package / "seams" / f"{assignment}.py"
        source = seam_source(assignment)
        if assignment in stubs:
            source = stubbed(source, assignment, stubs[assignment])
        path.write_text(source)
        if sourceless:
            # a .pyc beside the module's name is imported without its source (PEP 3147 legacy)
            py_compile.compile(str(path), cfile=str(path.with_suffix(".pyc")), doraise=True)
            path.unlink()


# The students' distribution's own README: what a student needs, on this route only.
STUDENT_README = """# minigrad course (students' distribution)

How PyTorch's autograd really behaves, taught by building the parts of minigrad that decide
it. This installation holds the lectures, the exercises and `minigrad-course check`; the
functions you write are stubs here until you write them.

    pip install '.[torch,lab]'        # PyTorch (the lectures' other side) and JupyterLab
    minigrad-course start my-course   # lectures/ and exercises/ in a new folder
    jupyter lab my-course             # start with lectures/00_start_here.ipynb
    minigrad-course check my-course/exercises/leaf_nodes/leaf_nodes.ipynb

Without `[torch]`, `check` compares with PyTorch's recorded observations; without `[lab]`,
open the folder in any Jupyter you have.

`check` prints, for each test cell, what grading would give it: its points, or NOT PASSED
with the rule, the lecture section that teaches it and the first difference from PyTorch
(`--verbose`: every difference; `--seed N`: the same values again). A cell whose scenarios
need a function of the notebook you have not written yet is NOT CONFIRMED: its points are
counted apart, and the message names the function to write. Without a GPU the CUDA cell is
"not run here (no GPU), not counted".

The commands an instructor runs (init, grade, ...) are in the instructor's package,
`minigrad-course[course]`.
"""

STUDENT_PROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "minigrad-course-student"
version = "{version}"
description = "The minigrad course as a class's students get it: no reference answers"
readme = "README.md"
requires-python = ">=3.10"
# minigrad needs NumPy; `check` runs a notebook in a kernel (jsonschema: see the course's
# pyproject.toml)
dependencies = ["numpy>=1.24", "nbformat", "nbclient", "ipykernel", "{jsonschema}"]

[project.optional-dependencies]
torch = ["{torch}"]  # the lectures' PyTorch side and live checks (the course's pin)
# JupyterLab (its menus in Chinese where the student chooses it: Settings > Language), the
# Assignment List
lab = ["jupyterlab>=4", "jupyterlab-language-pack-zh-CN", "nbgrader", "matplotlib"]

[project.scripts]
minigrad-course = "coursekit.cli:main"

[tool.setuptools.packages.find]
include = ["minigrad*", "autograder*", "coursekit*"]

[tool.setuptools.package-data]
autograder = ["recorded_torch_cpu.json.gz", "diagnoses.json.gz"]
coursekit = ["_content/**/*", "locale/*/LC_MESSAGES/*.mo"]
"""


def course_requirement(name: str) -> str:
    """The requirement on `name` of this package's `course` extra (the torch pin, the
    jsonschema bound), read from its installed metadata, so that pyproject.toml stays the one
    place each is written."""
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    for text in requires("minigrad-course") or ():
        req = Requirement(text)
        if req.name == name and req.marker and req.marker.evaluate({"extra": "course"}):
            return f"{req.name}{req.specifier}"
    raise RuntimeError(f"minigrad-course's metadata names no {name} for its `course` extra")


def write_student_distribution(dest: Path) -> Path:
    """The student's distribution as a pip-installable project in dest: the class edition of
    minigrad (every graded function a stub), the checker, coursekit's student side and the
    lectures and exercises (coursekit/content.py chooses them)."""
    import autograder
    from coursekit import content

    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise SystemExit(f"{dest} is not empty: choose a new directory for the distribution")
    dest.mkdir(parents=True, exist_ok=True)
    package = build_engine(dest)
    init = package / "seams" / "__init__.py"
    source = init.read_text()
    if 'EDITION = "self-paced"' not in source:  # the edition flag moved: say so, ship nothing
        raise RuntimeError(f"{init}: no EDITION line to set; minigrad/seams changed")
    init.write_text(source.replace('EDITION = "self-paced"', 'EDITION = "class"', 1))
    checker = Path(autograder.__file__).resolve().parent
    shutil.copytree(checker, dest / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    for module in content.STUDENT_MODULES:
        (dest / "coursekit" / module).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(content.PACKAGE / module, dest / "coursekit" / module)
    content.carry(content.STUDENT, dest / "coursekit" / "_content")
    version = getattr(minigrad, "__version__", "0")
    project = STUDENT_PROJECT.format(
        version=version,
        torch=course_requirement("torch"),
        jsonschema=course_requirement("jsonschema"),
    )
    (dest / "pyproject.toml").write_text(project)
    (dest / "README.md").write_text(STUDENT_README)
    return dest
