"""The class list (CSV) and matching the names an LMS puts on files to student ids.

Columns: `id` (required: the student id nbgrader uses), `first_name`, `last_name`, `email`,
and `lms_name` (optional: the name the LMS writes, when it is none of the others). A name
matches a student when, compared without case, accents, spaces and punctuation, it equals
the id, the e-mail address or its local part, "first last", "last first" or the lms_name.
A name that matches nobody or more than one student is reported, never guessed.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from pathlib import Path

FIELDS = ("id", "first_name", "last_name", "email")


def read_roster(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = [
            {k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)
        ]
    if rows and "id" not in rows[0]:
        raise SystemExit(f"{path}: the roster needs an 'id' column (found {', '.join(rows[0])})")
    ids = [row["id"] for row in rows]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise SystemExit(f"{path}: student ids listed twice: {', '.join(repeated)}")
    return rows


def import_roster(gb, rows: list[dict]) -> None:
    """Students into nbgrader's gradebook (names and e-mail included)."""
    for row in rows:
        details = {field: row[field] for field in FIELDS[1:] if row.get(field)}
        gb.update_or_create_student(row["id"], **details)


def key(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", plain.lower())


class Matcher:
    def __init__(self, rows: list[dict]):
        self.keys: dict[str, set[str]] = {}
        for row in rows:
            first, last, email = (
                row.get("first_name", ""),
                row.get("last_name", ""),
                row.get("email", ""),
            )
            names = {row["id"], email, email.partition("@")[0], row.get("lms_name", "")}
            if first and last:
                names |= {f"{first} {last}", f"{last} {first}"}
            for name in names:
                if key(name):
                    self.keys.setdefault(key(name), set()).add(row["id"])

    def match(self, name: str) -> tuple[str | None, str]:
        """(student id, "") or (None, why not)."""
        found = sorted(self.keys.get(key(name), ()))
        if len(found) == 1:
            return found[0], ""
        if not found:
            return None, f"no student on the roster is called {name!r}"
        return None, f"{name!r} could be any of {', '.join(found)} (not guessed)"
