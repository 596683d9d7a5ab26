"""The course in a real browser: Debian's headless Chromium driven by Playwright, against the
JupyterLab that `make lab` starts (tools/lab.py), on a temporary copy of the course.

- a student fetches an exercise from the Assignments panel, types answers, runs all cells and
  clicks Validate: a wrong answer names the failing test, the right one passes;
- a student opens a lecture from the start page, runs it, and sees graph pictures and a plot,
  readable in the light and in the dark theme;
- an instructor opens the Formgrader on the demo class and sees its submissions and scores.

Each test leaves screenshots in its tmp_path and in test-artifacts/browser/.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from browser_support import (
    CURRENT_NOTEBOOK,
    REPO,
    VIEWPORT,
    error_outputs,
    light_and_dark,
    menu,
    run_all_cells,
    screenshot,
    start_lab,
    wait_for_notebook,
)
from nbgrader.api import Gradebook
from playwright.sync_api import expect
from test_package_install import session_demo

from autograder.rules import statement
from coursekit.classroom.setup.demo import CLASS as DEMO_CLASS
from coursekit.classroom.setup.demo import ROSTER as DEMO_ROSTER
from coursekit.exercises.assignments import ASSIGNMENTS, BY_NAME
from coursekit.exercises.planted import BUGS, solution_sources
from coursekit.planted import planted_in

pytestmark = pytest.mark.xdist_group("browser")
expect.set_options(timeout=60_000)  # JupyterLab on a busy 2-core machine takes its time

LECTURE = "03_detach_numpy.ipynb"  # graph pictures and a matplotlib plot
LECTURE_LINK = "detach() and NumPy"  # its row in the start page's table
EXERCISE = "leaf_nodes"


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="session")
def student_lab(tmp_path_factory):
    """`make lab` (student role) on a copy of the course: lectures and released exercises."""
    work = tmp_path_factory.mktemp("student-lab")
    root = work / "repo"
    for folder in ("course", "exercises"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns(".*"))
    lab = start_lab(work, root, ["--role=student", f"--root={root}"])
    yield lab
    lab.stop()


def test_a_lab_in_chinese_has_chinese_menus_that_the_student_can_change(page, tmp_path):
    """`make lab COURSE_LANG=zh-CN`: JupyterLab's menus in Chinese (its language pack) and the
    Chinese start page; a default only, so a student's own choice in Settings > Language
    still wins; nothing written outside the course's .lab/."""
    import json
    import urllib.request

    work = tmp_path / "lab"
    root = work / "repo"
    for folder in ("course", "exercises"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns(".*"))
    lab = start_lab(work, root, ["--role=student", f"--root={root}", "--lang=zh-CN"])
    try:
        plugin = "@jupyterlab/translation-extension:plugin"
        asked = urllib.request.Request(
            f"{lab.base}/lab/api/settings/{plugin}", headers={"Authorization": f"token {lab.token}"}
        )
        with urllib.request.urlopen(asked, timeout=30) as answer:
            setting = json.load(answer)
        assert setting["schema"]["properties"]["locale"]["default"] == "zh_CN"
        assert setting["raw"] in ("", "{}")  # the student's own settings are left alone
        page.goto(lab.url())
        expect(page.get_by_role("tab", name="00_start_here.ipynb")).to_be_visible()
        expect(
            page.locator("#jp-menu-panel").get_by_role("menuitem", name="文件", exact=True)
        ).to_be_visible()
        expect(
            page.locator(CURRENT_NOTEBOOK).get_by_role("heading", name=re.compile("minigrad 课程"))
        ).to_be_visible()
        screenshot(page, tmp_path, "lab-in-chinese")
    finally:
        lab.stop()
    assert (root / ".lab" / "lab-settings-zh-CN" / "overrides.json").is_file()


# --- a student meets a lecture ------------------------------------------------------------------


def _open_start_page(page, lab):
    """The lab's default page is the course's start page; wait until it is on screen."""
    page.goto(lab.url())
    expect(page.get_by_role("tab", name="00_start_here.ipynb")).to_be_visible()
    expect(
        page.locator(CURRENT_NOTEBOOK).get_by_role("heading", name="Where to start")
    ).to_be_visible()


