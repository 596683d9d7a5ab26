"""A class on a real JupyterHub (`minigrad-course hub`), driven in a real browser (Debian's
Chromium through Playwright): two students and an instructor, each their own Unix account.

The course's real `leaf_nodes` assignment (graded sealed) is released (due long ago; one
student has an extension) before the hub starts, which hands the course and its exchange folder
over to the instructor's account. Each student signs in, fetches it from the Assignment List,
answers it (the notebook is written as that student's account: typing is covered by
test_browser.py) and submits it from the Assignment List: one with the reference answers, one
with a planted bug (coursekit/exercises/planted.py). The instructor collects and grades
(`minigrad-course grade`, as the instructor's account: the sealed run is then told it lacks its
uid layer, and says so plainly); root regrades as the README advises (every layer, and what it
wrote goes back to the instructor); the instructor writes and releases the feedback (CLI) and
looks at the Formgrader. Each student fetches their feedback from the Assignment List and
reads their own score; the late one is told so. A student cannot read the other's home,
submission or feedback, the course directory or its gradebook: each tried as that student's
Unix user.

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

import nbformat
import pytest
from browser_support import VIEWPORT, free_port, menu, screenshot
from hub_support import BIN, end_processes_of, open_folder, require_root_and_tools, start_hub
from playwright.sync_api import expect
from rosters import roster_text
from test_pipeline import REPO, run

from coursekit.classroom.hub.accounts import exists, remove_accounts
from coursekit.classroom.hub.launch import proxy_command
from coursekit.exercises.planted import BUGS, answered

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub")]
expect.set_options(timeout=90_000)  # three JupyterLabs on a busy 2-core machine
PASSWORD, ADMIN_PASSWORD = secrets.token_urlsafe(12), secrets.token_urlsafe(32)
NAME = "leaf_nodes"  # a real assignment: its test cells state their checks, graded sealed
BUG = next(bug for bug in BUGS[NAME] if bug.rule == "L8")  # the wrong answer's planted bug
ANSWERS = {"right": None, "wrong": BUG}


@pytest.fixture
def hub_class(tmp_path):
    require_root_and_tools()
    if proxy_command() is None:
        pytest.skip("Traefik, the hub's proxy, is not installed: pip install -e '.[hub]'")
    suffix = secrets.token_hex(3)
    people = {"instructor": f"mgi{suffix}", "right": f"mga{suffix}", "wrong": f"mgb{suffix}"}
    base, hub = open_folder(), None
    try:
        shutil.copytree(REPO / "solutions" / NAME, base / "solutions" / NAME)
        roster = base / "roster.csv"
        roster.write_text(
            roster_text([(people["right"], "Ada", "A"), (people["wrong"], "Ben", "B")])
        )
        course = base / "course"
        run("init", course, "--solutions", base / "solutions", "--cpu-only",
            "--roster", roster, "--exchange", base / "exchange")  # fmt: skip
        # made by root before the hub: `hub` hands the course and its exchange folder over
        run("release", "-C", course)
        run("deadline", "-C", course, NAME, "2000-01-01 00:00")  # late unless extended
        run("extend", "-C", course, people["right"], NAME, "--days", "30000")
        # what each student's notebook will hold, readable by them (written here as root)
        released = course / "release" / NAME / f"{NAME}.ipynb"
        (base / "answers").mkdir(mode=0o755)
        for kind, bug in ANSWERS.items():
            (base / "answers" / f"{kind}.ipynb").write_text(answered(released, NAME, bug))
            (base / "answers" / f"{kind}.ipynb").chmod(0o644)
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
    assert not any(exists(name) for name in people.values())


def _points(course: Path) -> dict[str, float]:
    """Each test cell's points (the course is --cpu-only: every one can be earned)."""
    nb = nbformat.read(course / "source" / NAME / f"{NAME}.ipynb", as_version=4)
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    return {m["grade_id"]: m["points"] for m in meta if m.get("grade")}


