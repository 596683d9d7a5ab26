"""Grades as CSV: one row per student, one column per assignment and one per test cell.

An nbgrader export plugin, so that
`nbgrader export --exporter=coursekit.classroom.export.WideCsvExportPlugin` writes the same file.
Empty cells: not submitted. `<assignment>` is the score after any late penalty (the totals
add these), beside `<assignment>/before_penalty`, `<assignment>/penalty` and
`<assignment>/late` (`late` or empty; see deadlines.py). `<assignment>/problems` says why a
submission was graded with problems (an import refused, a syntax error, a dead kernel, a
timeout, a broken file), as the grade table's `*` and the report do.
"""

from __future__ import annotations

import csv

from nbgrader.plugins import ExportPlugin

from coursekit.classroom import scores as read
from coursekit.classroom.deadlines import read_lateness
from coursekit.classroom.runs import latest_runs

# A spreadsheet reads a cell starting with one of these as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell_text(value: str) -> str:
    """Text a spreadsheet shows as text: a leading apostrophe before what would start a
    formula (names, ids and notes come from students and LMS files)."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def problems(run) -> str:
    """Why a submission was graded with problems or not graded ("" when it was not)."""
    if run is None or run.status == "graded":
        return ""
    return f"{run.status}: " + " | ".join(run.result.get("notes", []))


class WideCsvExportPlugin(ExportPlugin):
    def export(self, gradebook) -> None:
        path = self.to or "grades.csv"
        db = gradebook.db
        assignments = read.assignments(db)
        cells = {
            a.name: sorted((nb.name, c.name) for nb in a.notebooks for c in nb.grade_cells)
            for a in gradebook.assignments
        }
        totals, by_cell = read.submission_scores(db), read.cell_scores(db)
        runs = latest_runs(db)
        late = read_lateness(db, runs)
        header = ["student_id", "first_name", "last_name", "email", "total", "max_total"]
        for name, _ in assignments:
            header += [name, *(f"{name}/{c}" for c in ("before_penalty", "penalty", "late"))]
            header.append(f"{name}/problems")
            header += [f"{name}/{cell}" for _, cell in cells[name]]
        possible = sum(maximum for _, maximum in assignments)
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            for student in read.students(db):
                row, total = [], 0.0
                for name, _ in assignments:
                    if (student.id, name) not in totals:
                        row += [""] * (5 + len(cells[name]))
                        continue
                    score, lateness = totals[(student.id, name)][0], late[(student.id, name)]
                    total += score - lateness.penalty
                    why = problems(runs.get((student.id, name)))
                    row += [f"{score - lateness.penalty:g}", f"{score:g}", f"{lateness.penalty:g}"]
                    row += ["late" if lateness.is_late else "", cell_text(why)]
                    for notebook, cell in cells[name]:
                        row.append(f"{by_cell.get((student.id, name, notebook, cell), 0.0):g}")
                names = [student.first_name or "", student.last_name or "", student.email or ""]
                texts = [cell_text(t) for t in (student.id, *names)]
                writer.writerow([*texts, f"{total:g}", f"{possible:g}", *row])


def export_csv(course, path) -> str:
    with course.gradebook() as gb:
        WideCsvExportPlugin(to=str(path)).export(gb)
    return str(path)
