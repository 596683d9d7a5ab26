"""The course in two languages from one source (issue 35; coursekit/languages.py).

A notebook declared translated has every prose cell in both languages; the notebook made in a
language keeps every code cell as it is; each glossary term has its one Chinese rendering
wherever the English uses it; `start --lang zh-CN` lays out the Chinese notebooks; a
translated lecture runs top to bottom in Chinese."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from coursekit.cli import main
from coursekit.exercises.cells import read_cells
from coursekit.languages import (
    LANGUAGES,
    TRANSLATED,
    TRANSLATIONS,
    coverage,
    glossary,
    in_language,
    joined,
    prose,
    twin,
)

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = [
    *sorted((REPO / "course").glob("*.ipynb")),
    *sorted((REPO / "solutions").glob("*/*.ipynb")),
    *sorted((REPO / "exercises").glob("*/*.ipynb")),
]
_CODE = re.compile(r"`[^`]*`|\$[^$]*\$|<[^>]*>|\]\([^)]*\)")  # code, formulas, tags, links


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _translated_cells():
    """(where, English text, Chinese text) of every translated prose cell of the course."""
    for path in NOTEBOOKS:
        for index, cell in enumerate(prose(_read(path))):
            if twin(cell, "zh-CN").strip():
                chinese = joined(twin(cell, "zh-CN"))  # as a reader sees it
                yield f"{path.relative_to(REPO)} cell {index}", cell.source, chinese


@pytest.mark.parametrize(
    "path", [pytest.param(p, id=p) for lang in TRANSLATIONS for p in TRANSLATED[lang]]
)
def test_a_translated_notebook_has_every_prose_cell_in_both_languages(path):
    nb = _read(REPO / path)
    for language in TRANSLATIONS:
        if path in TRANSLATED[language]:
            missing = [c.source[:60] for c in prose(nb) if not twin(c, language).strip()]
            assert missing == [], f"{path}: prose with no {language} text"
            assert coverage(nb, language) == 1.0


def test_the_release_keeps_the_translations_of_its_source():
    """nbgrader's release (exercises/) carries the Chinese text the source has."""
    for source in (REPO / "solutions").glob("*/*.ipynb"):
        released = REPO / "exercises" / source.parent.name / source.name
        texts = [[twin(c, "zh-CN") for c in prose(_read(p))] for p in (source, released)]
        assert texts[0] == texts[1], source.name


def _without_docstring(source: str) -> list[str]:
    """The lines of a cell's code, less its function's docstring (comments included)."""
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and ast.get_docstring(node) is not None:
            doc = node.body[0]
            del lines[doc.lineno - 1 : doc.end_lineno]
            break
    return lines


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", [pytest.param(p, id=str(p.relative_to(REPO))) for p in NOTEBOOKS])
def test_the_notebook_in_a_language_keeps_every_code_cell(path, language):
    """Every code cell as it is, but an exercise's answer cell whose function's docstring is
    translated: that docstring only."""
    english = _read(path)
    made = in_language(_read(path), language)
    assert [c.cell_type for c in made.cells] == [c.cell_type for c in english.cells]
    for before, after in zip(english.cells, made.cells):
        assert not set(after.metadata) & set(TRANSLATIONS)
        if before.cell_type == "code" and twin(before, language).strip():
            assert before.metadata["nbgrader"]["solution"], "only an answer cell is translated"
            assert _without_docstring(after.source) == _without_docstring(before.source)
            function = ast.parse(after.source).body[0]
            assert ast.get_docstring(function) == twin(before, language).strip()
        elif before.cell_type == "code":
            kept = {k: v for k, v in before.metadata.items() if k not in TRANSLATIONS}
            assert after.source == before.source and after.metadata == kept
        else:  # its prose in the language where there is one
            assert after.source == (joined(twin(before, language)) or before.source)


def test_each_answer_of_a_translated_exercise_has_its_docstring_in_chinese():
    for path in TRANSLATED["zh-CN"]:
        answers = [
            c for c in _read(REPO / path).cells if c.metadata.get("nbgrader", {}).get("solution")
        ]
        assert [c.id for c in answers if not twin(c, "zh-CN").strip()] == [], path