def _gradebook_scores(course: Path) -> dict[str, dict[str, float]]:
    """student -> test cell -> score, from the gradebook (read as root)."""
    from test_pipeline import gradebook_scores, sqlite_url

    return {student: cells for (student, _), cells in gradebook_scores(sqlite_url(course)).items()}


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


def _answer(hub, base: Path, student: str, kind: str) -> None:
    """Write the answers into the fetched notebook, as the student's account."""
    hub.as_user(
        student, "student", "cp", base / "answers" / f"{kind}.ipynb", f"{NAME}/{NAME}.ipynb"
    )


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
        released.locator(".list_item", has_text=NAME).get_by_role("button", name="Fetch").click()
        fetched = panel.locator("#fetched_assignments_list .list_item", has_text=NAME)
        expect(fetched.get_by_role("button", name="Submit")).to_be_visible()
        screenshot(page, tmp_path, f"hub_1_{kind}_fetched")
        _answer(hub, base, student, kind)
        fetched.get_by_role("button", name="Submit").click()
        submitted = panel.locator("#submitted_assignments_list .list_item", has_text=NAME)
        expect(submitted).to_contain_text("UTC")
        screenshot(page, tmp_path, f"hub_2_{kind}_submitted")
    timings["students submit"] = time.monotonic() - started

    # --- the instructor: collect, grade (sealed), feedback, release it --------------------------
    as_instructor("collect")
    timings["collect"] = time.monotonic() - started
    graded = as_instructor("grade").stdout
    timings["grade"] = time.monotonic() - started
    # not root: the sealed run lacks its own uid, every result says so, and so does `grade`, once
    assert "2 with problems" in graded and graded.count("SEALED RUN DEGRADED") == 2, graded
    assert "NOTE: sealed grading is DEGRADED on this machine" in graded, graded
    assert f"student code ran as your own account ({instructor})" in graded, graded
    assert f"sudo minigrad-course grade -C {course}" in graded, graded
    if _allowed(instructor, "unshare", "--user", "echo", "userns") == "userns\n":
        assert "namespace:" not in graded, graded  # bubblewrap made it as the instructor
    else:  # unprivileged user namespaces are off on this host: said, not hidden
        assert "namespace: MISSING" in graded, graded
    scores = _gradebook_scores(course)
    # what the README advises: grade as root, every layer; the instructor goes on without root
    regraded = subprocess.run([BIN / "minigrad-course", "grade", "-C", course, "--force"],
                              capture_output=True, text=True, timeout=300)  # fmt: skip
    timings["grade as root"] = time.monotonic() - started
    assert regraded.returncode == 0, regraded.stderr
    assert "2 cleanly, 0 with problems" in regraded.stdout, regraded.stdout
    assert "DEGRADED" not in regraded.stdout, regraded.stdout
    assert _gradebook_scores(course) == scores
    root_owned = subprocess.run(["find", course, "-user", "root"], capture_output=True, text=True)
    assert root_owned.stdout == "", root_owned.stdout  # handed back to the instructor
    points, wrong = _points(course), students["wrong"]
    lost = {cell: points[cell] - scores[wrong][cell]
            for cell in points if scores[wrong][cell] != points[cell]}  # fmt: skip
    assert scores[students["right"]] == points, scores
    assert lost == {f"test_{BUG.rule}": points[f"test_{BUG.rule}"]}, scores
    for step in ("feedback -j 1", "release-feedback"):
        done = as_instructor(*step.split())
        timings[step] = time.monotonic() - started
    assert "released 2 feedback pages" in done.stdout, done.stdout
    timings["instructor grades"] = time.monotonic() - started
    _lab(teacher, instructor)
    menu(teacher, "Nbgrader", "Formgrader")
    formgrader = teacher.frame_locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe")
    row = formgrader.locator("tbody tr", has_text=NAME)
    expect(row.locator("td.num-submissions")).to_have_text("2")
    screenshot(teacher, tmp_path, "hub_3_instructor_formgrader")
    teacher.context.close()

    # --- each student: fetch feedback, read their own score --------------------------------------
    total, bug_points = sum(points.values()), points[f"test_{BUG.rule}"]
    expected = {"right": f"Score: {total:.1f} / {total:.1f}",
                "wrong": f"Score: {total - bug_points:.1f} / {total:.1f}"}  # fmt: skip
    for kind, student in students.items():
        page = pages[kind]
        page.reload()
        panel = _assignment_list(page)
        submitted = panel.locator("#submitted_assignments_list .list_item", has_text=NAME)
        submitted.get_by_role("button", name="Fetch Feedback").click()
        expect(submitted.get_by_text("(view feedback)")).to_be_visible()
        screenshot(page, tmp_path, f"hub_4_{kind}_feedback_fetched")
        found = hub.as_user(
            student, "student", "find", f"{NAME}/feedback", "-name", "*.html"
        ).stdout
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
    ada_feedback = next((ada_home / NAME / "feedback").rglob("*.html"))
    from nbgrader.utils import notebook_hash

    def released_page(student):
        secret = (course / "feedback" / student / NAME / "submission_secret.txt").read_text()
        return exchange / "feedback" / f"{notebook_hash(secret=secret, notebook_id=NAME)}.html"

    _denied(ben, "cat", ada_feedback)  # her home
    _denied(ben, "ls", ada_home)
    _denied(ben, "cat", released_page(ada))  # her page in the exchange, even by its name
    _denied(ben, "ls", exchange / "feedback")  # nobody lists the released pages
    _denied(ben, "ls", exchange / "inbound")  # nor the other submissions
    _denied(ben, "cat", course / "submitted" / ada / NAME / f"{NAME}.ipynb")
    _denied(ben, "cat", course / "gradebook.db")
    _denied(ben, "ls", course)
    assert expected["wrong"] in _allowed(ben, "cat", released_page(ben))  # his own: he can
    assert expected["right"] in _allowed(ada, "cat", ada_feedback)
    _denied(ada, "cat", released_page(ben))
    _denied(ada, "ls", ben_home)
    print("hub round trip, seconds since the hub answered:", timings)


