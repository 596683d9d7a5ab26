"""`minigrad-course feedback`: nbgrader's HTML feedback per student and assignment.

nbgrader's generate_feedback makes the pages (the course's config removes hidden tests, see
hidden.py); the pipeline adds, at the top, what it found wrong with the submission, and
writes a page saying why for a submission that could not be graded at all.
"""

from __future__ import annotations

import html

from coursekit.classroom.course import check_result
from coursekit.classroom.runs import latest_runs


def make_feedback(course, student: str | None = None) -> list[str]:
    """Write feedback/<student>/<assignment>/*.html; returns the pages written."""
    with course.gradebook() as gb:
        runs = [r for r in latest_runs(gb.db).values() if student in (None, r.student_id)]
    api, pages = course.api(), []
    for run in sorted(runs, key=lambda r: (r.student_id, r.assignment_id)):
        folder = course.path("feedback", run.student_id, run.assignment_id)
        notes = run.result["notes"]
        if course.path("autograded", run.student_id, run.assignment_id).is_dir():
            outcome = api.generate_feedback(run.assignment_id, run.student_id, force=True)
            check_result(outcome, f"generate_feedback {run.assignment_id} {run.student_id}")
            for page in sorted(folder.glob("*.html")):
                if notes:
                    _prepend_notes(page, notes)
                pages.append(str(page))
        else:
            folder.mkdir(parents=True, exist_ok=True)
            for notebook in {c["notebook"] for c in run.result["cells"]}:
                page = folder / f"{notebook}.html"
                page.write_text(_not_graded_page(run, notebook, notes))
                pages.append(str(page))
    return pages


def _notes_html(notes: list[str]) -> str:
    items = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    return (
        '<div style="border:2px solid #cf222e;padding:8px;margin:8px">'
        f"<b>Problems with this submission</b><ul>{items}</ul></div>"
    )


def _prepend_notes(page, notes: list[str]) -> None:
    text = page.read_text()
    at = text.find(">", text.find("<body")) + 1
    page.chmod(0o644)
    page.write_text(text[:at] + _notes_html(notes) + text[at:])


def _not_graded_page(run, notebook: str, notes: list[str]) -> str:
    title = html.escape(f"{run.assignment_id}/{notebook}: not graded")
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
        f"<h1>{title}</h1><p>Score: 0 / {run.max_score:g}</p>{_notes_html(notes)}</body></html>"
    )