def test_a_chinese_grading_table_states_each_rule_as_the_chinese_feedback_does():
    """The rules a student is graded on, in the words the Chinese checker will use for them."""
    from autograder.rules import RULES
    from coursekit.i18n import catalogue

    chinese = catalogue("zh-CN").gettext
    for path in sorted((REPO / "exercises").glob("*/*.ipynb")):
        table = next(
            joined(twin(c, "zh-CN"))
            for c in prose(_read(path))
            if c.source.startswith("## Grading")
        )
        rows = dict(re.findall(r"^\| (\w+) \| [\d.]+ \| (.+) \|$", table, re.M))
        assert rows and all(rows[rule] == chinese(RULES[rule]) != RULES[rule] for rule in rows), (
            path
        )


def test_a_markdown_cell_in_chinese_and_a_missing_translation():
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("A leaf.", metadata={"zh-CN": ["叶子\n", "节点。"]}),
            nbformat.v4.new_markdown_cell("Not yet translated."),
            nbformat.v4.new_code_cell("x = 1  # a leaf", metadata={"tags": ["keep"]}),
        ]
    )
    made = in_language(nb, "zh-CN")
    assert [c.source for c in made.cells] == [
        "叶子节点。",
        "Not yet translated.",
        "x = 1  # a leaf",
    ]
    assert made.cells[0].metadata == {} and made.cells[2].metadata == {"tags": ["keep"]}
    assert coverage(nb, "zh-CN") == 0.0  # read after in_language: no translation left


def test_chinese_lines_are_joined_as_a_reader_sees_them():
    text = "第一行的**叶子节点**\n张量和 `x`\n然后 PyTorch\n说明。\n\n- 一项\n  接续\n| a |\n| b |"
    assert (
        joined(text)
        == "第一行的**叶子节点**张量和 `x` 然后 PyTorch 说明。\n\n- 一项接续\n| a |\n| b |"
    )
    assert joined("```\n代码\n代码\n```") == "```\n代码\n代码\n```"


def test_a_part_files_chinese_cell_is_its_markdown_cells_twin(tmp_path):
    part = tmp_path / "part.py"
    part.write_text("# %% [markdown]\n# A leaf.\n\n# %% [zh-CN]\n# 叶子节点。\n\n# %%\nx = 1\n")
    cells = read_cells(part)
    assert [(c.kind, c.translations) for c in cells] == [
        ("markdown", (("zh-CN", "叶子节点。"),)),
        ("code", ()),
    ]
    part.write_text("# %%\nx = 1\n# %% [zh-CN]\n# 叶子节点。\n")
    with pytest.raises(ValueError, match="follows no markdown or seam cell"):
        read_cells(part)


@pytest.mark.parametrize("where, english, chinese", list(_translated_cells()))
def test_each_glossary_term_has_its_one_rendering(where, english, chinese):
    # a line the Chinese keeps as it is in English (the rules' statements, for now) is
    # not translated: its terms are not looked for
    kept = set(english.splitlines()) & set(chinese.splitlines())
    english = "\n".join(line for line in english.splitlines() if line not in kept)
    english, chinese = _CODE.sub(" ", english), _CODE.sub(" ", chinese)
    for term in glossary("zh-CN"):
        forms = "|".join(re.escape(form) for form in term["en"])
        meant = english
        for phrase in term.get("not", []):  # "in place of": the words, not the term
            meant = re.sub(re.escape(phrase), " ", meant, flags=re.I)
        if re.search(rf"(?<![\w-])(?:{forms})(?![\w-])", meant, re.I):
            assert term["zh"] in chinese, f"{where}: {term['en'][0]!r} is not {term['zh']}"
        for wrong in term.get("wrong", []):
            assert wrong not in chinese, f"{where}: {wrong} (the glossary says {term['zh']})"


