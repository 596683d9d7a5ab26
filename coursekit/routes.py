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
from coursekit.languages import LANGUAGES

ROUTES = ("start", "hub")
START_FOLDER = "course"  # the folder the hub's text asks `minigrad-course start` to make


# The exercises' sentences that differ per route: the clone's (coursekit/exercises/notebook.py
# writes it) and each other route's, filled per assignment.
def lecture_sentence(a: Assignment, route: str = "clone", language: str = "en") -> str:
    lecture = a.lecture.rsplit("/", 1)[-1]
    name = lecture.removesuffix(".ipynb")
    if language == "zh-CN":
        if route == "hub":
            return (
                f"本作业紧接讲义 {name}（在终端中运行 `minigrad-course start {START_FOLDER} "
                f"--lang zh-CN`，讲义就会出现在 `{START_FOLDER}/lectures/` 中）；"
            )
        folder = "course" if route == "clone" else "lectures"
        return f"本作业紧接讲义 [{name}](../../{folder}/{lecture})；"
    if route == "hub":
        return (
            f"This assignment follows the lecture {name} (`minigrad-course start "
            f"{START_FOLDER}` in a terminal puts the lectures in `{START_FOLDER}/lectures/`);"
        )
    folder = "course" if route == "clone" else "lectures"
    return f"This assignment follows the lecture [{name}](../../{folder}/{lecture});"


def check_sentence(a: Assignment, route: str = "clone", language: str = "en") -> str:
    if language == "zh-CN":
        return {
            "clone": "请在课程的根目录下运行 `make check`：它检查的是你获取（Fetch）并要提交的"
            f"那份副本 `{a.fetched_copy}`",
            "hub": f"请在终端中、在你的主目录（Fetch 放置副本的地方）下运行 `minigrad-course "
            f"check {a.name}/{a.name}.ipynb`",
            "start": f"请在终端中、在 `minigrad-course start` 创建的文件夹下运行 "
            f"`minigrad-course check {a.started_copy}`",
        }[route]
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


# The lectures' (hand-written, so matched across line breaks), per language: per assignment,
# then whole passages of 00_start_here. Only `start` lays lectures out.
_LECTURE_PER_ASSIGNMENT = {
    "en": (
        r"\(Nbgrader › Assignment List › Fetch; your copy, the one you\s+Validate and submit, is\s+"
        r"`{fetched}`\)",
        "(your copy is [`{copy}`](../{copy}): write the marked cells, run them, then "
        "`minigrad-course check {copy}` in a terminal, in the course folder, prints what "
        "grading would give it)",
    ),
    "zh-CN": (
        r"（Nbgrader › Assignment List › Fetch；你要\s*Validate\s*并提交的副本是\s*`{fetched}`）",
        "（你的副本是 [`{copy}`](../{copy})：编写标记的单元格并运行它们，然后在终端中、在课程"
        "文件夹下运行 `minigrad-course check {copy}`，它会打印评分会给出的结果）",
    ),
}
_LECTURE_WHOLE = {
    "en": (
        (
            r"Exercises open from \*\*Nbgrader › Assignment List\*\*, in this order; \*\*Fetch\*\* "
            r"puts your own\s+copy in `my_assignments/<n>_<name>/<name>\.ipynb` \(for the first,"
            r"\s+`my_assignments/1_leaf_nodes/leaf_nodes\.ipynb`\), the one you work in, Validate "
            r"and submit\.",
            "The exercises, in this order, are in the course folder's "
            "`exercises/<name>/<name>.ipynb` "
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
    ),
    "zh-CN": (
        (
            r"练习按下面的顺序从 \*\*Nbgrader › Assignment List\*\* 中打开；.*?并提交。",
            "练习按下面的顺序排列，位于课程文件夹的 `exercises/<name>/<name>.ipynb` 中（第一个"
            "练习是 [`exercises/leaf_nodes/leaf_nodes.ipynb`]"
            "(../exercises/leaf_nodes/leaf_nodes.ipynb)）：你就在这些副本里作答并检查。",
        ),
        (
            r"\*\*课程中的学生。\*\*.*?(?=\n\*\*教师。\*\*)",
            "**按顺序学习各讲**；每一讲都以几个简短的“动手试试”单元格和指向其练习的链接结尾。"
            "在你构建任何东西之前，每一讲都能从头到尾运行：凡是 minigrad 需要一个你在后面的"
            "练习中才编写的函数的地方，单元格会说明是哪一个，并展示 PyTorch 一侧的结果；没有 "
            "PyTorch（`pip install 'minigrad-course-student[torch]'`）或 matplotlib（`[lab]`）"
            "时，需要它们的单元格会说明这一点。\n\n你的每个练习副本是课程文件夹中的 "
            "`exercises/<name>/<name>.ipynb`：填写标记的单元格并运行它们，然后在该文件夹下的"
            "终端中运行 `minigrad-course check exercises/leaf_nodes/leaf_nodes.ipynb`，它会"
            "打印评分会给出的结果（CPU 分数；只有在有 GPU 的地方才计入 CUDA）。绑定你的函数时"
            "会保存它们，因此之后的讲义和练习都运行在你自己的引擎上；`minigrad-course saved "
            "list` 列出保存的各个版本，`minigrad-course saved restore ASSIGNMENT N` 取回其中"
            "一个。\n",
        ),
        (
            r"\n\*\*教师。\*\*.*\Z",
            "\n**教师。** 这个文件夹是课程的学生一侧；教师一侧（`pip install "
            "'minigrad-course[course]'`）用 `minigrad-course` 发布、收集练习并为之评分"
            "（`minigrad-course --help`）。",
        ),
    ),
}


def rewrites(route: str) -> list[tuple[str, str]]:
    """(regular expression, replacement) over a markdown cell, in order, for `route`."""
    if route not in ROUTES:
        raise ValueError(f"no route {route!r}: one of {', '.join(ROUTES)}")
    found = []
    for language in LANGUAGES:  # a notebook is laid out after it is made in its language
        for a in ASSIGNMENTS:
            for sentence in (lecture_sentence, check_sentence):
                found.append(
                    (re.escape(sentence(a, "clone", language)), sentence(a, route, language))
                )
    if route == "start":
        for language in LANGUAGES:
            pattern, replacement = _LECTURE_PER_ASSIGNMENT[language]
            for a in ASSIGNMENTS:
                fetched = pattern.replace("{fetched}", re.escape(a.fetched_copy))
                found.append((fetched, replacement.format(copy=a.started_copy)))
            found.extend(_LECTURE_WHOLE[language])
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