def test_lecture_runs_and_shows_graph_pictures_in_light_and_dark_theme(page, student_lab, tmp_path):
    _open_start_page(page, student_lab)
    page.locator(CURRENT_NOTEBOOK).get_by_role("link", name=LECTURE_LINK).click()
    wait_for_notebook(page, student_lab.root / "course" / LECTURE)
    run_all_cells(page)
    assert error_outputs(page) == []

    notebook = page.locator(CURRENT_NOTEBOOK)
    graphs = notebook.locator(".jp-OutputArea-output svg").filter(has_text="AccumulateGrad")
    plots = notebook.locator(".jp-OutputArea-output img")
    assert graphs.count() >= 1, "no graph picture from minigrad.viz in the outputs"
    assert plots.count() >= 1, "no matplotlib plot in the outputs"
    graph, plot = graphs.first, plots.first
    assert graph.bounding_box()["width"] > 100 and plot.bounding_box()["width"] > 100

    for theme in ("light", "dark"):
        if theme == "dark":
            menu(page, "Settings", "Theme", "JupyterLab Dark")
            page.wait_for_selector('body[data-jp-theme-light="false"]', state="attached")
        graph.scroll_into_view_if_needed()
        screenshot(page, tmp_path, f"lecture_graph_{theme}")
        plot.scroll_into_view_if_needed()
        screenshot(page, tmp_path, f"lecture_plot_{theme}")
        # Both pictures carry their own light background with dark ink, whatever the theme.
        for name, picture in (("graph", graph), ("plot", plot)):
            border, ink = light_and_dark(picture.screenshot())
            assert border > 230 and ink < 90, f"{theme} theme, {name}: border {border}, ink {ink}"
    # ... while the dark theme really did darken the notebook around them.
    around = notebook.evaluate(
        "n => getComputedStyle(n.querySelector('.jp-Notebook')).backgroundColor"
    )
    assert _brightness(around) < 80, around


def _brightness(css_rgb: str) -> float:
    r, g, b = (float(v) for v in css_rgb[css_rgb.index("(") + 1 : -1].split(",")[:3])
    return (r + g + b) / 3


# --- a student works on an exercise ------------------------------------------------------------


def _type_answers(page, answers):
    """Replace each stub cell's text by its answer, typing into the cell's editor. A stub
    starts like its answer (the function's first line), which finds its cell on the page."""
    notebook = page.locator(CURRENT_NOTEBOOK)
    for answer in answers:
        cell = notebook.locator(".jp-CodeCell").filter(has_text=answer.splitlines()[0])
        expect(cell).to_have_count(1)
        editor = cell.locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(answer)
        expect(editor).to_contain_text(answer.splitlines()[-1].strip())


