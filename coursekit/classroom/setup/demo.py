"""`minigrad-course demo [DIR]` (`make demo`): a sample class graded end to end.

The class is derived from solutions/ when the demo runs, so it always matches the current
assignments: 14 notebook submissions from 10 students (correct, partly correct, unanswered,
a typical bug of each assignment, and the broken files students hand in: invalid JSON,
stripped metadata with a retyped cell, a renamed notebook, a kernel that dies, deleted and
duplicated cells), downloaded from an LMS as one zip per assignment (Canvas-style file
names, and Moodle-style folders for one assignment), plus two files collect must refuse: a
student not on the roster and a notebook handed in twice. Then init, collect, grade,
feedback, export and report run as an instructor would run them, and the grade table is
printed.
"""

from __future__ import annotations

import copy
import shutil
import zipfile
from pathlib import Path

import nbformat

from coursekit.classroom.course import CONFIG_FILE, Course
from coursekit.exercises.planted import BUGS, solution_sources
from coursekit.planted import planted_in

ROSTER = [  # id, first name, last name
    ("ada", "Ada", "Lovelace"),
    ("ben", "Ben", "Bitdiddle"),
    ("cy", "Cy", "D'Fect"),
    ("dee", "Dee", "Cohen"),
    ("eva", "Eva", "Lu Ator"),
    ("fay", "Fay", "Tang"),
    ("gus", "Gus", "Moreno"),
    ("hal", "Hal", "Abelson"),
    ("ivy", "Ivy", "Okafor"),
    ("jo", "Jo", "Nakamura"),
    ("kim", "Kim", "Park"),
]

# (student, assignment, what they hand in)
CLASS = [
    ("ada", "leaf_nodes", "correct"),
    ("ada", "devices", "correct"),
    ("ben", "leaf_nodes", "bug"),
    ("ben", "detach_numpy", "bug"),
    ("cy", "inplace_versions", "bug"),
    ("cy", "rebuilding_tensors", "bug"),
    ("dee", "devices", "bug"),
    ("dee", "detach_numpy", "partly answered"),
    ("eva", "leaf_nodes", "unanswered"),
    ("fay", "detach_numpy", "invalid JSON"),
    ("gus", "inplace_versions", "stripped metadata, a retyped cell"),
    ("hal", "rebuilding_tensors", "renamed notebook"),
    ("ivy", "rebuilding_tensors", "kernel dies"),
    ("jo", "devices", "deleted and duplicated cells"),
]
MOODLE = "devices"  # downloaded as a folder per student; the others with Canvas file names


def run_demo(where: Path, jobs: int | None = None) -> int:
    from coursekit.cli import main as cli

    course = build_class(where)
    _step(cli, ["grade", "-C", str(course.root), *(["-j", str(jobs)] if jobs else [])])
    for command in ("feedback", "export", "report"):
        _step(cli, [command, "-C", str(course.root)])
    print(f"\nthe demo class is in {course.root} (`make lab ROLE=instructor` opens it)")
    return 0


def build_class(where: Path) -> Course:
    """init and collect: the demo course with every submission collected, nothing graded."""
    from coursekit.cli import main as cli

    where = Path(where).resolve()
    _clear(where)
    lms = where.parent / f"{where.name}-lms"
    shutil.rmtree(lms, ignore_errors=True)
    lms.mkdir(parents=True)
    roster = lms / "roster.csv"
    roster.write_text(
        "id,first_name,last_name,email\n"
        + "".join(f"{i},{f},{last},{i}@example.edu\n" for i, f, last in ROSTER)
    )
    cpu_only = ["--cpu-only"] if not _gpu() else []
    _step(cli, ["init", str(where), "--roster", str(roster), *cpu_only])
    course = Course.at(where)
    for assignment, download in write_downloads(course, lms).items():
        _step(
            cli,
            [
                "collect",
                "-C",
                str(where),
                assignment,
                "--from",
                str(download),
                "--roster",
                str(roster),
            ],
        )
    return course


def _step(cli, argv: list[str]) -> None:
    print(f"\n$ minigrad-course {' '.join(argv)}", flush=True)
    if cli(argv):
        raise SystemExit(f"demo stopped: minigrad-course {argv[0]} failed")