def test_a_chinese_class_gets_jupyterlab_in_chinese_on_its_hub(browser, tmp_path):
    """A class made with `init --lang zh-CN`: a student's JupyterLab on the hub opens with its
    menus in Chinese (the language pack's locale as the default of Settings > Language)."""
    require_root_and_tools()
    if proxy_command() is None:
        pytest.skip("Traefik, the hub's proxy, is not installed: pip install -e '.[hub]'")
    people = {"instructor": f"mgi{secrets.token_hex(3)}", "student": f"mga{secrets.token_hex(3)}"}
    base, hub = open_folder(), None
    try:
        shutil.copytree(REPO / "solutions" / NAME, base / "solutions" / NAME)
        roster = base / "roster.csv"
        roster.write_text(roster_text([(people["student"], "Ada", "A")]))
        course = base / "course"
        run("init", course, "--solutions", base / "solutions", "--cpu-only", "--lang", "zh-CN",
            "--roster", roster, "--exchange", base / "exchange")  # fmt: skip
        hub = start_hub(
            base, course, roster, people["instructor"], free_port(), (PASSWORD, ADMIN_PASSWORD)
        )
        hub.accounts = list(people.values())
        page = _lab(_sign_in(browser, hub, people["student"]), people["student"])
        menus = page.locator("#jp-menu-panel")
        expect(menus.get_by_role("menuitem", name="文件", exact=True)).to_be_visible()
        screenshot(page, tmp_path, "hub_chinese_lab")
        page.context.close()
    finally:
        if hub is not None:
            hub.stop()
            shutil.copy(hub.log, tmp_path / "hub.log")
        end_processes_of(people.values())
        remove_accounts(people.values())
        shutil.rmtree(base, ignore_errors=True)
    assert not any(exists(name) for name in people.values())
