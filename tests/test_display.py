"""What the instructor and the students see of a hostile submission (issue 15: display, appeal).

One toy class (tests/test_pipeline.py's assignment, graded in nbgrader's kernel) where
mallory hands in script everywhere a notebook can hold it: a markdown cell, HTML and
JavaScript outputs of her answer, and a file name; and eve's student id holds terminal
escape sequences. Pages are parsed, not searched for strings: what counts is what a browser
would run.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from nbformat.v4 import new_markdown_cell
from test_pipeline import answered, hand_in, run, runs, sqlite_url, toy_solutions

pytestmark = pytest.mark.xdist_group("display")  # one worker grades the module's classes

MARK = "OWNED"  # what every payload calls; its text may show, it must never run
HOSTILE_MARKDOWN = (
    f'Look: <img src=x onerror="{MARK}()"> <script>{MARK}(2)</script> '
    f'<a href="javascript:{MARK}(3)">link</a> <svg onload="{MARK}(4)"></svg> '
    f'<iframe srcdoc="<script>{MARK}(5)</script>"></iframe> [my plot](plot.html) '
    "the rest of my text"
)
HOSTILE_OUTPUT = (
    "from IPython.display import HTML, Javascript, display\n"
    f"display(HTML('<b onmouseover=\"{MARK}(6)\">bold</b><script>{MARK}(7)</script>'))\n"
    f"display(Javascript('{MARK}(8)'))\n"
)
HOSTILE_FILE = f'<img src=x onerror="{MARK}(9)">.ipynb'
# a page of its own, which the Formgrader would serve on the Jupyter server's origin; the
# notebook links to it
HOSTILE_PAGES = {
    "plot.html": f"<script>{MARK}(10)</script>",
    "plot.svg": f'<svg onload="{MARK}(11)"/>',
}
EVE = "eve\x1b]0;owned\x07\x1b[2J"  # retitles and clears a terminal


class ActiveContent(HTMLParser):
    """What in a page would run MARK: an inline script, an event handler, a javascript: URL,
    or a frame's own document."""

    def __init__(self, page: str):
        super().__init__()
        self.found, self.text, self._in_script = [], [], False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"
        for name, value in attrs:
            value = value or ""
            active = name.startswith("on") or name == "srcdoc" or "javascript:" in value
            if active and MARK in value:
                self.found.append(f"<{tag} {name}={value!r}>")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and MARK in data:
            self.found.append(f"<script>{data.strip()}</script>")
        elif not self._in_script:
            self.text.append(data)


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("display")
    course = root / "course"
    run("init", course, "--solutions", toy_solutions(root / "solutions"), "--cpu-only")
    nb = answered(course, preamble=HOSTILE_OUTPUT)
    nb.cells.insert(1, new_markdown_cell(HOSTILE_MARKDOWN))
    hand_in(course, "mallory", nb)
    hand_in(course, "mallory", answered(course), name=HOSTILE_FILE)
    for name, text in HOSTILE_PAGES.items():
        hand_in(course, "mallory", text, name=name)
    hand_in(course, EVE, answered(course))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        run("grade", "-C", course, "-j", "2")
    run("feedback", "-C", course)
    return course, out.getvalue() + err.getvalue()


def test_the_feedback_page_runs_nothing_a_student_wrote_and_keeps_the_text(hostile_class):
    course, _ = hostile_class
    (page,) = (course / "feedback" / "mallory" / "toy").glob("*.html")
    shown = ActiveContent(page.read_text())
    assert shown.found == []
    text = " ".join(shown.text)
    assert "the rest of my text" in text and "bold" in text  # sanitised, not dropped
    assert f"{MARK}(2)" in text  # the script's text, shown as text
    assert HOSTILE_FILE in text  # the note naming the file, escaped


def test_feedback_is_inert_also_for_a_course_configured_before_the_sanitiser(
    hostile_class, tmp_path
):
    course, _ = hostile_class
    older = tmp_path / "course"
    shutil.copytree(course, older)
    config = older / "nbgrader_config.py"
    config.write_text(config.read_text().replace("render_safely(c)", ""))
    run("feedback", "-C", older, "--student", "mallory")
    (page,) = (older / "feedback" / "mallory" / "toy").glob("*.html")
    assert ActiveContent(page.read_text()).found == []


