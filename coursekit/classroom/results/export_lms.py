"""Grades in the layouts an LMS gradebook imports: Canvas and Moodle.

What each importer does with these files was read in its source; the test in
tests/test_lms_export.py names the files and commits and checks our output against them.

Canvas ("Import" in its Gradebook; app/models/gradebook_importer.rb): the header row must
start `Student`, `ID` and end its student columns with `Section`; `SIS User ID` then
`SIS Login ID` after `ID` are read as ids. Every other column is an assignment: a title
"Name (123)" is read as Canvas's assignment 123, else an assignment titled exactly as the
column (ours: the nbgrader name) is used, else Canvas creates one; a title holding "Current
Score", "Final Grade" and the like is dropped as a total. A row whose first cell holds
"Points Possible" gives each assignment's points (a new assignment is created with them; an
existing one keeps its own, as the upload page sends only grades for it). A row is matched by
ID (Canvas's user id, a number: our lms_user_id, written only when it is digits), else SIS
User ID, else SIS Login ID (the roster's sis_id, sis_login_id), else by the Student cell equal
to a user's name or sortable name ("Last, First"); a row matched by none becomes an unknown
student of the upload. In every column a cell that looks like a number has its last "," or
"." read as the decimal point and the others dropped ("1,5" reads 1.5). Canvas has no column
for lateness or notes (its late policy works from its own submission times), so the score
written is the one after this course's late penalty; the plain CSV (export.py) keeps the
details.

Moodle ("Import" > "CSV file" in its gradebook; grade/import/csv/classes/load_data.php):
the instructor maps exactly one column to identify the user (here `ID number`, the roster's
sis_id, to idnumber, or `Email address` to email) and each other column to a grade item, an
item's feedback, a new item or nothing. A row whose identifier is empty is not skipped: its
grades go to the student of the row above (on the first row, the import stops), so a student
who lacks an identifier the file carries is left out of it (and warned of), and an identifier
column is written only when every row written has it. Per assignment: its score and
"<assignment> feedback" (late and the penalty, problems, "not handed in", in words) to map to
that item's feedback. Moodle refuses the import of a score over 100 unless its site allows
unlimited grades.

Both: a score is a plain decimal ("1.7"). An empty score is work not handed in, and it is no
"leave as it is": Moodle sets the item to no grade, Canvas's upload page sends the empty cell
as the new grade where Canvas holds one (listing it as a change first); the warnings count
them. Every text cell is spreadsheet-safe (spreadsheet.write_csv): an escaped name no longer
equals the LMS's, which matters only where no id matched; an identifier that would start a
formula is refused in the roster (roster.py), and one that reached the gradebook some other
way is escaped too, so that its row matches nobody rather than running in a spreadsheet.
"""

from __future__ import annotations

import re
from pathlib import Path

from coursekit.classroom import scores as read
from coursekit.classroom.results.table import ClassScores, class_scores
from coursekit.classroom.spreadsheet import cell_text, write_csv

CANVAS_IDS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_IDS = ("ID number", "Email address", "First name", "Last name")
# Moodle's identifier columns: the header and the roster's field behind it.
MOODLE_KEYS = (("ID number", "sis_id"), ("Email address", "email"))
# Canvas drops an assignment column whose title holds one of these (its totals' columns).
CANVAS_TOTALS = ("Current Score", "Current Points", "Current Grade", "Final Score",
                 "Final Points", "Final Grade", "Override Score", "Override Grade",
                 "Override Status")  # fmt: skip
CANVAS_TITLE_WITH_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z")  # "Name (123)": assignment 123
MOODLE_LARGEST = 100  # Moodle's limit on an imported grade unless unlimited grades are on


def export_canvas(course, path: Path) -> list[str]:
    """Write Canvas's gradebook import CSV at path; the warnings (students Canvas cannot
    match by an id, assignment names it would misread, empty scores) as lines."""
    book, who = _read(course)
    header = [*CANVAS_IDS, *book.assignments]
    points = [_points(p) for p in book.possible.values()]
    rows = [header, ["Points Possible", "", "", "", "", *points]]
    for student in book.students:
        person = who.get(student, {})
        name = ", ".join(filter(None, (person.get("last_name"), person.get("first_name"))))
        canvas_id = person.get("lms_user_id", "")
        rows.append([name or student, canvas_id if canvas_id.isdigit() else "",
                     person.get("sis_id", ""), person.get("sis_login_id", ""),
                     person.get("section", ""),
                     *(_score(book, student, a) for a in book.assignments)])  # fmt: skip
    write_csv(path, rows)
    ids = {s: who.get(s, {}).get("lms_user_id", "") for s in book.students}
    sis = {s: any(who.get(s, {}).get(k) for k in ("sis_id", "sis_login_id")) for s in ids}
    unmatched = [s for s in book.students if not ids[s].isdigit() and not sis[s]]
    warnings = _warn(unmatched, "no lms_user_id (a number), sis_id or sis_login_id",
                     "Canvas can match their rows only by the Student name")  # fmt: skip
    warnings += _warn([s for s, i in ids.items() if i and not i.isdigit()],
                      "an lms_user_id that is not a number (Canvas's user ids are)",
                      "their ID cells are left empty")  # fmt: skip
    warnings += _escaped(book.students, who, ("sis_id", "sis_login_id"), "Canvas")
    for name in book.assignments:
        why = canvas_title_problem(name)
        if why:
            warnings.append(f"the assignment {name!r} {why}; rename it in nbgrader or edit the "
                            "column's title in the file before importing")  # fmt: skip
    return warnings + _empty_scores(book, book.students, "Canvas")


