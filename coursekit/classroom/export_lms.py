"""Grades in the layouts an LMS gradebook imports: Canvas and Moodle.

Canvas ("Import" in its Gradebook): columns Student ("Last, First"), ID (Canvas's user id),
SIS User ID, SIS Login ID, Section, then one column per assignment, named as the assignment
(Canvas matches it to an assignment of that name or creates one), and a second row "Points
Possible" with each assignment's points. Canvas matches a row by ID, else SIS User ID, else
SIS Login ID: the roster's lms_user_id, sis_id and sis_login_id (roster.py). Canvas's import
has no column for lateness or notes (its own late policy works from its own submission
times), so the score written is the one after this course's late penalty; the plain CSV
(export.py) keeps the details.

Moodle ("Import" > "CSV file" in its gradebook, mapping the columns on its form): ID number
and Email address (either identifies the student), First name, Last name, then per assignment
its score and a feedback column ("<assignment> feedback", mapped to that item's feedback)
saying late, the penalty and any problems in words.

Both: an empty score is "not handed in" (the LMS leaves the grade as it is: its own missing
policy applies); names and notes are spreadsheet-safe (spreadsheet.cell_text).
"""

from __future__ import annotations

import csv
from pathlib import Path

from coursekit.classroom import scores as read
from coursekit.classroom.spreadsheet import cell_text
from coursekit.classroom.table import ClassScores, class_scores

CANVAS_IDS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_IDS = ("ID number", "Email address", "First name", "Last name")


def export_canvas(course, path: Path) -> list[str]:
    """Write Canvas's gradebook import CSV at path; the warnings (students Canvas cannot
    match) as lines for the instructor."""
    book, who = _read(course)
    points = [f"{p:g}" for p in book.possible.values()]
    rows = [[*CANVAS_IDS, *book.assignments], ["Points Possible", "", "", "", "", *points]]
    for student in book.students:
        person = who.get(student, {})
        name = ", ".join(filter(None, (person.get("last_name"), person.get("first_name"))))
        rows.append([name or student, person.get("lms_user_id", ""), person.get("sis_id", ""),
                     person.get("sis_login_id", ""), person.get("section", ""),
                     *(_score(book, student, a) for a in book.assignments)])  # fmt: skip
    _write(path, rows)
    keys = ("lms_user_id", "sis_id", "sis_login_id")
    unmatched = [s for s in book.students if not any(who.get(s, {}).get(k) for k in keys)]
    return _warn(unmatched, "no lms_user_id, sis_id or sis_login_id", "Canvas")


def export_moodle(course, path: Path) -> list[str]:
    """Write a CSV for Moodle's gradebook import at path; the warnings as lines."""
    book, who = _read(course)
    header = list(MOODLE_IDS)
    for assignment in book.assignments:
        header += [assignment, f"{assignment} feedback"]
    rows = [header]
    for student in book.students:
        person = who.get(student, {})
        row = [person.get("sis_id", ""), person.get("email", ""), person.get("first_name", ""),
               person.get("last_name", "")]  # fmt: skip
        for assignment in book.assignments:
            row += [_score(book, student, assignment), _feedback(book, student, assignment)]
        rows.append(row)
    _write(path, rows)
    keys = ("sis_id", "email")
    unmatched = [s for s in book.students if not any(who.get(s, {}).get(k) for k in keys)]
    return _warn(unmatched, "no sis_id or email", "Moodle")


def _read(course) -> tuple[ClassScores, dict]:
    book = class_scores(course)
    with course.gradebook() as gb:
        return book, read.identities(gb.db)


def _score(book: ClassScores, student: str, assignment: str) -> str:
    return f"{book.final(student, assignment):g}" if (student, assignment) in book.scores else ""


def _feedback(book: ClassScores, student: str, assignment: str) -> str:
    """In words: missing, late and the penalty, problems ("" for work graded cleanly on time)."""
    from coursekit.classroom.export import problems

    if (student, assignment) not in book.scores:
        return "not handed in"
    said = [book.late_note(student, assignment)]
    said.append(problems(book.runs.get((student, assignment))))
    if (student, assignment) not in book.runs:
        said.append("not graded yet")
    return "; ".join(filter(None, said))


def _write(path: Path, rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([[cell_text(str(cell)) for cell in row] for row in rows])


def _warn(students: list[str], lacking: str, lms: str) -> list[str]:
    from coursekit.classroom.printable import printable

    if not students:
        return []
    shown = ", ".join(printable(s) for s in students[:10]) + (" ..." if len(students) > 10 else "")
    return [f"{len(students)} student(s) have {lacking} in the roster, so {lms} cannot match "
            f"their rows: {shown}. Add those columns to the roster and run `minigrad-course "
            "collect --roster ROSTER` (or init) again, then export."]  # fmt: skip
