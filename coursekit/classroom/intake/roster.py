"""The class list (CSV) and matching the names an LMS puts on files to student ids.

Columns: `id` (required: the student id nbgrader uses), `first_name`, `last_name`, `email`,
and `lms_name` (optional: the name the LMS writes, when it is none of the others). For the
LMS gradebook exports (export_lms.py), optional: `lms_user_id` (Canvas's "ID"), `sis_id`
(Canvas's "SIS User ID", Moodle's "ID number"), `sis_login_id` and `section`. A name
matches a student when, compared without case, accents, spaces and punctuation, it equals
the id, the e-mail address or its local part, "first last", "last first" or the lms_name.
A name that matches nobody or more than one student is reported, never guessed.
"""

from __future__ import annotations

import csv
import unicodedata
from pathlib import Path

from coursekit.classroom.spreadsheet import FORMULA_STARTS

FIELDS = ("id", "first_name", "last_name", "email")
LMS_FIELDS = ("lms_user_id", "sis_id", "sis_login_id", "section")
# What an LMS matches a student by: a leading formula character would have to be escaped in
# the export (spreadsheet.cell_text), and an escaped id matches nobody, so it is refused here.
IDENTIFIERS = ("email", "lms_user_id", "sis_id", "sis_login_id")
LONGEST = 128  # characters: the gradebook's columns for ids
# What nbgrader's pages would read as markup: in an id (also put in a JavaScript string and
# attributes) any quote too; in a name (printed as text) a tag or an entity. O'Brien is fine.
ID_MARKUP = set("<>\"'`&")
NAME_MARKUP = set("<>&")


class RosterError(SystemExit):
    """A roster that cannot be used, with the file and line to fix."""


def read_roster(path: Path) -> list[dict]:
    """The roster's rows; RosterError (a message, not a traceback) naming every bad line at
    once: an id that is empty, could name a path (`/`, `\\`, `.`, `..`), holds control
    characters, or repeats, a row with more fields than the header, markup in a name, an LMS
    field that cannot be exported; or a file that is not UTF-8."""
    problems: list[tuple[int, str]] = []  # (line, why)
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            rows, lines = [], []
            for row in reader:
                line = reader.line_num
                if None in row:  # DictReader files surplus fields under the key None
                    problems.append((line, "more fields than the header names"))
                    continue
                clean = {k.strip(): (v or "").strip() for k, v in row.items()}
                rows.append(clean)
                lines.append(line)
                why = id_problem(clean["id"]) if "id" in clean else ""
                if why:
                    problems.append((line, f"{why}; ids are folder names in the course"))
                problems += [(line, why) for why in _name_problems(clean)]
                problems += [(line, why) for why in _lms_problems(clean)]
    except UnicodeDecodeError as exc:
        raise RosterError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save "
                          "the roster as CSV UTF-8") from None  # fmt: skip
    if rows and "id" not in rows[0]:
        raise RosterError(f"{path}: the roster needs an 'id' column (found {', '.join(rows[0])})")
    ids = [row["id"] for row in rows]
    for student in sorted({i for i in ids if ids.count(i) > 1}):
        twice = [line for line, i in zip(lines, ids) if i == student]
        problems.append((twice[1], f"student id {student!r} listed twice (first on line "
                                   f"{twice[0]})"))  # fmt: skip
    if len(problems) == 1:
        ((line, why),) = problems
        raise RosterError(f"{path}, line {line}: {why}")
    if problems:
        listed = "\n".join(f"{path}, line {line}: {why}" for line, why in sorted(problems))
        raise RosterError(f"{path}: {len(problems)} problems to fix, then run again:\n{listed}")
    return rows


def id_problem(student_id: str) -> str:
    """Why `student_id` cannot be a student's id ("" when it can): it becomes a folder name
    in the course, and nbgrader's pages print it unescaped."""
    if not student_id:
        return "an empty id"
    if student_id in (".", "..") or "/" in student_id or "\\" in student_id:
        return f"the id {student_id!r} could name another folder"
    if any(unicodedata.category(ch).startswith("C") for ch in student_id):
        return f"the id {student_id!r} holds control characters"
    if set(student_id) & ID_MARKUP:
        return f"the id {student_id!r} holds one of {''.join(sorted(ID_MARKUP))}"
    return ""


def _name_problems(row: dict) -> list[str]:
    """nbgrader's Formgrader prints names and ids into its pages unescaped (its templates'
    submission header, a JavaScript string): refuse what would be markup there."""
    return [
        f"the {field} {row[field]!r} holds one of {''.join(sorted(NAME_MARKUP))}, which "
        "nbgrader's pages would read as markup"
        for field in ("first_name", "last_name", "email", "lms_name")
        if set(row.get(field, "")) & NAME_MARKUP
    ]


def _lms_problems(row: dict) -> list[str]:
    """An LMS's ids and the section: printable, not too long, and no identifier an LMS would
    read as a formula (the export cannot escape one without changing what it matches)."""
    problems = []
    for field in LMS_FIELDS:
        value = row.get(field, "")
        if any(unicodedata.category(ch).startswith("C") for ch in value):
            problems.append(f"the {field} {value!r} holds control characters")
        if set(value) & NAME_MARKUP:
            problems.append(f"the {field} {value!r} holds one of {''.join(sorted(NAME_MARKUP))}")
        if len(value) > LONGEST:
            problems.append(f"the {field} is longer than {LONGEST} characters")
    for field in IDENTIFIERS:
        if row.get(field, "").startswith(FORMULA_STARTS):
            problems.append(
                f"the {field} {row[field]!r} starts with {row[field][0]!r}, which a "
                "spreadsheet reads as a formula; an LMS id never does"
            )
    return problems


def import_roster(gb, rows: list[dict]) -> None:
    """Students into nbgrader's gradebook (names, e-mail and the LMS's user id included),
    the SIS ids and section beside them (runs.StudentDetail), each enrolled (runs.Enrolled:
    the ids collect takes from the exchange)."""
    from coursekit.classroom.runs import Enrolled, StudentDetail, ensure_table

    ensure_table(gb.engine)
    for row in rows:
        details = {field: row[field] for field in (*FIELDS[1:], "lms_user_id") if row.get(field)}
        gb.update_or_create_student(row["id"], **details)
        gb.db.merge(Enrolled(student_id=row["id"]))
        extra = {field: row.get(field) or None for field in LMS_FIELDS[1:]}
        if any(extra.values()):
            gb.db.merge(StudentDetail(student_id=row["id"], **extra))
    gb.db.commit()


def key(text: str) -> str:
    """A name compared without case, accents, spaces and punctuation, in any script (a
    Cyrillic А stays apart from a Latin A: no homoglyph is guessed)."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(ch for ch in decomposed if ch.isalnum())


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