def test_code_formulas_and_links_stay_as_they_are():
    """Identifiers, code, file names, `grad_fn` names and PyTorch's messages (all in code
    spans), formulas and link targets: the Chinese text has each, as the English has it."""
    for where, english, chinese in _translated_cells():
        kept = lambda text: sorted(_CODE.findall(re.sub(r"\s+", " ", text)))  # noqa: E731
        assert kept(chinese) == kept(english), where


def _markdown_shape(text: str) -> dict:
    """What Markdown makes of a cell, less its words: headings, list items, table rows, and
    the bold and italic marks outside code and formulas."""
    marks = re.sub(r"`[^`]*`|\$[^$]*\$|^\s*(?:[-*+]|\d+\.) ", " ", text, flags=re.M)
    return {
        "headings": re.findall(r"^#+(?= )", text, re.M),
        "list items": len(re.findall(r"^\s*(?:[-*+]|\d+\.) ", text, re.M)),
        "table rows": len(re.findall(r"^\s*\|", text, re.M)),
        "bold": marks.count("**"),
        "italic": marks.count("*") - 2 * marks.count("**"),
    }


def test_the_chinese_keeps_the_markdown_of_the_english():
    """A translation changes the words, not the cell's structure or its stresses: an emphasis
    lost on the way is part of the meaning lost ("converts each parameter *in place*")."""
    for where, english, chinese in _translated_cells():
        assert _markdown_shape(chinese) == _markdown_shape(english), where


def _run(*argv) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as stop:
            code, out = 1, io.StringIO(str(stop))
    return code, out.getvalue()


def test_start_in_chinese_lays_out_the_chinese_notebooks(tmp_path):
    code, said = _run("start", tmp_path / "course", "--lang", "zh-CN")
    assert code == 0
    # what to do next, said in the language chosen (coursekit/i18n.py), the commands as typed
    assert (
        said.startswith(f"课程在 {tmp_path / 'course'} 中：讲义在 ")
        and "从 lectures/00_start_here" in said
    )
    assert "`minigrad-course check " in said and "the course is in" not in said
    lectures, exercises = tmp_path / "course" / "lectures", tmp_path / "course" / "exercises"
    start = _read(lectures / "00_start_here.ipynb")
    assert start.cells[0].source.startswith("# minigrad 课程")
    assert "`minigrad-course check exercises/leaf_nodes/leaf_nodes.ipynb`" in start.cells[1].source
    exercise = _read(exercises / "leaf_nodes" / "leaf_nodes.ipynb")
    assert exercise.cells[0].source.startswith("# 1. 叶子节点")
    assert "minigrad-course check exercises/leaf_nodes/leaf_nodes.ipynb" in exercise.cells[0].source
    english = _read(REPO / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb")
    code_of = lambda nb: [  # noqa: E731
        _without_docstring(c.source) for c in nb.cells if c.cell_type == "code"
    ]
    assert code_of(exercise) == code_of(english)
    assert "返回的东西" in next(c.source for c in exercise.cells if c.id == "answer_read_grad")
    for path in [*lectures.glob("*.ipynb"), *exercises.glob("*/*.ipynb")]:
        nb = _read(path)
        assert all(not set(c.metadata) & {"zh-CN"} for c in nb.cells), path.name
        assert nb.metadata["course_language"] == "zh-CN", path.name  # what check answers in


def test_an_unknown_language_is_one_line_naming_those_there_are(tmp_path):
    code, said = _run("start", tmp_path / "course", "--lang", "fr")
    assert code == 1 and said == "no language 'fr' in this course: it is written in en, zh-CN"
    assert not (tmp_path / "course").exists()
    code, said = _run("init", tmp_path / "class", "--lang", "zh")
    assert code == 1 and "written in en, zh-CN" in said
    assert not (tmp_path / "class").exists()


_spec = importlib.util.spec_from_file_location("notebook_tools", REPO / "tools" / "notebooks.py")
nbtools = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nbtools)


