"""The course in more than one language, from one source.

A notebook is written once, in English: its code cells are the same in every language, and
each markdown cell that has been translated (and each exercise's answer cell, for the
docstring of the function the student writes) carries its Chinese text beside the English, in
the cell's metadata (`metadata["zh-CN"]`, a list of lines as Jupyter stores `source`, so a
diff shows the line that changed; the exercises' generator puts it there from the part files,
coursekit/exercises/cells.py). `in_language` makes the notebook a learner reads:
each markdown cell's text in that language (English where no translation exists yet), the
translations dropped from the metadata, every code cell untouched but for an answer cell's
docstring.

TRANSLATED lists, in one place, the notebooks whose prose is wholly translated
(tests/test_languages.py holds each to it); `python -m coursekit.languages` prints, per
notebook, how much of its prose is translated.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # nbformat is read where a file is: the command line parses without it
    import nbformat

DEFAULT = "en"
LANGUAGES = (DEFAULT, "zh-CN")
TRANSLATIONS = LANGUAGES[1:]  # the languages kept in the metadata beside the English
LANGUAGE_FILE = "course_language"  # in a class's course folder: the language it was made in
# In a notebook made in another language than English: which (`check` and Validate answer in it)
LANGUAGE_KEY = "course_language"

# Every prose cell of these notebooks has its twin in the language (paths from the repository
# root; an exercise by its nbgrader source, which its release inherits).
TRANSLATED = {
    "zh-CN": (
        "course/00_start_here.ipynb",
        "course/01_tensors_memory.ipynb",
        "course/02_leaf_nodes.ipynb",
        "course/03_detach_numpy.ipynb",
        "course/04_inplace_versions.ipynb",
        "course/05_rebuilding_tensors.ipynb",
        "course/06_devices.ipynb",
        "course/07_capstone.ipynb",
        "course/08_extending_autograd.ipynb",
        "solutions/leaf_nodes/leaf_nodes.ipynb",
        "solutions/detach_numpy/detach_numpy.ipynb",
        "solutions/inplace_versions/inplace_versions.ipynb",
        "solutions/rebuilding_tensors/rebuilding_tensors.ipynb",
        "solutions/devices/devices.ipynb",
    ),
}


# A markdown line that starts a block of its own (never joined to the line before it).
_BLOCK = re.compile(r"^\s*(?:[-*+] |\d+\. |\||#|<|>|```|~~~)|^\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+] |\d+\. )")  # a list's item: the lines after it continue it
_WIDE_PUNCTUATION = set("，。；：、（）“”‘’《》！？…—")


class UnknownLanguage(SystemExit):
    """A language the course is not written in: one line naming those there are."""


def checked(language: str | None) -> str:
    """`language`, or the default for None; refused with the list when unknown."""
    language = language or DEFAULT
    if language not in LANGUAGES:
        raise UnknownLanguage(
            f"no language {language!r} in this course: it is written in {', '.join(LANGUAGES)}"
        )
    return language


def twin(cell, language: str) -> str:
    """The cell's text in `language` ("" where it has none)."""
    text = cell.metadata.get(language, "")
    return "".join(text) if isinstance(text, list) else text


def as_lines(text: str) -> list[str]:
    """Text as it is kept in the metadata."""
    return text.splitlines(keepends=True)


def _wide(ch: str) -> bool:
    return ord(ch) >= 0x2E80 or ch in _WIDE_PUNCTUATION


def joined(text: str) -> str:
    """Chinese markdown as it is read: a paragraph's hard-wrapped lines joined, with no space
    where two Chinese characters meet (a browser shows a line break there as a space), one
    space between a Chinese character and a Latin word, as written mid-line. Code blocks,
    tables, lists' items, headings and HTML lines keep their lines."""
    lines, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        before = lines[-1] if lines else ""
        own_line = fenced or _BLOCK.match(line) or not before.strip()
        if own_line or (_BLOCK.match(before) and not _ITEM.match(before)):
            lines.append(line)
            continue
        # the characters that meet, seen through emphasis marks (**叶子节点** 张量 is wrong)
        a, b = before.rstrip().rstrip("*_")[-1:] or "*", line.strip().lstrip("*_")[:1] or "*"
        space = (
            ""
            if (_wide(a) and _wide(b)) or a in _WIDE_PUNCTUATION or b in _WIDE_PUNCTUATION
            else " "
        )
        lines[-1] = before.rstrip() + space + line.strip()
    return "\n".join(lines)