def test_the_formgrader_renders_the_submission_without_its_script(hostile_class, monkeypatch):
    """The Formgrader's own exporter, configured as the Formgrader configures it: from the
    nbgrader_config.py in the directory the server runs in (tools/lab.py: the course)."""
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension

    course, _ = hostile_class
    monkeypatch.chdir(course)
    formgrader = FormgradeExtension()
    formgrader.root_dir = str(course)
    formgrader.initialize([])

    class WebApp:
        settings: dict = {}

    formgrader.init_tornado_settings(WebApp)
    exporter = WebApp.settings["nbgrader_exporter"]
    resources = {  # as nbgrader's SubmissionHandler passes them
        "assignment_id": "toy", "notebook_id": "toy", "submission_id": "x", "index": 0,
        "total": 1, "base_url": "", "student": "mallory", "last_name": "", "first_name": "",
        "notebook_path": "autograded/mallory/toy/toy.ipynb",
    }  # fmt: skip
    page, _ = exporter.from_filename(
        str(course / "autograded" / "mallory" / "toy" / "toy.ipynb"), resources=resources
    )
    shown = ActiveContent(page)
    assert shown.found == []
    assert "the rest of my text" in " ".join(shown.text)


def test_pages_handed_in_are_not_served_from_the_graded_copy(hostile_class):
    """The Formgrader serves autograded/<student>/<assignment>/ at its own origin."""
    course, _ = hostile_class
    graded = course / "autograded" / "mallory" / "toy"
    assert (graded / "toy.ipynb").is_file()
    for name in HOSTILE_PAGES:
        assert not (graded / name).exists()
        assert (course / "submitted" / "mallory" / "toy" / name).is_file()  # kept as handed in
    notes = [n for r in runs(sqlite_url(course)) if r["student_id"] == "mallory"
             for n in json.loads(r["result_json"])["notes"]]  # fmt: skip
    assert all(any(n.startswith(f"{name}: ") for n in notes) for name in HOSTILE_PAGES), notes


def _policy(page: str) -> str:
    class Meta(HTMLParser):
        policy, before = None, []

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy":
                Meta.policy = Meta.policy or attrs["content"]
            elif tag == "script" and Meta.policy is None:
                Meta.before.append(tag)

    Meta().feed(page)
    assert not Meta.before, "a script comes before the policy, which covers only what follows"
    return Meta.policy or ""


def _forbids_inline_script(policy: str) -> bool:
    directives = dict((d.strip().split(" ", 1) + [""])[:2] for d in policy.split(";") if d.strip())
    scripts = directives.get("script-src", directives.get("default-src", "*"))
    return bool(policy) and "'unsafe-inline'" not in scripts and "*" not in scripts.split()


def test_every_page_we_write_forbids_inline_script(hostile_class):
    course, _ = hostile_class
    run("report", "-C", course)
    pages = [*(course / "feedback").rglob("*.html"), course / "report" / "index.html"]
    assert len(pages) >= 3
    for page in pages:
        assert _forbids_inline_script(_policy(page.read_text())), page


# --- in a browser: what actually runs -------------------------------------------------------
def _ran(browser, page: Path) -> list:
    """What MARK was called with while the page loaded (file://, offline)."""
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.add_init_script(f"window.ran = []; window.{MARK} = (n) => window.ran.push(n ?? 0);")
        tab.goto(page.as_uri(), wait_until="load")
        tab.wait_for_timeout(300)  # error events of images that fail to load
        return tab.evaluate("window.ran")
    finally:
        context.close()


def test_a_browser_runs_nothing_on_the_feedback_page(hostile_class, browser):
    course, _ = hostile_class
    (page,) = (course / "feedback" / "mallory" / "toy").glob("*.html")
    assert _ran(browser, page) == []


def test_the_policy_alone_stops_inline_script_in_a_browser(browser, tmp_path):
    """The payload unsanitised: it runs on a page without the policy (so this test can
    fail), and not on the same page with it."""
    from coursekit.classroom.safe_html import FEEDBACK_SCRIPTS, policy_meta

    body = f'<img src="x" onerror="{MARK}(1)"><script>{MARK}(2)</script>'
    bare, guarded = tmp_path / "bare.html", tmp_path / "guarded.html"
    bare.write_text(f"<!DOCTYPE html><html><head></head><body>{body}</body></html>")
    guarded.write_text(
        f"<!DOCTYPE html><html><head>{policy_meta(FEEDBACK_SCRIPTS)}</head><body>{body}</body>"
        "</html>"
    )
    assert sorted(_ran(browser, bare)) == [1, 2]
    assert _ran(browser, guarded) == []


