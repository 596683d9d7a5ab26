"""The grade table: one row per student, one column per assignment, from the gradebook."""

from __future__ import annotations

from coursekit.classroom import scores as read
from coursekit.classroom.export import problems
from coursekit.classroom.printable import printable
from coursekit.classroom.runs import latest_runs


def class_scores(course) -> tuple[list[str], list[str], dict, dict]:
    """students, assignments, {(student, assignment): (score, max)}, {(s, a): latest run}."""
    with course.gradebook() as gb:
        students = [s.id for s in read.students(gb.db)]
        assignments = [name for name, _ in read.assignments(gb.db)]
        scores = read.submission_scores(gb.db)
        runs = latest_runs(gb.db)
    return students, assignments, scores, runs


def grade_table(course) -> str:
    students, assignments, scores, runs = class_scores(course)
    header = ["student", *map(printable, assignments), "total"]
    rows = []
    for student in students:
        row, total, possible = [printable(student)], 0.0, 0.0
        for assignment in assignments:
            if (student, assignment) not in scores:
                row.append("-")
                continue
            score, maximum = scores[(student, assignment)]
            run = runs.get((student, assignment))
            flag = "" if run is None or run.status == "graded" else " *"
            row.append(f"{score:g}/{maximum:g}{flag}")
            total, possible = total + score, possible + maximum
        row.append(f"{total:g}/{possible:g}" if possible else "-")
        rows.append(row)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("(- not submitted; * graded with problems or not graded, why:)")
    lines += [
        f"  * {printable(student)} / {printable(assignment)}: {printable(problems(run))}"
        for (student, assignment), run in sorted(runs.items())
        if problems(run) and (student, assignment) in scores
    ]
    return "\n".join(lines)


def grade_summary(results: list[dict]) -> str:
    """What one `grade` run did, in a few lines (the whole class is `table`'s job: printing
    it after every run, a one-student appeal included, read the whole gradebook)."""
    if not results:
        return "nothing to grade: every collected submission is graded and unchanged"
    students = {r["student"] for r in results}
    troubled = [r for r in results if r["status"] != "graded"]
    lines = [
        f"graded {len(results)} submission(s) of {len(students)} student(s): "
        f"{len(results) - len(troubled)} cleanly, {len(troubled)} with problems"
    ]
    lines += [
        f"  * {printable(r['student'])} / {printable(r['assignment'])}: {r['status']}: "
        + printable(" | ".join(r.get("notes", [])))
        for r in sorted(troubled, key=lambda r: (r["student"], r["assignment"]))
    ]
    if len(students) == 1:
        (student,) = students
        for r in results:
            score = sum(c["score"] for c in r["cells"])
            possible = sum(c["max_score"] for c in r["cells"])
            shown = printable(f"{student} / {r['assignment']}")
            lines.append(f"  {shown}: {score:g}/{possible:g}")
    lines.append("the class's grades: minigrad-course table; the CSV: minigrad-course export")
    return "\n".join(lines)
