"""The course's text per route, in one place: every lecture and exercise is written for the
clone (`make lab`, the Assignment List fetching into my_assignments/, lectures in course/,
`make check`), and laying a notebook out for another route rewrites the few sentences that
name the clone's commands and paths into that route's own:

- "start": the folder `minigrad-course start` makes (lectures/ beside exercises/, no
  Makefile, no Assignment List; `minigrad-course check exercises/<name>/<name>.ipynb`);
- "hub": a class's exercises as nbgrader releases them (`minigrad-course init` lays its
  source out for it): fetched from the Assignment List into the student's home as
  <name>/<name>.ipynb, no clone, no Makefile; the lectures come from `minigrad-course start`.

tests/test_lecture_text.py lays every notebook out for each route and checks that no clone
command or path is left and that every link and command works there."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from coursekit.exercises.assignments import ASSIGNMENTS, Assignment

ROUTES = ("start", "hub")
START_FOLDER = "course"  # the folder the hub's text asks `minigrad-course start` to make


# The exercises' sentences that differ per route: the clone's (coursekit/exercises/notebook.py
# writes it) and each other route's, filled per assignment.
def lecture_sentence(a: Assignment, route: str = "clone") -> str:
    lecture = a.lecture.rsplit("/", 1)[-1]
    name = lecture.removesuffix(".ipynb")
    if route == "hub":
        return (
            f"This assignment follows the lecture {name} (`minigrad-course start "
            f"{START_FOLDER}` in a terminal puts the lectures in `{START_FOLDER}/lectures/`);"
        )
    folder = "course" if route == "clone" else "lectures"
    return f"This assignment follows the lecture [{name}](../../{folder}/{lecture});"


def check_sentence(a: Assignment, route: str = "clone") -> str:
    if route == "clone":
        return (
            "run `make check` from the course's root directory: it checks the copy you fetched "
            f"and submit, `{a.fetched_copy}`"
        )
    if route == "hub":
        return (
            f"run `minigrad-course check {a.name}/{a.name}.ipynb` in a terminal, in your home "
            "folder (where Fetch puts your copy)"
        )
    return (
        f"run `minigrad-course check {a.started_copy}` in a terminal, in the folder "
        "`minigrad-course start` made"
    )


# The lectures' (hand-written, so matched across line breaks): per assignment, then whole
# passages of 00_start_here. Only `start` lays lectures out.
_LECTURE_PER_ASSIGNMENT = (
    r"\(Nbgrader › Assignment List › Fetch; your copy, the one you\s+Validate and submit, is\s+"
    r"`{fetched}`\)",
    "(your copy is [`{copy}`](../{copy}): write the marked cells, run them, then "
    "`minigrad-course check {copy}` in a terminal, in the course folder, prints what "
    "grading would give it)",
)
_LECTURE_WHOLE = (
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


def rewrites(route: str) -> list[tuple[str, str]]:
    """(regular expression, replacement) over a markdown cell, in order, for `route`."""
    if route not in ROUTES:
        raise ValueError(f"no route {route!r}: one of {', '.join(ROUTES)}")
    found = []
    for a in ASSIGNMENTS:
        for sentence in (lecture_sentence, check_sentence):
            found.append((re.escape(sentence(a)), sentence(a, route)))
    if route == "start":
        for a in ASSIGNMENTS:
            pattern = _LECTURE_PER_ASSIGNMENT[0].replace("{fetched}", re.escape(a.fetched_copy))
            found.append((pattern, _LECTURE_PER_ASSIGNMENT[1].format(copy=a.started_copy)))
        found.extend(_LECTURE_WHOLE)
    return found


def text_for(text: str, route: str) -> str:
    """A markdown cell's text as `route` reads it."""
    for pattern, replacement in rewrites(route):
        text = re.sub(pattern, lambda _, r=replacement: r, text, flags=re.S)
    return text


def lay_out(notebook: Path, route: str) -> None:
    """Rewrite the notebook's markdown cells, in place, for `route`."""
    nb = nbformat.read(notebook, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = text_for(cell.source, route)
            changed |= text != cell.source
            cell.source = text
    if changed:
        nbformat.write(nb, notebook)


def feedback_link(reference: str) -> tuple[str, str]:
    """(the section's heading, a link to it) from a class's graded feedback page, as its
    student's files lie on the hub: the page in <home>/<assignment>/feedback/<time>/ (where
    nbgrader's Fetch Feedback puts it), the lectures in <home>/course/lectures/ (where the
    exercises' text has `minigrad-course start` put them). reference: a scenario's
    'course/02_leaf_nodes.ipynb#anchor'."""
    from autograder.report import lecture_link

    path, _, anchor = reference.partition("#")
    title, _ = lecture_link(reference)
    href = f"../../../{START_FOLDER}/lectures/{path.rsplit('/', 1)[-1]}"
    return title, f"{href}#{anchor}" if anchor else href
