"""The class's most common mistakes: the likely mistake behind each failed test cell (its top
diagnosis, autograder/diagnoses.py, stored with the cell's verdict by the sealed grade),
counted over submissions, with the students concerned."""

from __future__ import annotations

TOP_MISTAKES = 10
STUDENTS_SHOWN = 30  # per mistake on the page; the count says how many there are in all


def common_mistakes(runs: dict) -> list[dict]:
    """[{"bug", "rule", "text", "submissions", "students", "more"}], most submissions first.
    `runs`: (student, assignment) -> a graded run whose result's cells carry "diagnoses"."""
    found: dict[str, dict] = {}
    for (student, _), run in sorted(runs.items()):
        named = set()
        for cell in run.result.get("cells", []):
            diagnoses = cell.get("diagnoses") or []
            if cell.get("status") == "passed" or not diagnoses:
                continue
            top = diagnoses[0]
            bug = str(top.get("bug", ""))
            if not bug or bug in named:
                continue  # one submission counts once per mistake, whatever its cells
            named.add(bug)
            entry = found.setdefault(
                bug,
                {"bug": bug, "rule": str(top.get("rule", "")), "text": str(top.get("text", "")),
                 "students": []},
            )  # fmt: skip
            if student not in entry["students"]:
                entry["students"].append(student)
            entry["submissions"] = entry.get("submissions", 0) + 1
    ranked = sorted(found.values(), key=lambda e: (-e["submissions"], e["bug"]))[:TOP_MISTAKES]
    for entry in ranked:
        entry["more"] = max(0, len(entry["students"]) - STUDENTS_SHOWN)
        entry["students"] = entry["students"][:STUDENTS_SHOWN]
    return ranked
