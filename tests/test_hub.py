"""A class on a real JupyterHub (`minigrad-course hub`), driven in a real browser (Debian's
Chromium through Playwright): two students and an instructor, each their own Unix account.

The toy assignment is released (due long ago; one student has an extension) before the hub
starts, which hands the course and its exchange folder over to the instructor's account. Each
student signs in, fetches it from the Assignment List, answers it (the notebook is written as
that student's account: typing is covered by test_browser.py) and submits it from the
Assignment List: one right, one wrong. The instructor collects, grades (`minigrad-course
grade`), writes and releases the feedback (CLI, as the instructor's account) and looks at the
Formgrader. Each student fetches their feedback from the Assignment List and reads their own
score; the late one is told so. A student cannot read the other's home, submission or feedback,
the course directory or its gradebook: each tried as that student's Unix user.

Screenshots of each step: in tmp_path and test-artifacts/browser/ (hub_*.png). The test removes
the accounts, homes, processes and folder it made.
"""

from __future__ import annotations

import pwd
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from browser_support import VIEWPORT, free_port, menu, screenshot
from hub_support import end_processes_of, open_folder, require_root_and_tools, start_hub
from playwright.sync_api import expect
from test_pipeline import roster_text, run, toy_solutions

from coursekit.classroom.accounts import remove_accounts
from coursekit.classroom.hub import proxy_command

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub")]
expect.set_options(timeout=90_000)  # three JupyterLabs on a busy 2-core machine
PASSWORD, ADMIN_PASSWORD = secrets.token_urlsafe(12), secrets.token_urlsafe(32)
ANSWERS = {"right": ("a + b", "a * b"), "wrong": ("a - b", "a * b")}  # 3/3 and 1/3 points


@pytest.fixture
def hub_class(tmp_path):
    require_root_and_tools()
    if proxy_command() is None:
        pytest.skip("configurable-http-proxy is not installed (make install: npm)")
    suffix = secrets.token_hex(3)
    people = {"instructor": f"mgi{suffix}", "right": f"mga{suffix}", "wrong": f"mgb{suffix}"}
    base, hub = open_folder(), None
    try:
        toy_solutions(base / "solutions")
        roster = base / "roster.csv"
        roster.write_text(
            roster_text([(people["right"], "Ada", "A"), (people["wrong"], "Ben", "B")])
        )
        course = base / "course"
        run("init", course, "--solutions", base / "solutions", "--cpu-only",
            "--roster", roster, "--exchange", base / "exchange")  # fmt: skip
        # made by root before the hub: `hub` hands the course and its exchange folder over
        run("release", "-C", course)
        run("deadline", "-C", course, "toy", "2000-01-01 00:00")  # late unless extended
        run("extend", "-C", course, people["right"], "toy", "--days", "30000")
        hub = start_hub(
            base, course, roster, people["instructor"], free_port(), (PASSWORD, ADMIN_PASSWORD)
        )
        hub.accounts = list(people.values())
        yield base, hub, people
    finally:
        if hub is not None:
            hub.stop()
            shutil.copy(hub.log, tmp_path / "hub.log")  # kept: what the hub and servers said
        end_processes_of(people.values())
        remove_accounts(people.values())
        shutil.rmtree(base, ignore_errors=True)
    assert not any(_account(name) for name in people.values())


def _account(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _sign_in(browser, hub, user: str, password=PASSWORD):
    """Sign in on the hub's page; the hub starts the user's JupyterLab (wait with _lab)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(90_000)
    page = context.new_page()
    page.goto(f"{hub.url}/hub/login")
    page.locator("#username_input").fill(user)
    page.locator("#password_input").fill(password)
    page.locator("#login_submit").click()
    return page


def _lab(page, user: str):
    page.wait_for_url(f"**/user/{user}/lab**", timeout=180_000)
    expect(page.locator("#jp-menu-panel")).to_be_visible(timeout=180_000)
    return page


def _assignment_list(page):
    menu(page, "Nbgrader", "Assignment List")
    expect(page.get_by_role("tab", name="Assignments")).to_be_visible()
    return page.locator(".jp-MainAreaWidget:not(.lm-mod-hidden)")


def _answer(hub, student: str, add: str, mul: str) -> None:
    """Write the answers into the fetched notebook, as the student's account."""
    hub.as_user(student, "student", "python", "-c", (
        "import nbformat, sys\n"
        "nb = nbformat.read('toy/toy.ipynb', as_version=4)\n"
        "nb.cells[2].source = 'def add(a, b):\\n    return ' + sys.argv[1]\n"
        "nb.cells[5].source = 'def mul(a, b):\\n    return ' + sys.argv[2]\n"
        "nbformat.write(nb, 'toy/toy.ipynb')"
    ), add, mul)  # fmt: skip


def _denied(user: str, *command) -> str:
    """Run `command` as `user` (setpriv); its error output, asserting it failed."""
    entry = pwd.getpwnam(user)
    done = subprocess.run(
        ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups",
         *map(str, command)], capture_output=True, text=True)  # fmt: skip
    assert done.returncode != 0, f"{user} could run {command}: {done.stdout[:300]}"
    assert "Permission denied" in done.stderr, done.stderr
    return done.stderr


def _allowed(user: str, *command) -> str:
    entry = pwd.getpwnam(user)
    done = subprocess.run(
        ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups",
         *map(str, command)], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, f"{user} could not run {command}: {done.stderr}"
    return done.stdout


