"""HideHiddenTests: feedback that cannot quote a hidden test.

nbgrader's ClearHiddenTests removes the hidden region from a test cell's source, but the
cell's outputs can still quote it: a traceback shows the failing line of the hidden test.
This preprocessor runs first, while the hidden lines are still known: in graded cells it
blanks every output and traceback line (colours removed) that repeats a hidden line.
"""

from __future__ import annotations

import re

from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
REMOVED = "[hidden test line removed]"
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # tracebacks are coloured token by token


class HideHiddenTests(NbGraderPreprocessor):
    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not utils.is_grade(cell):
            return cell, resources
        hidden = _hidden_lines(cell.source)
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                output.evalue = _scrub(output.evalue, hidden)
                output.traceback = [_scrub(ANSI.sub("", t), hidden) for t in output.traceback]
            elif output.output_type == "stream":
                output.text = _scrub(output.text, hidden)
            else:
                for mime, value in output.get("data", {}).items():
                    if isinstance(value, str):
                        output.data[mime] = _scrub(value, hidden)
        return cell, resources


def _hidden_lines(source: str) -> set[str]:
    lines, inside = {BEGIN, END}, False
    for line in source.splitlines():
        if BEGIN in line:
            inside = True
        elif END in line:
            inside = False
        elif inside and len(line.strip()) > 3:
            lines.add(line.strip())
    return lines


def _scrub(text: str, hidden: set[str]) -> str:
    return "\n".join(
        REMOVED if any(h in line for h in hidden) else line for line in text.split("\n")
    )