def _clear(where: Path) -> None:
    if where.exists() and any(where.iterdir()):
        if not (where / CONFIG_FILE).is_file():
            raise SystemExit(f"{where} is not empty and not a course: not touching it")
        shutil.rmtree(where)


def _gpu() -> bool:
    try:
        import cupy
        import torch

        return torch.cuda.is_available() and cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def write_downloads(course: Course, out: Path) -> dict[str, Path]:
    """One zip per assignment, as an LMS gives them; returns assignment -> zip."""
    names = {i: (f, last) for i, f, last in ROSTER}
    files: dict[str, list[tuple[str, bytes]]] = {}
    for number, (student, assignment, kind) in enumerate(CLASS):
        released = course.path("release", assignment, f"{assignment}.ipynb")
        filename, content = submission(released, kind)
        first, last = names[student]
        files.setdefault(assignment, []).append(
            (_lms_name(assignment, first, last, number, filename), content)
        )
    # collect must refuse these two: a name not on the roster, a notebook handed in twice
    leaf = course.path("release", "leaf_nodes", "leaf_nodes.ipynb").read_bytes()
    files["leaf_nodes"].append((_lms_name("leaf_nodes", "Zed", "Unknown", 90, "x.ipynb"), leaf))
    for number in (91, 92):
        files["leaf_nodes"].append(
            (_lms_name("leaf_nodes", "Kim", "Park", number, "leaf_nodes.ipynb"), leaf)
        )
    downloads = {}
    for assignment, entries in files.items():
        downloads[assignment] = out / f"{assignment}_submissions.zip"
        with zipfile.ZipFile(downloads[assignment], "w") as archive:
            for name, content in entries:
                archive.writestr(name, content)
    return downloads


def _lms_name(assignment: str, first: str, last: str, number: int, filename: str) -> str:
    if assignment == MOODLE:
        return f"{first} {last}_{1000 + number}_assignsubmission_file_/{filename}"
    compact = "".join(ch for ch in (last + first).lower() if ch.isalnum())
    return f"{compact}_{1000 + number}_{5000 + number}_{filename}"


def submission(released: Path, kind: str) -> tuple[str, bytes]:
    """(file name, bytes) of one student's notebook of the given kind."""
    name = released.stem
    nb = nbformat.read(released, as_version=4)
    answers = solution_sources(name)
    solution_cells = [c for c in nb.cells if _nbgrader(c).get("solution")]
    if kind != "unanswered":
        for cell in solution_cells:
            cell.source = answers[_nbgrader(cell)["grade_id"]]
    if kind == "bug":
        bug = BUGS[name][0]  # the first typical bug of the assignment
        planted = [(c, planted_in(c.source, bug)) for c in solution_cells]
        ((cell, buggy),) = [(c, text) for c, text in planted if text is not None]
        cell.source = buggy
    elif kind == "partly answered":
        solution_cells[-1].source = _released_stub(released, solution_cells[-1])
    elif kind == "invalid JSON":
        text = nbformat.writes(nb)
        return f"{name}.ipynb", text[: len(text) // 2].encode()
    elif kind == "stripped metadata, a retyped cell":
        for cell in nb.cells:
            cell.metadata = {}
        nb.metadata = {}
        retyped = solution_cells[0]  # as Jupyter retypes a cell: same id, new type
        nb.cells[nb.cells.index(retyped)] = nbformat.v4.new_markdown_cell(
            retyped.source, id=retyped.id
        )
    elif kind == "renamed notebook":
        return f"{name} (1).ipynb", nbformat.writes(nb).encode()
    elif kind == "kernel dies":
        solution_cells[-1].source = "import os\n\nos._exit(1)\n\n" + solution_cells[-1].source
    elif kind == "deleted and duplicated cells":
        tests = [c for c in nb.cells if _nbgrader(c).get("grade")]
        nb.cells.remove(tests[0])
        index = nb.cells.index(solution_cells[0])
        nb.cells.insert(index + 1, copy.deepcopy(solution_cells[0]))
    return f"{name}.ipynb", nbformat.writes(nb).encode()


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _released_stub(released: Path, cell) -> str:
    nb = nbformat.read(released, as_version=4)
    grade_id = _nbgrader(cell)["grade_id"]
    return next(c.source for c in nb.cells if _nbgrader(c).get("grade_id") == grade_id)