def _visible_tests(path):
    """grade id -> source of each test cell of a released notebook."""
    nb = nbformat.read(path, as_version=4)
    return {
        c.metadata.nbgrader.grade_id: c.source
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


def _validate(page):
    """Click the notebook's Validate button; the text of nbgrader's answer."""
    page.locator(f"{CURRENT_NOTEBOOK} .jp-Toolbar").get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_be_visible(timeout=240_000)
    return dialog


def test_student_fetches_an_exercise_answers_it_and_validates(page, student_lab, tmp_path):
    _open_start_page(page, student_lab)
    menu(page, "Nbgrader", "Assignment List")
    expect(page.get_by_role("tab", name="Assignments")).to_be_visible()
    released = page.locator("#released_assignments_list")
    expect(released).to_contain_text(EXERCISE)
    # in course order, as the lectures: the first one is this lecture's exercise
    items = released.locator(".list_item")
    expect(items).to_have_count(len(ASSIGNMENTS))
    listed = [items.nth(i).inner_text() for i in range(len(ASSIGNMENTS))]
    assert [a.list_id in text for a, text in zip(ASSIGNMENTS, listed)] == [True] * len(listed)
    first = BY_NAME[EXERCISE]
    released.locator(".list_item", has_text=first.list_id).get_by_role(
        "button", name="Fetch"
    ).click()
    fetched = page.locator("#fetched_assignments_list")
    fetched.get_by_role("button", name=first.list_id).click()  # unfolds its notebooks
    screenshot(page, tmp_path, "exercise_assignment_list")
    fetched.locator(".nested_list_item").get_by_text(EXERCISE, exact=True).click()
    notebook_path = student_lab.root / first.fetched_copy
    wait_for_notebook(page, notebook_path)

    answers = solution_sources(EXERCISE)  # grade id -> the reference answer
    bug = next(bug for bug in BUGS[EXERCISE] if bug.rule == "L8")
    rule = bug.rule
    wrong = [planted_in(a, bug) or a for a in answers.values()]
    assert wrong != list(answers.values()), "the planted bug is not in the reference answer"
    _type_answers(page, wrong)
    run_all_cells(page)
    dialog = _validate(page)
    screenshot(page, tmp_path, "exercise_validate_wrong")
    text = dialog.inner_text()
    # nbgrader names the one failing test cell by its source and shows the failed assertion.
    assert text.count("The following cell failed:") == 1, text
    tests = _visible_tests(notebook_path)
    assert tests.pop(f"test_{rule}").splitlines()[-1] in text, text
    assert not any(source.splitlines()[-1] in text for source in tests.values()), text
    assert f"NotPassed: NOT PASSED: rule {rule}" in text, text  # the verdict, not a traceback
    assert "Traceback" not in text and "grading.py" not in text, text
    # ... and what to do: the rule in words, the section by its heading with the path to it
    # from the notebook, PyTorch's output next to theirs; short (issue 29: 10,161 characters
    # for five failures before)
    section = 'section "Gradients accumulate" of lecture 02_leaf_nodes'
    link = "../../course/02_leaf_nodes.ipynb#accumulate-and-zero"
    assert f"{rule}: {statement(rule)}" in text and f"Reread {section} ({link})" in text, text
    assert "First difference" in text and "your engine:" in text, text
    assert not re.search(r"\b(null|true|false)\b", text), text
    print(f"Validate dialog, one wrong function: {len(text)} characters")
    assert len(text) < 2000, len(text)
    dialog.get_by_role("button", name="Ok").click()
    expect(dialog).to_be_hidden()
    # under the failed cell, the same section as a link that opens the lecture in the lab
    outputs = page.locator(f"{CURRENT_NOTEBOOK} .jp-OutputArea-output a")
    outputs.filter(has_text="Gradients accumulate").first.click()  # the lab resolves its href
    expect(page.get_by_role("tab", name="02_leaf_nodes.ipynb")).to_be_visible()
    screenshot(page, tmp_path, "exercise_section_link_opened")
    page.get_by_role("tab", name=f"{EXERCISE}.ipynb", exact=True).click()

    _type_answers(page, answers.values())
    run_all_cells(page)
    dialog = _validate(page)
    screenshot(page, tmp_path, "exercise_validate_right")
    assert "Success! Your notebook passes all the tests." in dialog.inner_text()


# --- an instructor grades ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def demo_class(tmp_path_factory):
    """A copy of the demo class of `make demo` (build/demo-course), or, where that was not
    made, of the session's demo class (tests/test_package_install.py: `minigrad-course demo`
    from the instructor's package, run once for both tests)."""
    target = tmp_path_factory.mktemp("instructor") / "demo-course"
    built = REPO / "build" / "demo-course"
    if not (built / "report" / "index.html").is_file():  # the demo's last step: complete
        demo = session_demo(tmp_path_factory)
        assert demo["returncode"] == 0, f"minigrad-course demo failed:\n{demo['stdout'][-3000:]}"
        built = Path(demo["course"])
    shutil.copytree(built, target)  # the lab writes in the course it serves: a copy
    return target


@pytest.fixture
def instructor_lab(demo_class, tmp_path):
    """`make lab ROLE=instructor COURSE=<the demo class>`."""
    lab = start_lab(
        tmp_path / "lab", demo_class, ["--role=instructor", f"--course-dir={demo_class}"]
    )
    yield lab
    lab.stop()


def _max_points(course: Path, assignment: str) -> float:
    """What an assignment is worth: the points of its test cells in the course's source."""
    nb = nbformat.read(course / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    return sum(c.metadata.get("nbgrader", {}).get("points", 0) for c in nb.cells)


def _score(points: float, out_of: float) -> str:
    return f"{points:g} / {out_of:g}"  # as the formgrader writes it


def test_instructor_sees_the_demo_class_submissions_and_scores(page, instructor_lab, tmp_path):
    course = instructor_lab.root
    assignments = sorted(p.name for p in (course / "source").iterdir() if p.is_dir())
    worth = {a: _max_points(course, a) for a in assignments}
    page.goto(instructor_lab.url())
    expect(page.locator("#jp-menu-panel")).to_be_visible()
    menu(page, "Nbgrader", "Formgrader")
    formgrader = page.frame_locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe")

    # Manage Assignments: every assignment with as many submissions as the demo handed in.
    for assignment in assignments:
        handed_in = sum(1 for _, a, _ in DEMO_CLASS if a == assignment)
        row = formgrader.locator("tbody tr", has_text=assignment)
        expect(row.locator("td.num-submissions")).to_have_text(str(handed_in))
    screenshot(page, tmp_path, "formgrader_assignments")

    # One assignment's submissions: a score per student, full marks for the correct answer,
    # some but not all for the typical bug, each as the gradebook has it.
    assignment = "leaf_nodes"
    formgrader.locator("tbody tr", has_text=assignment).locator("td.num-submissions").get_by_role(
        "link"
    ).click()
    plan = {s: kind for s, a, kind in DEMO_CLASS if a == assignment}
    rows = formgrader.locator("tbody tr")
    expect(rows).to_have_count(len(plan))
    screenshot(page, tmp_path, "formgrader_submissions")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, kind in plan.items():
            shown = rows.filter(has_text=student).locator("td.score").inner_text()
            stored = gradebook.find_submission(assignment, student)
            assert shown == _score(stored.score, worth[assignment]), (student, kind)
            if kind == "correct":
                assert stored.score == worth[assignment]
            if kind == "bug":
                assert 0 < stored.score < worth[assignment]

    # Manage Students: the whole roster, each with the total of what they handed in.
    formgrader.get_by_role("link", name="Manage Students").click()
    for student, *_ in DEMO_ROSTER:
        expect(formgrader.locator("tbody tr", has_text=f"{student}@")).to_have_count(1)
    correct = {s for s, _, kind in DEMO_CLASS if kind == "correct"}
    for student in correct - {s for s, _, kind in DEMO_CLASS if kind != "correct"}:
        full = sum(worth[a] for s, a, _ in DEMO_CLASS if s == student)
        row = formgrader.locator("tbody tr", has_text=f"{student}@")
        expect(row).to_contain_text(_score(full, sum(worth.values())))
    screenshot(page, tmp_path, "formgrader_students")
