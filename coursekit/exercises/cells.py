"""Read the kit's source files: Python files cut into notebook cells by `# %%` markers.

A marker line is `# %%` (a code cell), `# %% [markdown]` (a markdown cell, written as comment
lines) or `# %% [KIND] ARGS` with KIND one of seam, test, cuda: a `seam` cell is the answer
cell for the graded function it names (`# %% [seam] read_grad`, whose text comes from
minigrad/seams/), a `test` cell names the rule it tests (`# %% [test] L3`), a `cuda` cell is
the visible part of the GPU test. Anything
before the first marker is the file's header (its docstring, lint settings) and never reaches
a notebook.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MARKER = re.compile(r"^# %%(?: \[(?P<kind>[a-z]+)\])?(?P<args>.*)$")
KINDS = ("code", "markdown", "seam", "test", "cuda")


@dataclass(frozen=True)
class Cell:
    kind: str  # one of KINDS
    source: str
    args: str = ""  # what follows the marker: the rule of a test cell


def read_cells(path: Path) -> list[Cell]:
    """The cells of one kit source file, in order."""
    cells: list[Cell] = []
    kind, args, lines = None, "", []
    for line in Path(path).read_text().splitlines():
        match = MARKER.match(line)
        if match:
            if kind is not None:
                cells.append(_cell(kind, args, lines))
            kind, args, lines = match["kind"] or "code", match["args"].strip(), []
            if kind not in KINDS:
                raise ValueError(f"{path}: unknown cell kind {kind!r} in {line!r}")
        elif kind is not None:
            lines.append(line)
    if kind is not None:
        cells.append(_cell(kind, args, lines))
    return cells


def _cell(kind: str, args: str, lines: list[str]) -> Cell:
    if kind == "markdown":
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
