"""`minigrad-course report`: the class at a glance, as HTML with PNG figures.

Score distribution per assignment, pass rate per scenario, the most common failure messages,
the submissions graded with problems (and why), and what collect left out.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from coursekit.classroom.results.export import problems
from coursekit.classroom.results.mistakes import common_mistakes
from coursekit.classroom.results.table import class_scores
from coursekit.classroom.safe_html import policy_meta
from coursekit.i18n import _, ngettext, speaking
from coursekit.languages import course_language

TOP_MESSAGES = 12
# the report's size budget: what a submission's run says is cut to this, so one submission's
# notes (a stored run of any size) never make the page large or slow
NOTE_CHARS = 500
NOTES_PER_SUBMISSION = 10


def _shown(notes: list) -> list[str]:
    """The first notes, each cut to NOTE_CHARS, and how many more there were."""
    shown = [_cut(str(n)) for n in notes[:NOTES_PER_SUBMISSION]]
    if len(notes) > NOTES_PER_SUBMISSION:
        shown.append(
            _("... and {count} more notes").format(count=len(notes) - NOTES_PER_SUBMISSION)
        )
    return shown


def _cut(text: str) -> str:
    return text if len(text) <= NOTE_CHARS else text[:NOTE_CHARS] + " ..."


def summarise(course) -> dict:
    """Plain data behind the report (also what tests check)."""
    book = class_scores(course)
    students, assignments, runs = book.students, book.assignments, book.runs
    percent = defaultdict(list)
    for (student, assignment), (_score, maximum) in sorted(book.scores.items()):
        score = book.final(student, assignment)
        percent[assignment].append(100.0 * score / maximum if maximum else 0.0)
    attempts, passes, messages, problems = Counter(), Counter(), Counter(), []
    for (student, assignment), run in sorted(runs.items()):
        result = run.result
        for scenario in result["scenarios"]:
            attempts[scenario["id"]] += 1
            passes[scenario["id"]] += scenario["passed"]
        for cell in result["cells"]:
            if cell["status"] != "passed" and cell["message"]:
                messages[_cut(str(cell["message"]))] += 1
        if run.status != "graded":
            problems.append(
                {
                    "student": student,
                    "assignment": assignment,
                    "status": run.status,
                    "notes": _shown(result["notes"]),
                }
            )
    cells = Counter()  # (assignment, test cell) -> submissions that failed it
    for (_student, assignment), run in runs.items():
        for cell in run.result["cells"]:
            if cell["status"] != "passed":
                cells[(assignment, cell["cell"])] += 1
    record = course.work / "collect-problems.json"
    collected = json.loads(record.read_text()) if record.is_file() else {}
    return {
        "students": students,
        "assignments": assignments,
        "grades": _grade_rows(book, course),
        "attention": _needs_attention(book, _overdue(course, book)),
        "failed_cells": [
            {"assignment": a, "cell": c, "submissions": n, "rule": _rule_in_words(c)}
            for (a, c), n in sorted(cells.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
        "missing": {a: book.missing(a) for a in assignments},
        "percent": {a: percent.get(a, []) for a in assignments},
        "pass_rate": {s: passes[s] / attempts[s] for s in sorted(attempts)},
        "attempts": dict(attempts),
        "messages": messages.most_common(TOP_MESSAGES),
        "mistakes": [{**m, "text": _(m["text"])} for m in common_mistakes(runs)],
        "problems": problems,
        "collect_problems": collected,
    }


def _grade_rows(book, course) -> list[dict]:
    """One row per student for the page: name, each assignment (score, flag, feedback page)
    and the total out of every assignment."""
    rows = []
    for student in book.students:
        cells = []
        for assignment in book.assignments:
            if (student, assignment) not in book.scores:
                cells.append({"text": "-", "sort": -1, "link": ""})
                continue
            score, maximum = book.final(student, assignment), book.scores[(student, assignment)][1]
            flag = " *" if problems(book.runs.get((student, assignment))) else ""
            flag += " L" if book.is_late(student, assignment) else ""
            pages = sorted(course.path("feedback", student, assignment).glob("*.html"))
            link = f"../feedback/{student}/{assignment}/{pages[0].name}" if pages else ""
            cells.append({"text": f"{score:g}/{maximum:g}{flag}", "sort": score, "link": link})
        total = book.total(student)
        rows.append({"id": student, "name": book.names.get(student, ""), "cells": cells,
                     "total": f"{total:g}/{book.out_of:g}", "sort": total})  # fmt: skip
    return rows


def _needs_attention(book, overdue: dict[str, dict[str, datetime]]) -> list[dict]:
    """What an instructor should look at: not graded or graded with problems, late, then not
    handed in by the due date (a class just given an assignment is not listed)."""
    found = [
        {"student": s, "assignment": a, "why": problems(run)}
        for (s, a), run in sorted(book.runs.items())
        if problems(run)
    ]
    found += [
        {"student": s, "assignment": a, "why": _("late: {how}").format(how=book.late_note(s, a))}
        for s, a in sorted(book.scores)
        if book.is_late(s, a)
    ]
    found += [
        {
            "student": s,
            "assignment": a,
            "why": _("not handed in, due {due} UTC").format(due=f"{due:%Y-%m-%d %H:%M}"),
        }
        for a, students in overdue.items()
        for s, due in students.items()
    ]
    return found


def _overdue(course, book, now: datetime | None = None) -> dict[str, dict[str, datetime]]:
    """assignment -> {student: due date with their extension} of those who have not handed
    it in and whose due date has passed (none for an assignment without a due date)."""
    from nbgrader.api import Assignment
    from sqlalchemy import select

    from coursekit.classroom.deadlines import extensions

    now = now or datetime.now(timezone.utc).replace(tzinfo=None)  # naive UTC, as nbgrader's
    with course.gradebook() as gb:
        due = {
            name: date for name, date in gb.db.execute(select(Assignment.name, Assignment.duedate))
        }
        extra = extensions(gb.db)
    overdue = {}
    for a in book.assignments:
        if due.get(a) is not None:
            dates = {s: due[a] + timedelta(hours=extra.get((s, a), 0.0)) for s in book.missing(a)}
            overdue[a] = {s: when for s, when in dates.items() if when < now}
    return overdue


def _rule_in_words(cell: str) -> str:
    """'test_L3' -> 'L3: .grad of a non-leaf ...' (a course cell's rule), else ''."""
    from autograder.rules import RULES, statement

    rule = cell.removeprefix("test_")
    return f"{rule}: {_(statement(rule))}" if rule in RULES else ""


def write_report(course, out: Path) -> Path:
    """The report in the class's language (`init --lang`: its course_language file)."""
    with speaking(course_language(course.root)):
        return _write_report(course, out)


def _write_report(course, out: Path) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = summarise(course)
    figures = [
        _plot_scores(data, out / "score_distribution.svg"),
        _plot_pass_rates(data, out / "scenario_pass_rate.svg"),
        _plot_messages(data, out / "failure_messages.svg"),
    ]
    page = out / "index.html"
    (out / SORT_SCRIPT).write_text(SORTING)
    page.write_text(_page(data, [f for f in figures if f]))
    return page


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# The figures speak the class's language too. matplotlib's own fonts have no Chinese glyphs,
# and the report must not need a system font: the figures are SVG whose words stay text
# (svg.fonttype "none"), drawn by the browser with its fonts, as the page's own words are.
def _plot_scores(data, path: Path):
    assignments = data["assignments"]
    if not assignments:
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(
        1, len(assignments), figsize=(3 * len(assignments), 2.6), sharey=True, squeeze=False
    )
    for ax, assignment in zip(axes[0], assignments):
        ax.hist(data["percent"][assignment], bins=range(0, 101, 10), color="#4c72b0")
        ax.set_title(assignment, fontsize=9)
        ax.set_xlabel(_("score (%)"))
    axes[0][0].set_ylabel(_("submissions"))
    _save(fig, path)
    return path.name, _("Score distribution per assignment")


def _plot_pass_rates(data, path: Path):
    # barh draws the first bar at the bottom: reversed, the hardest scenarios come out on top
    rates = sorted(data["pass_rate"].items(), key=lambda kv: (kv[1], kv[0]))[::-1]
    if not rates:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.22 * len(rates) + 1))
    ax.barh(
        [f"{s} ({data['attempts'][s]})" for s, _ in rates],
        [100 * r for _, r in rates],
        color="#55a868",
    )
    ax.set_xlim(0, 100)
    ax.margins(y=0.01)  # the default 5% leaves several empty rows above and below
    ax.set_xlabel(_("pass rate (%), submissions in brackets"))
    ax.tick_params(axis="y", labelsize=7)
    _save(fig, path)
    return path.name, _("Pass rate per scenario")


