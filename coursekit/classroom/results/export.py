"""Grades as CSV: one row per student, one column per assignment and one per test cell.

An nbgrader export plugin, so that
`nbgrader export --exporter=coursekit.classroom.results.export.WideCsvExportPlugin`
writes the same file.
`<assignment>` is the score after any late penalty (the totals add these; empty: not handed
in), beside `<assignment>/before_penalty`, `<assignment>/penalty`, `<assignment>/late` (`late`
or empty; see deadlines.py) and `<assignment>/status`: `missing` (not handed in), `graded`,
`graded with problems`, `not graded` (the run's status) or `not graded yet` (collected, never
graded). `<assignment>/problems` says why a submission was graded with problems (an import
refused, a syntax error, a dead kernel, a timeout, a broken file), as the grade table's `*`
and the report do. `sis_id` and `section` come from the roster (roster.py). The LMS layouts
are in export_lms.py; `export_grades` writes any of them.
"""

from __future__ import annotations

from nbgrader.plugins import ExportPlugin

from coursekit.classroom import scores as read
from coursekit.classroom.deadlines import read_lateness
from coursekit.classroom.runs import latest_runs
from coursekit.classroom.spreadsheet import write_csv


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
        who = read.identities(db)
        header = ["student_id", "first_name", "last_name", "email", "sis_id", "section",
                  "total", "max_total"]  # fmt: skip
        for name, _ in assignments:
            header.append(name)
            header += [f"{name}/{c}" for c in ("before_penalty", "penalty", "late", "status")]
            header.append(f"{name}/problems")
            header += [f"{name}/{cell}" for _, cell in cells[name]]
        possible = sum(maximum for _, maximum in assignments)
        rows = [header]
        for student in read.students(db):
            row, total = [], 0.0
            for name, _ in assignments:
                if (student.id, name) not in totals:
                    row += ["", "", "", "", "missing", ""] + [""] * len(cells[name])
                    continue
                score, lateness = totals[(student.id, name)][0], late[(student.id, name)]
                total += score - lateness.penalty
                run = runs.get((student.id, name))
                row += [f"{score - lateness.penalty:g}", f"{score:g}", f"{lateness.penalty:g}"]
                row.append("late" if lateness.is_late else "")
                row.append(run.status if run else "not graded yet")
                row.append(problems(run))
                for notebook, cell in cells[name]:
                    row.append(f"{by_cell.get((student.id, name, notebook, cell), 0.0):g}")
            person = who.get(student.id, {})
            names = [student.first_name or "", student.last_name or "", student.email or ""]
            names += [person.get("sis_id", ""), person.get("section", "")]
            rows.append([student.id, *names, f"{total:g}", f"{possible:g}", *row])
        write_csv(path, rows)


def export_csv(course, path) -> str:
    with course.gradebook() as gb:
        WideCsvExportPlugin(to=str(path)).export(gb)
    return str(path)


FORMATS = ("csv", "canvas", "moodle")
DEFAULT_NAMES = {"csv": "grades.csv", "canvas": "grades-canvas.csv", "moodle": "grades-moodle.csv"}


def export_grades(course, path, layout: str = "csv") -> list[str]:
    """Write the grades at path in one of FORMATS; lines to tell the instructor (warnings)."""
    from coursekit.classroom.results.export_lms import export_canvas, export_moodle

    if layout == "csv":
        export_csv(course, path)
        return []
    return {"canvas": export_canvas, "moodle": export_moodle}[layout](course, path)