@pytest.mark.xdist_group("lectures_zh")
@pytest.mark.parametrize("lecture", sorted(p.name for p in (REPO / "course").glob("*.ipynb")))
def test_every_lecture_runs_top_to_bottom_in_chinese(tmp_path, lecture):
    """As `start --lang zh-CN` lays it out (its folder in Chinese: the side-by-side cells'
    headlines follow it), with no error and no unexpected warning."""
    english = _read(REPO / "course" / lecture)
    path = tmp_path / lecture
    nbformat.write(in_language(_read(REPO / "course" / lecture), "zh-CN"), path)
    for module in (REPO / "course").glob("*.py"):  # what a lecture imports from its folder
        shutil.copy(module, tmp_path)
    nb = nbtools.execute(path)
    assert nbtools.unexpected_warnings(nb) == []
    title = nb.cells[0].source  # the Chinese one, not the English
    assert re.search(r"[\u4e00-\u9fff]", title) and title != english.cells[0].source, title
    if lecture == "02_leaf_nodes.ipynb":
        assert nb.cells[0].source.startswith("# 2. 叶子节点与 `.grad`")
    pictures = _drawn_pictures(nb)  # minigrad.viz speaks the folder's language too
    if "from minigrad.viz import draw" in "".join(c.source for c in english.cells):
        assert pictures, "the lecture draws, but no picture was shown"
    for svg in pictures:
        assert "箭头：前向的数据流向；backward() 沿箭头反向而行" in svg
        assert "arrows: forward flow" not in svg and "Backward0" in svg  # grad_fn names stay
    if lecture == "03_detach_numpy.ipynb":  # `back`, a round trip through NumPy, is a cut
        assert any("计算图在此切断：没有 grad_fn，requires_grad=False" in svg for svg in pictures)


def _drawn_pictures(nb) -> list[str]:
    """The SVG of each autograd picture (minigrad.viz's) the notebook's outputs show."""
    found = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for shown in output.get("data", {}).values():
                found += re.findall(r"<svg.*?</svg>", str(shown), re.S)
    return [svg for svg in found if "<marker id='arrow'" in svg]


@pytest.mark.xdist_group("init_zh")
def test_a_class_made_in_chinese_releases_chinese_exercises_graded_as_the_english(tmp_path):
    from coursekit.classroom.setup.init_course import init_course
    from coursekit.languages import course_language

    course = init_course(tmp_path / "class", cpu_only=True, language="zh-CN")
    assert course_language(course.root) == "zh-CN"
    released = _read(course.root / "release" / "leaf_nodes" / "leaf_nodes.ipynb")
    assert released.metadata["course_language"] == "zh-CN"  # Validate answers students in it
    intro = released.cells[0].source
    assert (
        intro.startswith("# 1. 叶子节点") and "`minigrad-course start course --lang zh-CN`" in intro
    )
    answer = next(c for c in released.cells if c.id == "answer_read_grad")
    assert "返回的东西" in answer.source
    # what grading runs and counts, cell by cell as in the English release
    english = _read(REPO / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb")
    graded = lambda nb: [  # noqa: E731
        (c.source, c.metadata["nbgrader"].get("points"))
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade") and "cuda" not in c.id
    ]
    assert graded(released) == graded(english) != []


def _lab_tool():
    spec = importlib.util.spec_from_file_location("lab_tool", REPO / "tools" / "lab.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_lab_in_chinese_makes_chinese_copies_beside_the_lectures(tmp_path):
    """`make lab COURSE_LANG=zh-CN`: the lectures in course-zh-CN/, course/ as it was."""
    course = tmp_path / "course"
    course.mkdir()
    for path in [*(REPO / "course").glob("*.ipynb"), REPO / "course" / "capstone_train.py"]:
        (course / path.name).write_bytes(path.read_bytes())
    before = {p.name: p.read_bytes() for p in course.iterdir()}
    made = _lab_tool().lectures_in(tmp_path, "zh-CN")
    assert made == tmp_path / "course-zh-CN"
    assert {p.name: p.read_bytes() for p in course.iterdir()} == before
    assert sorted(p.name for p in made.iterdir()) == sorted(before)
    assert _read(made / "00_start_here.ipynb").cells[0].source.startswith("# minigrad 课程")
    with pytest.raises(SystemExit, match="written in en, zh-CN"):
        _lab_tool().main(["--lang", "zh"])