def canvas_title_problem(name: str) -> str:
    """Why Canvas's importer would not read a column titled `name` as the assignment of that
    name ("" when it would)."""
    if CANVAS_TITLE_WITH_ID.match(name):
        return "ends in a number in parentheses, which Canvas reads as its assignment id"
    if any(total in name for total in CANVAS_TOTALS):
        return "holds the title of a Canvas total column, so Canvas ignores the column"
    return ""


def export_moodle(course, path: Path) -> list[str]:
    """Write a CSV for Moodle's gradebook import at path; the warnings as lines."""
    book, who = _read(course)
    keys, students = moodle_identifiers(book.students, who)
    written = {h for h, _ in keys}
    header = [h for h in MOODLE_IDS if h in written or h not in dict(MOODLE_KEYS)]
    for assignment in book.assignments:
        header += [assignment, f"{assignment} feedback"]
    rows = [header]
    for student in students:
        person = who.get(student, {})
        row = [person[field] for _, field in keys]
        row += [person.get("first_name", ""), person.get("last_name", "")]
        for assignment in book.assignments:
            row += [_score(book, student, assignment), _feedback(book, student, assignment)]
        rows.append(row)
    write_csv(path, rows)
    left_out = [s for s in book.students if s not in students]
    lacking = " or no ".join(field for _, field in keys)
    warnings = _warn(left_out, f"no {lacking}",
                     "their rows are left out (Moodle files a row whose identifier is empty "
                     "under the student above it)")  # fmt: skip
    warnings += _escaped(students, who, [field for _, field in keys], "Moodle")
    large = sorted({a for s in students for a in book.assignments
                    if (s, a) in book.scores and book.final(s, a) > MOODLE_LARGEST})  # fmt: skip
    if large:
        warnings.append(f"scores over {MOODLE_LARGEST} in {', '.join(large)}: Moodle refuses "
                        "the whole import unless its site allows unlimited grades")  # fmt: skip
    return warnings + _empty_scores(book, students, "Moodle")


def moodle_identifiers(students: list[str], who: dict) -> tuple[list[tuple[str, str]], list]:
    """The identifier columns to write, as (header, roster field), and the students to write:
    every column is filled on every row written (Moodle maps any one of them). The columns
    every student with an identifier has; when none, the one most have."""
    have = {field: {s for s in students if who.get(s, {}).get(field)} for _, field in MOODLE_KEYS}
    anyone = set().union(*have.values())
    keys = [(h, field) for h, field in MOODLE_KEYS if have[field] == anyone]
    if not keys:
        keys = [max(MOODLE_KEYS, key=lambda key: len(have[key[1]]))]  # sis_id on a tie
    return keys, [s for s in students if all(s in have[field] for _, field in keys)]


def _read(course) -> tuple[ClassScores, dict]:
    book = class_scores(course)
    with course.gradebook() as gb:
        return book, read.identities(gb.db)


def _points(value: float) -> str:
    """A number as both importers read one: a plain decimal with a point, no exponent, at
    most 4 places ("1.7", "3"), never escaped (a spreadsheet reads "-1" as a number)."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _score(book: ClassScores, student: str, assignment: str) -> str:
    return _points(book.final(student, assignment)) if (student, assignment) in book.scores else ""


def _feedback(book: ClassScores, student: str, assignment: str) -> str:
    """In words: missing, late and the penalty, problems ("" for work graded cleanly on time)."""
    from coursekit.classroom.results.export import problems

    if (student, assignment) not in book.scores:
        return "not handed in"
    said = [book.late_note(student, assignment)]
    said.append(problems(book.runs.get((student, assignment))))
    if (student, assignment) not in book.runs:
        said.append("not graded yet")
    return "; ".join(filter(None, said))


def _empty_scores(book: ClassScores, students: list[str], lms: str) -> list[str]:
    empty = sum((s, a) not in book.scores for s in students for a in book.assignments)
    if not empty:
        return []
    return [f"{empty} score(s) are empty (not handed in): importing an empty cell clears a "
            f"grade {lms} already holds for that student and assignment"]  # fmt: skip


def _escaped(students: list[str], who: dict, fields, lms: str) -> list[str]:
    """The students whose identifier in `fields` would start a formula (one that reached the
    gradebook past the roster's check): written escaped, so the LMS matches it to nobody."""
    found = [s for s in students if any(cell_text(who.get(s, {}).get(f, "")) !=
                                        who.get(s, {}).get(f, "") for f in fields)]  # fmt: skip
    return _warn(found, "an identifier a spreadsheet would read as a formula",
                 f"it is written escaped and {lms} matches their rows to no one")  # fmt: skip


def _warn(students: list[str], lacking: str, so: str) -> list[str]:
    from coursekit.classroom.printable import printable

    if not students:
        return []
    shown = ", ".join(printable(s) for s in students[:10]) + (" ..." if len(students) > 10 else "")
    return [f"{len(students)} student(s) have {lacking} in the roster, so {so}: {shown}. Add "
            "those columns to the roster and run `minigrad-course collect --roster ROSTER` "
            "(or init) again, then export."]  # fmt: skip
