"""`minigrad-course feedback`: nbgrader's HTML feedback per student and assignment.

nbgrader's generate_feedback makes the pages (the course's config removes hidden tests, see
hidden.py; submitted markdown and outputs are rendered without their script, see safe_html.py,
also for a course whose config predates that); the pipeline adds, at the top, what it found
wrong with the submission and, when it was late, how late and what it cost (deadlines.py), and
writes a page saying why for a submission that could not be
graded at all. Every page carries a Content-Security-Policy that forbids inline script.
Each page is cut and budgeted for display (display_budget.py): a submission whose pages
cannot be made within PAGE_SECONDS, or come to more than PAGE_BYTES, gets a page saying so,
and the others are made as usual.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from jinja2 import DictLoader, Environment
from markupsafe import Markup
from nbgrader.converters import GenerateFeedback
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets.config import Config

from coursekit.classroom.course import check_result
from coursekit.classroom.deadlines import read_lateness
from coursekit.classroom.printable import printable
from coursekit.classroom.results.display_budget import PAGE_BYTES, PAGE_SECONDS, CutForDisplay
from coursekit.classroom.results.page_style import slim
from coursekit.classroom.runs import ensure_table, latest_runs
from coursekit.classroom.safe_html import FEEDBACK_SCRIPTS, policy_meta, render_safely
from coursekit.exercises import verdict_data
from coursekit.i18n import _, speaking
from coursekit.languages import course_language

# autoescaped: notes quote file names and messages from submissions
PAGES = Environment(
    autoescape=True,
    loader=DictLoader(
        {
            "notes": '{% if notes %}<div style="border:2px solid #cf222e;padding:8px;margin:8px">'
            "<b>{{ heading }}</b><ul>{% for n in notes %}<li>{{ n }}</li>"
            "{% endfor %}</ul></div>{% endif %}",
            "not graded": "<!DOCTYPE html><html><head>{{ policy }}<meta charset='utf-8'>"
            "<title>{{ title }}</title></head><body><h1>{{ title }}</h1><p>{{ score }}</p>"
            '{% include "notes" %}</body></html>',
        }
    ),
)


def make_feedback(
    course, student: str | None = None, workers: int | None = None, verbose=False
) -> list[str]:
    """Write feedback/<student>/<assignment>/*.html; returns the pages written. Submissions
    are rendered `workers` at a time (default: one per core), each by its own nbgrader (its
    log on stderr if verbose)."""
    with course.gradebook() as gb:
        ensure_table(gb.engine)  # a course not graded yet has no runs, not a broken database
        latest = latest_runs(gb.db)
        late = read_lateness(gb.db, latest)
    runs = [r for r in latest.values() if student in (None, r.student_id)]
    if student is not None and not runs:
        raise SystemExit(
            f"no graded submission for student '{printable(student)}': check the id "
            "(`minigrad-course table` lists them), or grade first"
        )
    with speaking(course_language(course.root)):
        jobs = [(str(course.root), course.db_url, r.student_id, r.assignment_id,
                 r.result["notes"] + _late_note(late.get((r.student_id, r.assignment_id)), r.score),
                 r.max_score, [c["notebook"] for c in r.result["cells"]], verbose)
                for r in sorted(runs, key=lambda r: (r.student_id, r.assignment_id))]  # fmt: skip
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    if workers == 1:
        return [page for job in jobs for page in _feedback_for(*job)]
    context = multiprocessing.get_context("spawn")  # nbgrader's state is not fork-safe
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        return [page for pages in pool.map(_feedback_for, *zip(*jobs)) for page in pages]


def _late_note(late, score: float) -> list[str]:
    """The lateness and its penalty, as a note atop the page (score: before the penalty)."""
    if late is None or not late.is_late:
        return []
    return [_("Late: {how}.").format(how=late.describe(score))]


def _feedback_for(root, db_url, student, assignment, notes, max_score, notebooks,
                  verbose=False) -> list[str]:  # fmt: skip
    """One submission's pages (in a worker process: everything it needs is in its arguments),
    their own texts in the class's language (`init --lang`)."""
    with speaking(course_language(root)):
        return _pages_for(root, db_url, student, assignment, notes, max_score, notebooks, verbose)


def _pages_for(root, db_url, student, assignment, notes, max_score, notebooks, verbose):
    from coursekit.classroom.course import Course

    course = Course.at(root, db_url)
    folder = course.path("feedback", student, assignment)
    pages = []
    if course.path("autograded", student, assignment).is_dir():
        try:
            with _time_budget(PAGE_SECONDS):
                _generate(course, student, assignment, verbose)
        except Exception as exc:  # noqa: BLE001  (one submission's pages never stop the others)
            why = _("its feedback could not be made ({error})").format(
                error=printable(str(exc))[:300]
            )
            return _not_shown_pages(folder, assignment, notebooks, max_score, notes, why)
        for page in sorted(folder.glob("*.html")):
            if page.stat().st_size > PAGE_BYTES:
                why = _("its page came to {size} bytes, over {limit}").format(
                    size=f"{page.stat().st_size:,}", limit=f"{PAGE_BYTES:,}"
                )
                page.write_text(_not_graded_page(assignment, page.stem, max_score, [*notes, why]))
            else:
                _finish_page(page, notes)
            pages.append(str(page))
    else:
        folder.mkdir(parents=True, exist_ok=True)
        for notebook in sorted(set(notebooks)):
            page = folder / f"{notebook}.html"
            page.write_text(_not_graded_page(assignment, notebook, max_score, notes))
            pages.append(str(page))
    return pages


def _generate(course, student: str, assignment: str, verbose: bool) -> None:
    """nbgrader's generate_feedback, sanitised, each cell cut to the display budget after
    the course's own steps (display_budget.py)."""
    safely = Config()
    render_safely(safely)
    steps = course.config().GenerateFeedback.get("preprocessors") or list(
        GenerateFeedback.preprocessors.default_value
    )
    safely.GenerateFeedback.preprocessors = [*steps, DropVerdictData, CutForDisplay]
    outcome = course.api(safely).generate_feedback(assignment, student, force=True)
    if verbose:
        sys.stderr.write(outcome.get("log", ""))
    check_result(outcome, f"generate_feedback {assignment} {student}")


class DropVerdictData(NbGraderPreprocessor):
    """The hidden tests' verdicts as data (verdict_data.py) taken out of the page: they are
    for the grading pipeline, and nbconvert, which cannot show them, warns for each."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if verdict_data.MIME not in o.get("data", {})]
        return cell, resources


class _OverBudget(Exception):
    pass


@contextmanager
def _time_budget(seconds: int):
    """Raise _OverBudget in this (main) thread after `seconds`; where signals cannot be
    used (another thread), no budget."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def over(signum, frame):
        raise _OverBudget(f"rendering took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, over)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _not_shown_pages(folder, assignment, notebooks, max_score, notes, why) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    pages = []
    for notebook in sorted(set(notebooks)):
        page = folder / f"{notebook}.html"
        page.write_text(_not_graded_page(assignment, notebook, max_score, [*notes, why]))
        pages.append(str(page))
    return pages


def _finish_page(page, notes: list[str]) -> None:
    """The policy first in <head> (it covers only what follows it), the notes atop <body>, a
    small stylesheet for nbconvert's 117 KB one (page_style.py)."""
    text = slim(page.read_text())
    head = text.find(">", text.find("<head")) + 1
    text = text[:head] + policy_meta(FEEDBACK_SCRIPTS) + text[head:]
    body = text.find(">", text.find("<body")) + 1
    notes_html = PAGES.get_template("notes").render(
        notes=notes, heading=_("Problems with this submission")
    )
    page.chmod(0o644)
    page.write_text(text[:body] + notes_html + text[body:])


def _not_graded_page(assignment: str, notebook: str, max_score: float, notes) -> str:
    return PAGES.get_template("not graded").render(
        policy=Markup(policy_meta(FEEDBACK_SCRIPTS)),
        title=_("{assignment}/{notebook}: not graded").format(
            assignment=assignment, notebook=notebook
        ),
        score=_("Score: {score}").format(score=f"0 / {max_score:g}"),
        notes=notes,
        heading=_("Problems with this submission"),
    )
