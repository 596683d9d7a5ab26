"""Text a spreadsheet shows as text (CSV exports open in one): no cell read as a formula.

Every export writes through `write_csv`, which passes every cell through `cell_text`: one
place, so that no column (a name, an e-mail address, an id, a note) is written raw.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

# A spreadsheet reads a cell starting with one of these as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A plain number ("-1.5", "2e-05") is read as that number, never as a formula.
NUMBER = re.compile(r"\A-?\d+(\.\d+)?([eE][-+]?\d+)?\Z")


def cell_text(value: str) -> str:
    """A leading apostrophe before what would start a formula (names, ids and notes come from
    students, rosters and LMS files); a plain number stays a number."""
    if value.startswith(FORMULA_STARTS) and not NUMBER.match(value):
        return "'" + value
    return value


def write_csv(path: Path, rows) -> None:
    """The rows as CSV (UTF-8 without a byte-order mark, CRLF line ends, as the csv module and
    the LMS importers have it), every cell through cell_text."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([cell_text(str(cell)) for cell in row] for row in rows)
