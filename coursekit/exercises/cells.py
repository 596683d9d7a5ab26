"""Read the kit's source files: Python files cut into notebook cells by `# %%` markers.

A marker line is `# %%` (a code cell), `# %% [markdown]` (a markdown cell, written as comment
lines) or `# %% [KIND] ARGS` with KIND one of seam, test, cuda: a `seam` cell is the answer
cell for the graded function it names (`# %% [seam] read_grad`, whose text comes from
minigrad/seams/), a `test` cell names the rule it tests (`# %% [test] L3`), a `cuda` cell is
the visible part of the GPU test. A `# %% [zh-CN]` cell, written as comment lines like a
markdown cell, is the Chinese text of the markdown cell just before it (the two side by side:
coursekit/languages.py makes the notebook in either language); after a `seam` cell, it is the
docstring of that function in Chinese. Anything
before the first marker is the file's header (its docstring, lint settings) and never reaches
a notebook.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MARKER = re.compile(r"^# %%(?: \[(?P<kind>[a-zA-Z-]+)\])?(?P<args>.*)$")
KINDS = ("code", "markdown", "seam", "test", "cuda")
TRANSLATIONS = ("zh-CN",)  # a cell of these kinds is the previous markdown cell's twin


@dataclass(frozen=True)
class Cell:
    kind: str  # one of KINDS
    source: str
    args: str = ""  # what follows the marker: the rule of a test cell
    # a markdown cell's (language, text) twins; a seam cell's: its function's docstring
    translations: tuple[tuple[str, str], ...] = ()


def read_cells(path: Path) -> list[Cell]:
    """The cells of one kit source file, in order."""
    cells: list[Cell] = []
    kind, args, lines = None, "", []
    for line in Path(path).read_text().splitlines():
        match = MARKER.match(line)
        if match:
            if kind is not None:
                _add(cells, _cell(kind, args, lines), path)
            kind, args, lines = match["kind"] or "code", match["args"].strip(), []
            if kind not in KINDS + TRANSLATIONS:
                raise ValueError(f"{path}: unknown cell kind {kind!r} in {line!r}")
        elif kind is not None:
            lines.append(line)
    if kind is not None:
        _add(cells, _cell(kind, args, lines), path)
    return cells


def _add(cells: list[Cell], cell: Cell, path: Path) -> None:
    """Append `cell`, or attach it to the markdown cell before it when it is that cell's
    translation."""
    if cell.kind not in TRANSLATIONS:
        cells.append(cell)
        return
    before = cells[-1] if cells else None
    if before is None or before.kind not in ("markdown", "seam"):
        raise ValueError(f"{path}: a [{cell.kind}] cell that follows no markdown or seam cell")
    if cell.kind in dict(before.translations):
        raise ValueError(f"{path}: two [{cell.kind}] cells for one markdown cell")
    twins = (*before.translations, (cell.kind, cell.source))
    cells[-1] = Cell(before.kind, before.source, before.args, twins)


def _cell(kind: str, args: str, lines: list[str]) -> Cell:
    if kind == "markdown" or kind in TRANSLATIONS:
        lines = [_uncomment(line) for line in lines]
    return Cell(kind, "\n".join(lines).strip("\n"), args)


def _uncomment(line: str) -> str:
    if line in ("#", ""):
        return ""
    if not line.startswith("# "):
        raise ValueError(f"markdown line is not a comment: {line!r}")
    return line[2:]


SOLUTION_MARKERS = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", re.M)


def without_markers(source: str) -> str:
    """The reference answer: the solution with nbgrader's markers removed."""
    return SOLUTION_MARKERS.sub("", source + "\n").rstrip("\n")