def _plot_messages(data, path: Path):
    messages = data["messages"][::-1]
    if not messages:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(messages) + 1))
    ax.barh([_short(m, 70) for m, _ in messages], [n for _, n in messages], color="#c44e52")
    ax.set_xlabel(_("test cells"))
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.tick_params(axis="y", labelsize=7)
    _save(fig, path)
    return path.name, _("Most common failure messages")


def _save(fig, path: Path) -> None:
    import warnings

    import matplotlib

    with warnings.catch_warnings(), matplotlib.rc_context(FIGURE_FILE):
        # matplotlib lays the words out with its own font, which has no Chinese glyph (it
        # measures each as a box at least one em wide, room enough), and says so for each
        # character; the browser draws them, with a font that has them
        warnings.filterwarnings("ignore", r"Glyph \d+ \(.*\) missing from font", UserWarning)
        fig.tight_layout()
        # bbox_inches="tight" widens the canvas to long tick labels instead of cutting them off
        fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    _pyplot().close(fig)


# words as <text> in the browser's fonts; ids the same from run to run (a report rewritten
# with the same data is the same file)
FIGURE_FILE = {"svg.fonttype": "none", "svg.hashsalt": "minigrad-course report"}


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# Sorting the grade table by a column, from a file beside the page (the page's policy allows
# script from its own folder only, never inline).
SORT_SCRIPT = "sort.js"
SORTING = """document.querySelectorAll("table.sortable th").forEach((th, col) => {
  th.style.cursor = "pointer";
  th.addEventListener("click", () => {
    const body = th.closest("table").tBodies[0];
    const up = th.dataset.up !== "1";
    th.dataset.up = up ? "1" : "0";
    const key = (row) => row.cells[col].dataset.sort ?? row.cells[col].textContent;
    const rows = Array.from(body.rows).sort((a, b) => {
      const x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
      const order = isNaN(nx) || isNaN(ny) ? x.localeCompare(y) : nx - ny;
      return up ? order : -order;
    });
    rows.forEach((row) => body.appendChild(row));
  });
});
"""

# report.html beside this file, its fixed texts through the catalogue (jinja2's i18n, the
# newstyle gettext: placeholders autoescaped as everything else)
PAGE = Environment(
    loader=FileSystemLoader(Path(__file__).parent), autoescape=True, extensions=["jinja2.ext.i18n"]
)
PAGE.install_gettext_callables(_, ngettext, newstyle=True)


def _page(data, figures) -> str:
    left_out = [(a, p) for a, found in sorted(data["collect_problems"].items()) for p in found]
    return PAGE.get_template("report.html").render(
        policy=Markup(policy_meta("'self'")), data=data, figures=figures, left_out=left_out,
        sort_script=SORT_SCRIPT,
    )  # fmt: skip
