"""Text a spreadsheet shows as text (CSV exports open in one): no cell read as a formula."""

from __future__ import annotations

# A spreadsheet reads a cell starting with one of these as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell_text(value: str) -> str:
    """A leading apostrophe before what would start a formula (names, ids and notes come from
    students, rosters and LMS files)."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value