def test_a_not_graded_page_escapes_its_notes_and_forbids_inline_script():
    from coursekit.classroom.results.feedback import _not_graded_page

    page = _not_graded_page("toy", "toy", 3.0, [f"{HOSTILE_FILE}: not a valid notebook"])
    shown = ActiveContent(page)
    assert shown.found == [] and HOSTILE_FILE in " ".join(shown.text)
    assert _forbids_inline_script(_policy(page))


def test_the_report_escapes_ids_and_notes():
    from coursekit.classroom.results.report import _page

    data = {
        "students": [HOSTILE_FILE], "assignments": ["toy"], "messages": [(HOSTILE_FILE, 1)],
        "problems": [{"student": HOSTILE_FILE, "assignment": "toy", "status": "not graded",
                      "notes": [f"<script>{MARK}()</script>"]}],
        "collect_problems": {"toy": [f"{HOSTILE_FILE}: no student on the roster"]},
        "missing": {"toy": [HOSTILE_FILE]}, "failed_cells": [],
        "mistakes": [{"submissions": 1, "rule": "L3", "text": f"<script>{MARK}()</script>",
                      "students": [HOSTILE_FILE], "more": 0}],
        "attention": [{"student": HOSTILE_FILE, "assignment": "toy", "why": HOSTILE_FILE}],
        "grades": [{"id": HOSTILE_FILE, "name": HOSTILE_FILE, "total": "0/3", "sort": 0,
                    "cells": [{"text": "0/3", "sort": 0, "link": HOSTILE_FILE}]}],
    }  # fmt: skip
    shown = ActiveContent(_page(data, []))
    assert shown.found == [] and HOSTILE_FILE in " ".join(shown.text)


# --- the instructor's terminal ---------------------------------------------------------------
@pytest.mark.parametrize("command", ["grade", "table"])
def test_ids_reach_the_terminal_escaped(hostile_class, command):
    course, printed = hostile_class  # what `grade` printed: its progress lines and summary
    if command == "table":
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            run("table", "-C", course)
        printed = out.getvalue()
    assert "\x1b" not in printed and "\x07" not in printed
    assert "eve\\x1b]0;owned\\x07\\x1b[2J" in printed


def test_escaping_keeps_every_script_and_shows_controls():
    from coursekit.classroom.printable import printable

    assert printable("Мария Zoë 王芳") == "Мария Zoë 王芳"
    assert printable("a\x1b[2Jb\u202ec\r") == "a\\x1b[2Jb\\u202ec\\r"


# --- appeals ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def appeal_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("appeal")
    course = root / "course"
    run("init", course, "--solutions", toy_solutions(root / "solutions"), "--cpu-only")
    hand_in(course, "ben", answered(course, mul="a + b"))  # test_mul fails
    run("grade", "-C", course)
    return course


def _runs_of(course: Path, student: str) -> list[dict]:
    return [
        {**r, "notes": json.loads(r["result_json"])["notes"]}
        for r in runs(sqlite_url(course))
        if r["student_id"] == student
    ]


@pytest.mark.parametrize("change", ["none", "files"])
def test_an_appeal_reuses_seeds_only_for_the_same_files(appeal_class, change):
    course = appeal_class
    before = _runs_of(course, "ben")[-1]
    if change == "files":  # the student read the seeds in the feedback, then handed in anew
        nb = answered(course)
        nb.cells[5].source += "\n# replays the values the feedback showed"
        hand_in(course, "ben", nb)
    run("grade", "-C", course, "--student", "ben")
    after = _runs_of(course, "ben")[-1]
    if change == "none":
        assert after["seed"] == before["seed"] and after["notes"] == []
    else:
        assert after["seed"] != before["seed"]
        assert any("changed since they were last graded" in n for n in after["notes"])
        run("feedback", "-C", course, "--student", "ben")
        (page,) = (course / "feedback" / "ben" / "toy").glob("*.html")
        assert "changed since they were last graded" in page.read_text()


def test_the_fingerprint_tells_apart_files_that_run_together(tmp_path):
    """name\\0bytes\\0 strung together: one file could mimic two."""
    from coursekit.classroom.runs import fingerprint

    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    (one / "a").write_bytes(b"x\0b\0y")
    (two / "a").write_bytes(b"x")
    (two / "b").write_bytes(b"y")
    assert fingerprint(one) != fingerprint(two)
    assert fingerprint(one) == fingerprint(one)
