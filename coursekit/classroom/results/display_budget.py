"""What one feedback page may cost to show: cells cut before they are highlighted.

A submission chooses the size of its cells and outputs. Highlighting (pygments, through
nbconvert) one answer cell of 1,000,000 lines took 12 minutes and 5.6 GB, and held up the
class's feedback. `CutForDisplay`, the last step before nbconvert renders a page, keeps the
first lines of each long cell source and output and says how much it left out; the graded
notebook itself is never changed (the verdict came from the sealed run, on everything).
`feedback.py` also gives each page a time and a size budget (PAGE_SECONDS, PAGE_BYTES).
"""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

SHOWN_LINES = 1_000  # of one cell's source, or of one output
SHOWN_CHARS = 100_000  # of the same (a cell of few, very long lines)
PAGE_SECONDS = 120  # to render one submission's pages
PAGE_BYTES = 20 << 20  # one page, once rendered
IMAGE_CHARS = 4 << 20  # one embedded image (base64): larger ones are named, not shown


def cut(text: str, what: str) -> str:
    """text, or its first SHOWN_LINES lines (at most SHOWN_CHARS characters) and a line that
    says what was left out (a comment, so that highlighting shows it as one)."""
    if len(text) <= SHOWN_CHARS and text.count("\n") < SHOWN_LINES:
        return text
    head = text[:SHOWN_CHARS]
    lines = head.split("\n")[:SHOWN_LINES]
    kept = "\n".join(lines)
    left = text.count("\n") + 1 - len(lines)
    return (
        f"{kept}\n# ... {what} cut here for display: {left:,} more lines, "
        f"{len(text) - len(kept):,} more characters (the graded notebook has them all)\n"
    )


class CutForDisplay(NbGraderPreprocessor):
    """Each cell's source and each output's text, cut to the display budget."""

    def preprocess_cell(self, cell, resources, index):
        cell.source = cut(cell.source, "this cell")
        for output in cell.get("outputs", []):
            if "text" in output:
                output.text = cut(_joined(output.text), "this output")
            if "traceback" in output:
                output.traceback = cut("\n".join(output.traceback), "this traceback").split("\n")
            data = output.get("data", {})
            for mime, value in list(data.items()):
                if not isinstance(value, str | list):
                    continue
                if not mime.startswith("image/"):
                    data[mime] = cut(_joined(value), "this output")
                elif len(_joined(value)) > IMAGE_CHARS:
                    del data[mime]
                    data["text/plain"] = (
                        f"[an image of {len(_joined(value)):,} characters: not shown]"
                    )
        return cell, resources


def _joined(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)
