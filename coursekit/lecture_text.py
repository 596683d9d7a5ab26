"""The lectures' text for the folder `minigrad-course start` lays out (lectures/ beside
exercises/, no Makefile, no Assignment List): the lectures are written for the clone (`make
lab`, Fetch into my_assignments/), and `start` rewrites the few sentences that name the
clone's commands and paths into this route's own (`minigrad-course check`, exercises/).
tests/test_lecture_text.py checks that no clone command or path is left."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from coursekit.exercises.assignments import ASSIGNMENTS

_CHECK = "minigrad-course check {copy}"
# (pattern, replacement) over markdown cells, in order; {name}/{copy} filled per assignment
_PER_ASSIGNMENT = (
    r"\(Nbgrader › Assignment List › Fetch; your copy, the one you\s+Validate and submit, is\s+"
    r"`{fetched}`\)",
    "(your copy is [`{copy}`](../{copy}): write the marked cells, run them, then "
    "`" + _CHECK + "` in a terminal, in the course folder, prints what grading would give it)",
)
_WHOLE = (
    (
        r"Exercises open from \*\*Nbgrader › Assignment List\*\*, in this order; \*\*Fetch\*\* "
        r"puts your own\s+copy in `my_assignments/<n>_<name>/<name>\.ipynb` \(for the first,"
        r"\s+`my_assignments/1_leaf_nodes/leaf_nodes\.ipynb`\), the one you work in, Validate "
        r"and submit\.",
        "The exercises, in this order, are in the course folder's `exercises/<name>/<name>.ipynb` "
        "(for the first, [`exercises/leaf_nodes/leaf_nodes.ipynb`]"
        "(../exercises/leaf_nodes/leaf_nodes.ipynb)): the copies you work in and check.",
    ),
    (
        r"\*\*Students in a course\.\*\*.*?(?=\n\*\*Instructors\.\*\*)",
        '**Work through the lectures in order**; each ends with short "try it" cells and a '
        "link to its exercise. Each lecture runs top to bottom before you build anything: "
        "where minigrad needs a function you write in a later exercise, the cell says which "
        "one and shows PyTorch's side; without PyTorch (`pip install "
        "'minigrad-course-student[torch]'`) or matplotlib (`[lab]`), the cells that need them "
        "say so.\n\nYour copy of each exercise is `exercises/<name>/<name>.ipynb` in the "
        "course folder: fill in the marked cells and run them, then, in a terminal in that "
        "folder, `minigrad-course check exercises/leaf_nodes/leaf_nodes.ipynb` prints what "
        "grading would give it (CPU points; CUDA counted only where there is a GPU). Binding "
        "your functions saves them, so the next lectures and exercises run on your own engine; "
        "`minigrad-course saved list` shows the versions kept and `minigrad-course saved "
        "restore ASSIGNMENT N` brings one back.\n",
    ),
    (
        r"\n\*\*Instructors\.\*\*.*\Z",
        "\n**Instructors.** This folder is the students' side of the course; the instructor's "
        "(`pip install 'minigrad-course[course]'`) releases, collects and grades the exercises "
        "with `minigrad-course` (`minigrad-course --help`).",
    ),
)


def for_started(text: str) -> str:
    """A lecture's markdown, as the route `minigrad-course start` lays out reads it."""
    for a in ASSIGNMENTS:
        pattern = _PER_ASSIGNMENT[0].replace("{fetched}", re.escape(a.fetched_copy))
        text = re.sub(pattern, _PER_ASSIGNMENT[1].format(copy=a.started_copy), text)
    for pattern, replacement in _WHOLE:
        text = re.sub(pattern, lambda _, r=replacement: r, text, flags=re.S)
    return text


def rewrite_started(lectures: Path) -> None:
    """Rewrite every lecture in `lectures` (start's copy) for its route."""
    for path in sorted(Path(lectures).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = for_started(cell.source)
        nbformat.write(nb, path)
