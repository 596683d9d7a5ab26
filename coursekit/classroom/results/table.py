"""The grade table: one row per student, one column per assignment, from the gradebook."""

from __future__ import annotations

from dataclasses import dataclass

from coursekit.classroom import scores as read
from coursekit.classroom.deadlines import Late, read_lateness
from coursekit.classroom.printable import printable
from coursekit.classroom.results.export import problems
from coursekit.classroom.runs import latest_runs


@dataclass
class ClassScores:
    students: list[str]
    names: dict[str, str]  # student -> "First Last" (empty where the roster gave none)
    possible: dict[str, float]  # assignment -> its points, for every assignment (name order)
    scores: dict[tuple[str, str], tuple[float, float]]  # (student, assignment) -> (score, max)
    runs: dict  # (student, assignment) -> the latest GradingRun
    late: dict[tuple[str, str], Late]  # (student, assignment) -> its time and penalty

    @property
    def assignments(self) -> list[str]:
        return list(self.possible)

    def final(self, student: str, assignment: str) -> float:
        """The score after the late penalty."""
        penalty = (
            self.late[(student, assignment)].penalty if (student, assignment) in self.late else 0.0
        )
        return self.scores[(student, assignment)][0] - penalty

    def total(self, student: str) -> float:
        """After late penalties."""
        return sum(self.final(student, a) for a in self.possible if (student, a) in self.scores)

    def is_late(self, student: str, assignment: str) -> bool:
        return (student, assignment) in self.late and self.late[(student, assignment)].is_late

    def late_note(self, student: str, assignment: str) -> str:
        """Why a submission is late and what it cost, or ""."""
        if not self.is_late(student, assignment):
            return ""
        return self.late[(student, assignment)].describe(self.scores[(student, assignment)][0])

    @property
    def out_of(self) -> float:
        """A total's denominator: every assignment, handed in or not."""
        return sum(self.possible.values())

    def missing(self, assignment: str) -> list[str]:
        return [s for s in self.students if (s, assignment) not in self.scores]


def class_scores(course) -> ClassScores:
    with course.gradebook() as gb:
        everyone = read.students(gb.db)
        runs = latest_runs(gb.db)
        return ClassScores(
            students=[s.id for s in everyone],
            names={s.id: " ".join(filter(None, (s.first_name, s.last_name))) for s in everyone},
            possible=dict(read.assignments(gb.db)),
            scores=read.submission_scores(gb.db),
            runs=runs,
            late=read_lateness(gb.db, runs),
        )


def grade_table(course) -> str:
    """One row per student: each assignment's score after any late penalty (`-` not handed
    in, `*` with problems, `L` late) and the total out of every assignment; then the reasons,
    the late submissions and who is missing."""
    book = class_scores(course)
    header = ["student", *map(printable, book.assignments), f"total (of {book.out_of:g})"]
    rows = []
    for student in book.students:
        row = [printable(student)]
        for assignment in book.assignments:
            if (student, assignment) not in book.scores:
                row.append("-")
                continue
            maximum = book.scores[(student, assignment)][1]
            flag = " *" if problems(book.runs.get((student, assignment))) else ""
            flag += " L" if book.is_late(student, assignment) else ""
            row.append(f"{book.final(student, assignment):g}/{maximum:g}{flag}")
        row.append(f"{book.total(student):g}/{book.out_of:g}")
        rows.append(row)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append(
        "(- not submitted; L late, after its penalty; * graded with problems or not graded, why:)"
    )
    lines += [
        f"  * {printable(student)} / {printable(assignment)}: {printable(problems(run))}"
        for (student, assignment), run in sorted(book.runs.items())
        if problems(run) and (student, assignment) in book.scores
    ]
    lines += [
        f"  L {printable(student)} / {printable(assignment)}: {book.late_note(student, assignment)}"
        for student, assignment in sorted(book.scores)
        if book.is_late(student, assignment)
    ]
    for assignment in book.assignments:
        missing = book.missing(assignment)
        if missing:
            names = ", ".join(printable(s) for s in missing)
            lines.append(f"missing {printable(assignment)} ({len(missing)}): {names}")
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