def in_language(nb: nbformat.NotebookNode, language: str) -> nbformat.NotebookNode:
    """The notebook as read in `language` (changed in place and returned)."""
    language = checked(language)
    if language != DEFAULT:
        nb.metadata[LANGUAGE_KEY] = language
    for cell in nb.cells:
        text = twin(cell, language) if language != DEFAULT else ""
        if cell.cell_type == "markdown" and text.strip():
            cell.source = joined(text)
        elif cell.cell_type == "code" and text.strip():  # an answer cell: its docstring only
            cell.source = with_docstring(cell.source, text)
        for other in TRANSLATIONS:
            cell.metadata.pop(other, None)
    return nb


def with_docstring(source: str, text: str) -> str:
    """`source`, the function a student writes (an exercise's answer cell), with its
    docstring's text replaced by `text`; every other line as it is."""
    function = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    doc = function.body[0]
    if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)):
        raise ValueError(f"{function.name} has no docstring to translate")
    indent = " " * doc.col_offset
    body = [(indent + line) if line.strip() else "" for line in text.strip("\n").splitlines()]
    body[0] = f'{indent}"""{body[0].lstrip()}'
    body[-1] += '"""' if len(body) == 1 else f'\n{indent}"""'
    lines = source.splitlines()
    lines[doc.lineno - 1 : doc.end_lineno] = body
    return "\n".join(lines)


def notebook_language(nb: nbformat.NotebookNode | dict) -> str:
    """The language a notebook was made in (in_language); English when it says none, or one
    the course is not written in (a student's notebook is theirs to edit)."""
    metadata = nb.get("metadata") if isinstance(nb, dict) else None
    language = metadata.get(LANGUAGE_KEY) if isinstance(metadata, dict) else None
    return language if isinstance(language, str) and language in LANGUAGES else DEFAULT


def write_in_language(path: Path, language: str) -> None:
    """Rewrite the notebook at `path`, in place, in `language`."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nbformat.write(in_language(nb, language), path)


def prose(nb: nbformat.NotebookNode) -> list:
    """The notebook's prose cells: its markdown cells that say something."""
    return [c for c in nb.cells if c.cell_type == "markdown" and c.source.strip()]


def coverage(nb: nbformat.NotebookNode, language: str) -> float:
    """The share of the notebook's English prose (in characters) that has its `language`
    twin: what the issue's "90% of each notebook's prose" is measured by."""
    cells = prose(nb)
    total = sum(len(c.source) for c in cells)
    done = sum(len(c.source) for c in cells if twin(c, language).strip())
    return done / total if total else 1.0


def glossary(language: str = "zh-CN") -> list[dict]:
    """The terms and their one rendering in `language` (coursekit/glossary_zh.json)."""
    import json

    name = {"zh-CN": "glossary_zh.json"}[language]
    return json.loads((Path(__file__).with_name(name)).read_text())["terms"]


def course_language(course_root: Path) -> str:
    """The language a class was made in (`minigrad-course init --lang`); English when the
    course predates languages."""
    path = Path(course_root) / LANGUAGE_FILE
    return checked(path.read_text().strip()) if path.is_file() else DEFAULT


def main(argv=None) -> int:
    """Per notebook of the course (lectures, exercises' sources): its translated share."""
    import nbformat

    root = Path(__file__).resolve().parent.parent
    paths = sorted(root.glob("course/*.ipynb")) + sorted(root.glob("solutions/*/*.ipynb"))
    for language in TRANSLATIONS:
        for path in paths:
            share = coverage(nbformat.read(path, as_version=4), language)
            print(f"{language}  {share:6.1%}  {path.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
