"""`minigrad-course feedback`: nbgrader's HTML feedback per student and assignment.

nbgrader's generate_feedback makes the pages (the course's config removes hidden tests, see
hidden.py; submitted markdown and outputs are rendered without their script, see safe_html.py,
also for a course whose config predates that); the pipeline adds, at the top, what it found
wrong with the submission, and writes a page saying why for a submission that could not be
graded at all. Every page carries a Content-Security-Policy that forbids inline script.
"""

from __future__ import annotations

from jinja2 import DictLoader, Environment
from markupsafe import Markup
from traitlets.config import Config

from coursekit.classroom.course import check_result
from coursekit.classroom.runs import latest_runs
from coursekit.classroom.safe_html import FEEDBACK_SCRIPTS, policy_meta, render_safely

# autoescaped: notes quote file names and messages from submissions
PAGES = Environment(
    autoescape=True,
    loader=DictLoader(
        {
            "notes": '{% if notes %}<div style="border:2px solid #cf222e;padding:8px;margin:8px">'
            "<b>Problems with this submission</b><ul>{% for n in notes %}<li>{{ n }}</li>"
            "{% endfor %}</ul></div>{% endif %}",
            "not graded": "<!DOCTYPE html><html><head>{{ policy }}<meta charset='utf-8'>"
            "<title>{{ title }}</title></head><body><h1>{{ title }}</h1><p>Score: {{ score }}</p>"
            '{% include "notes" %}</body></html>',
        }
    ),
)


def make_feedback(course, student: str | None = None) -> list[str]:
    """Write feedback/<student>/<assignment>/*.html; returns the pages written."""
    with course.gradebook() as gb:
        runs = [r for r in latest_runs(gb.db).values() if student in (None, r.student_id)]
    safely = Config()
    render_safely(safely)
    api, pages = course.api(safely), []
    for run in sorted(runs, key=lambda r: (r.student_id, r.assignment_id)):
        folder = course.path("feedback", run.student_id, run.assignment_id)
        notes = run.result["notes"]
        if course.path("autograded", run.student_id, run.assignment_id).is_dir():
            outcome = api.generate_feedback(run.assignment_id, run.student_id, force=True)
            check_result(outcome, f"generate_feedback {run.assignment_id} {run.student_id}")
            for page in sorted(folder.glob("*.html")):
                _finish_page(page, notes)
                pages.append(str(page))
        else:
            folder.mkdir(parents=True, exist_ok=True)
            for notebook in {c["notebook"] for c in run.result["cells"]}:
                page = folder / f"{notebook}.html"
                page.write_text(_not_graded_page(run, notebook, notes))
                pages.append(str(page))
    return pages


def _finish_page(page, notes: list[str]) -> None:
    """The policy first in <head> (it covers only what follows it), the notes atop <body>."""
    text = page.read_text()
    head = text.find(">", text.find("<head")) + 1
    text = text[:head] + policy_meta(FEEDBACK_SCRIPTS) + text[head:]
    body = text.find(">", text.find("<body")) + 1
    notes_html = PAGES.get_template("notes").render(notes=notes)
    page.chmod(0o644)
    page.write_text(text[:body] + notes_html + text[body:])


def _not_graded_page(run, notebook: str, notes: list[str]) -> str:
    return PAGES.get_template("not graded").render(
        policy=Markup(policy_meta(FEEDBACK_SCRIPTS)),
        title=f"{run.assignment_id}/{notebook}: not graded",
        score=f"0 / {run.max_score:g}",
        notes=notes,
    )