def test_a_class_round_trip_on_jupyterhub(hub_class, browser, tmp_path):
    base, hub, people = hub_class
    course, exchange = base / "course", base / "exchange" / "course"
    instructor, students = people["instructor"], {k: people[k] for k in ANSWERS}
    started = time.monotonic()
    timings = {}

    def as_instructor(*command):
        return hub.as_user(instructor, "instructor", "minigrad-course", *command, "-C", course)

    # --- each student: sign in, fetch, answer, submit (Assignment List) ------------------------
    # everyone signs in at once: the hub starts the three JupyterLabs side by side
    pages = {kind: _sign_in(browser, hub, student) for kind, student in students.items()}
    teacher = _sign_in(browser, hub, instructor, ADMIN_PASSWORD)
    for kind, student in students.items():
        page = _lab(pages[kind], student)
        panel = _assignment_list(page)
        # a student's JupyterLab has nbgrader's student side only
        page.locator("#jp-menu-panel").get_by_role("menuitem", name="Nbgrader").click()
        expect(page.locator(".lm-Menu").get_by_text("Assignment List")).to_be_visible()
        expect(page.locator(".lm-Menu").get_by_text("Formgrader")).to_have_count(0)
        page.keyboard.press("Escape")
        released = panel.locator("#released_assignments_list")
        released.locator(".list_item", has_text="toy").get_by_role("button", name="Fetch").click()
        fetched = panel.locator("#fetched_assignments_list .list_item", has_text="toy")
        expect(fetched.get_by_role("button", name="Submit")).to_be_visible()
        screenshot(page, tmp_path, f"hub_1_{kind}_fetched")
        _answer(hub, student, *ANSWERS[kind])
        fetched.get_by_role("button", name="Submit").click()
        submitted = panel.locator("#submitted_assignments_list .list_item", has_text="toy")
        expect(submitted).to_contain_text("UTC")
        screenshot(page, tmp_path, f"hub_2_{kind}_submitted")
    timings["students submit"] = time.monotonic() - started

    # --- the instructor: collect, grade, feedback, release it ----------------------------------
    for step in ("collect", "grade", "feedback -j 1", "release-feedback"):
        done = as_instructor(*step.split())
        timings[step] = time.monotonic() - started
    assert "released 2 feedback pages" in done.stdout, done.stdout
    timings["instructor grades"] = time.monotonic() - started
    _lab(teacher, instructor)
    menu(teacher, "Nbgrader", "Formgrader")
    formgrader = teacher.frame_locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe")
    row = formgrader.locator("tbody tr", has_text="toy")
    expect(row.locator("td.num-submissions")).to_have_text("2")
    screenshot(teacher, tmp_path, "hub_3_instructor_formgrader")
    teacher.context.close()

    # --- each student: fetch feedback, read their own score --------------------------------------
    expected = {"right": "Score: 3.0 / 3.0", "wrong": "Score: 1.0 / 3.0"}
    for kind, student in students.items():
        page = pages[kind]
        page.reload()
        panel = _assignment_list(page)
        submitted = panel.locator("#submitted_assignments_list .list_item", has_text="toy")
        submitted.get_by_role("button", name="Fetch Feedback").click()
        expect(submitted.get_by_text("(view feedback)")).to_be_visible()
        screenshot(page, tmp_path, f"hub_4_{kind}_feedback_fetched")
        found = hub.as_user(student, "student", "find", "toy/feedback", "-name", "*.html").stdout
        pages_found = found.split("\n")[:-1]
        assert len(pages_found) == 1, found  # their own page, and only theirs
        page.goto(f"{hub.url}/user/{student}/files/{quote(pages_found[0])}")
        text = page.locator("body").inner_text()
        screenshot(page, tmp_path, f"hub_5_{kind}_feedback")
        assert expected[kind] in text, text[:2000]
        other = expected["wrong" if kind == "right" else "right"]
        assert other not in text
        assert ("Late:" in text) == (kind == "wrong"), text[:2000]
        page.context.close()
    timings["students read feedback"] = time.monotonic() - started

    # --- isolation: each tried as the wrong student's own Unix user ------------------------------
    ada, ben = students["right"], students["wrong"]
    ada_home, ben_home = Path(pwd.getpwnam(ada).pw_dir), Path(pwd.getpwnam(ben).pw_dir)
    ada_feedback = next((ada_home / "toy" / "feedback").rglob("*.html"))
    from nbgrader.utils import notebook_hash

    def released_page(student):
        secret = (course / "feedback" / student / "toy" / "submission_secret.txt").read_text()
        return exchange / "feedback" / f"{notebook_hash(secret=secret, notebook_id='toy')}.html"

    _denied(ben, "cat", ada_feedback)  # her home
    _denied(ben, "ls", ada_home)
    _denied(ben, "cat", released_page(ada))  # her page in the exchange, even by its name
    _denied(ben, "ls", exchange / "feedback")  # nobody lists the released pages
    _denied(ben, "ls", exchange / "inbound")  # nor the other submissions
    _denied(ben, "cat", course / "submitted" / ada / "toy" / "toy.ipynb")
    _denied(ben, "cat", course / "gradebook.db")
    _denied(ben, "ls", course)
    assert "Score: 1.0 / 3.0" in _allowed(ben, "cat", released_page(ben))  # his own: he can
    assert "Score: 3.0 / 3.0" in _allowed(ada, "cat", ada_feedback)
    _denied(ada, "cat", released_page(ben))
    _denied(ada, "ls", ben_home)
    print("hub round trip, seconds since the hub answered:", timings)
