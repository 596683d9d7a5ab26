"""The messages a student reads, through the gettext catalogues (coursekit/i18n.py, issue 35).

Every message the code marks, every rule's statement and every planted bug's explanation has
its zh-CN translation; the compiled .mo the package ships is the .po's; each translation uses
the glossary's terms and keeps its placeholders; a message without a translation is English;
the notebook's language chooses (check, Validate), the class's the report and feedback pages,
the override wins; a failing check in Chinese quotes PyTorch verbatim; the same answers get
the same scores in both languages, the sealed grade's feedback in the class's language and
its verdicts the same data in both."""

from __future__ import annotations

import gettext
import html
import importlib.util
import re
from pathlib import Path

import pytest

from coursekit import i18n
from coursekit.i18n import _, speaking
from coursekit.languages import TRANSLATIONS, glossary, in_language, notebook_language

REPO = Path(__file__).resolve().parent.parent
_CODE = re.compile(r"`[^`]*`|\{[^}]*\}|\$[^$]*\$|<[^>]*>")  # code, placeholders, formulas, tags


def _tool():
    spec = importlib.util.spec_from_file_location("messages_tool", REPO / "tools" / "messages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool():
    return _tool()


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_every_message_rule_and_diagnosis_has_a_translation(tool, language):
    missing = tool.untranslated(language)
    assert missing == [], "untranslated (run `make messages`, translate, run it again):\n" + (
        "\n".join(missing)
    )


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_the_shipped_mo_is_the_po_compiled(tool, language):
    po = tool.po_path(language)
    with po.with_suffix(".mo").open("rb") as shipped:
        got = gettext.GNUTranslations(shipped)._catalog
    import io

    want = gettext.GNUTranslations(io.BytesIO(tool.compiled(tool.read(language))))._catalog
    assert got == want, "the .mo is stale: run `make messages`"


def _pairs(catalog):
    for message in catalog:
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for english in ids:
            for chinese in strings:
                yield english, chinese


def test_each_translated_message_uses_the_glossarys_terms(tool):
    for english, chinese in _pairs(tool.read("zh-CN")):
        english, chinese = _CODE.sub(" ", english), _CODE.sub(" ", chinese)
        for term in glossary("zh-CN"):
            forms = "|".join(re.escape(form) for form in term["en"])
            meant = english
            for phrase in term.get("not", []):
                meant = re.sub(re.escape(phrase), " ", meant, flags=re.I)
            if re.search(rf"(?<![\w-])(?:{forms})(?![\w-])", meant, re.I):
                assert term["zh"] in chinese, f"{english!r}: {term['en'][0]!r} is not {term['zh']}"
            for wrong in term.get("wrong", []):
                assert wrong not in chinese, (
                    f"{english!r}: {wrong} (the glossary says {term['zh']})"
                )


def test_each_translation_keeps_its_placeholders(tool):
    """A translation that drops or renames a {placeholder} would raise where it is shown."""
    for english, chinese in _pairs(tool.read("zh-CN")):
        placeholder = r"\{\w*\}|%\(\w+\)s"  # str.format's, and jinja2's in the report page
        found = [sorted(re.findall(placeholder, text)) for text in (english, chinese)]
        assert found[0] == found[1], english


def test_english_by_default_chinese_where_chosen_english_where_untranslated(monkeypatch):
    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    passed = "PASSED: rule {rules} ({n} scenarios)"
    assert _(passed) == passed
    with speaking("zh-CN"):
        assert _(passed) == "通过：规则 {rules}（{n} 个场景）"
        assert _("a message nobody marked") == "a message nobody marked"
        with speaking(None):  # as outside
            assert _(passed) != passed
    assert _(passed) == passed
    monkeypatch.setenv(i18n.OVERRIDE, "en")  # the override wins over the notebook's
    with speaking("zh-CN"):
        assert _(passed) == passed
    monkeypatch.setenv(i18n.OVERRIDE, "zh_CN")  # as gettext spells it
    assert _(passed) != passed
    monkeypatch.setenv(i18n.OVERRIDE, "fr")  # not a language of the course: passed over
    assert _(passed) == passed
    with speaking("zh-CN"):
        assert _(passed) != passed


def test_a_notebook_made_in_chinese_says_so_and_a_strange_one_is_english():
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("A leaf.")])
    assert notebook_language(nb) == "en"
    assert notebook_language(in_language(nb, "zh-CN")) == "zh-CN"
    for metadata in ({"course_language": "fr"}, {"course_language": ["zh-CN"]}, []):
        assert notebook_language({"metadata": metadata}) == "en"
    assert notebook_language([]) == "en"


def _check_in(language: str, folder: Path, name: str, bug) -> tuple[int, str]:
    """`check` (the student's command) of `name` answered with `bug`, the notebook made in
    `language` as `start --lang` makes it; its exit code and what it printed."""
    import io

    import nbformat

    from coursekit.exercises.planted import answered
    from coursekit.exercises.release import EXERCISES
    from coursekit.exercises.selfcheck import run

    path = folder / language / name / f"{name}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(answered(EXERCISES / name / f"{name}.ipynb", name, bug))
    nbformat.write(in_language(nbformat.read(path, as_version=4), language), path)
    out = io.StringIO()
    return run(path, out=out, seed=5), out.getvalue()


@pytest.mark.slow
@pytest.mark.xdist_group("inplace_versions_zh")
def test_a_failing_check_in_chinese_says_it_in_chinese_with_pytorchs_text_verbatim(
    tmp_path, monkeypatch
):
    """One planted bug (I2: the version error names the wrong node) through `check` on the
    English notebook and on the Chinese one: the same verdicts and points; the Chinese names
    the rule, the section (the lecture's Chinese heading) and the verdict in Chinese, and
    quotes PyTorch's error and the engine's byte for byte as the English does."""
    from autograder.rules import RULES
    from coursekit.exercises.planted import BUGS

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    name = "inplace_versions"
    bug = next(b for b in BUGS[name] if b.rule == "I2")
    code_en, english = _check_in("en", tmp_path, name, bug)
    code_zh, chinese = _check_in("zh-CN", tmp_path, name, bug)
    assert code_en == code_zh == 1

    def table(text):  # grade id -> points earned, out of
        rows = [line.split() for line in text.splitlines() if line.startswith("test_")]
        return {row[0]: row[1:4] for row in rows if row[2] == "/"}

    assert table(chinese) == table(english) and table(english)["test_I2"][0] == "0"
    assert [line for line in english.splitlines() if line.startswith("total")][0].split()[1:] == [
        line for line in chinese.splitlines() if line.startswith("合计")
    ][0].split()[1:]
    assert "未通过：规则 I2" in chinese and "NOT PASSED: rule I2" in english
    statement_zh = i18n.catalogue("zh-CN").gettext(RULES["I2"])
    assert statement_zh != RULES["I2"] and f"I2: {statement_zh}" in chinese
    # the section by the lecture's own Chinese heading (course/04_inplace_versions.ipynb)
    assert "“保存的张量”" in chinese and '"Saved tensors"' in english

    def quoted(text):  # what PyTorch printed and what the engine printed, labels cut off
        lines = text.splitlines()
        i = next(i for i, line in enumerate(lines) if "RuntimeError" in line)
        label = re.compile(r"^\s*(?:PyTorch|your engine|你的引擎)[:：]\s*")
        return [label.sub("", line, count=1) for line in lines[i : i + 2]]

    torch_en, engine_en = quoted(english)
    assert quoted(chinese) == [torch_en, engine_en]
    assert "modified by an inplace operation" in torch_en and "output 0 of Exp" in torch_en
    assert not re.search(r"[\u4e00-\u9fff]", torch_en + engine_en)


def test_validate_answers_in_the_language_of_the_notebook_beside_it(tmp_path, monkeypatch):
    """A test cell's visible check (what Validate runs) in the kernel's folder: the notebook
    there, named after its assignment, was made in Chinese, so the verdict is Chinese; the
    same answers beside an English notebook, English; the override wins."""
    import contextlib
    import io

    import nbformat

    from coursekit.exercises.grading import check_rule
    from coursekit.exercises.planted import BUGS, answer_functions

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    monkeypatch.chdir(tmp_path)
    bug = next(bug for bug in BUGS["leaf_nodes"] if bug.rule == "L8")
    notebook = tmp_path / "leaf_nodes.ipynb"

    def verdict() -> str:
        with pytest.raises(AssertionError) as failed:
            check_rule(answer_functions("leaf_nodes", bug), "leaf_nodes", ["L8"])
        return str(failed.value)

    assert verdict().startswith("NOT PASSED: rule L8\n")  # no notebook here
    nbformat.write(in_language(nbformat.v4.new_notebook(), "zh-CN"), notebook)
    chinese = verdict()
    assert chinese.startswith("未通过：规则 L8\n") and "请重读" in chinese
    import minigrad
    from coursekit.exercises.grading import gpu_here

    if not minigrad.cuda.is_available():  # a CUDA cell's visible part says so in Chinese too
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert gpu_here() is False
        assert out.getvalue().startswith("CUDA：")
    monkeypatch.setenv(i18n.OVERRIDE, "en")
    assert verdict().startswith("NOT PASSED: rule L8\n")
    monkeypatch.delenv(i18n.OVERRIDE)
    nbformat.write(nbformat.v4.new_notebook(), notebook)
    assert verdict().startswith("NOT PASSED: rule L8\n")


@pytest.mark.parametrize(
    "command, marked",
    [
        ([], "a self-paced copy of the lectures and exercises"),
        (["start"], "the notebooks' language: {languages} (default: {default})"),
        (["check"], "the values to check on (to regrade)"),
        (["saved", "restore"], "its number, as `saved list` shows it"),
    ],
)
def test_a_student_commands_help_follows_the_terminals_language(
    monkeypatch, capsys, command, marked
):
    """`minigrad-course check --help` in a terminal whose locale is Chinese: the course's own
    words in Chinese (argparse's frame, "usage:", stays Python's English); elsewhere English."""
    from coursekit.cli import main

    def shown(**environ) -> str:
        for name in ("LC_ALL", "LC_MESSAGES", "LANG", i18n.OVERRIDE):
            monkeypatch.delenv(name, raising=False)
        for name, value in environ.items():
            monkeypatch.setenv(name, value)
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        return " ".join(capsys.readouterr().out.split())  # as argparse wraps it

    english = shown(LANG="en_US.UTF-8")
    assert english == shown(LANG="C.UTF-8") == shown()
    chinese = shown(LANG="zh_CN.UTF-8")
    assert shown(LC_ALL="zh_CN.UTF-8", LANG="en_US.UTF-8") == chinese
    words = i18n.catalogue("zh-CN").gettext(marked).partition("{")[0]
    assert marked.partition("{")[0] in english and words not in english
    assert words in chinese and marked.partition("{")[0] not in chinese


def test_a_report_shown_in_a_chinese_notebook_is_chinese_and_quotes_pytorch(tmp_path, monkeypatch):
    """check()'s Report as Jupyter shows it (its HTML) in a Chinese lecture's folder: the
    rule in words, the labels and the status in Chinese, PyTorch's text as PyTorch wrote it;
    a language chosen around it (a class's page) wins over the folder's."""
    import nbformat

    from autograder.report import Report, ScenarioResult
    from autograder.rules import RULES

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    monkeypatch.chdir(tmp_path)
    pytorch = (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    )
    diff = {"label": "a", "field": "raised", "reference": pytorch, "engine": "no error"}
    failed = ScenarioResult("leaf.x", ("L8",), "leaf", "course/02.ipynb#x", 1, "failed", [diff])
    report = Report("mine", "cpu", 7, "2.13.0", [failed])
    english = report._repr_html_()
    assert RULES["L8"][:30] in english and "your engine:" in english
    nbformat.write(in_language(nbformat.v4.new_notebook(), "zh-CN"), tmp_path / "02.ipynb")
    i18n.folder_language.cache_clear()
    chinese = report._repr_html_()
    statement_zh = i18n.catalogue("zh-CN").gettext(RULES["L8"])
    assert statement_zh != RULES["L8"]
    for piece in (statement_zh[:20], "你的引擎", "未通过", "规则 L8", "请重读"):
        assert piece in chinese, piece
    assert RULES["L8"][:30] not in chinese and "your engine:" not in chinese
    assert html.escape(pytorch) in chinese  # verbatim
    with speaking("en"):
        assert report._repr_html_() == english


@pytest.mark.slow
@pytest.mark.xdist_group("leaf_nodes_zh_scores")
def test_the_same_answers_get_the_same_scores_in_both_languages(tmp_path):
    """leaf_nodes answered right, with one planted bug, and as released, each in English and
    as `start --lang zh-CN` / a Chinese class releases it: the instructor's sealed grade gives
    every test cell the same points in both languages (and the bug costs its rule). Graded
    as a class in that language has it (SealedExecute speaks its course_language), the bug's
    feedback under its test cell gives the rule, the section to reread and the likely mistake
    in Chinese and PyTorch's side as in English; the verdicts the pipeline reads are the same
    data in both languages, the CUDA cell not run on a GPU-less grader included."""
    import nbformat

    from autograder.rules import statement
    from coursekit import sealed
    from coursekit.classroom.grading.outputs import read_cells, status_and_message
    from coursekit.exercises import verdict_data
    from coursekit.exercises.grading import PUBLIC_SEED
    from coursekit.exercises.planted import BUGS, answered
    from coursekit.exercises.release import EXERCISES, SOLUTIONS
    from coursekit.sealed.nbgrader_steps import record_verdicts, seal_outputs

    name = "leaf_nodes"
    released = EXERCISES / name / f"{name}.ipynb"
    bug = next(b for b in BUGS[name] if b.rule == "L8")
    texts = {
        "reference": answered(released, name),
        "bug": answered(released, name, bug),
        "stub": released.read_text(),
    }
    contract = sealed.Contract.from_notebook(SOLUTIONS / name / f"{name}.ipynb")
    generous = sealed.Limits(wall_s=900, cpu_s=600, cell_s=300, scenario_s=120)
    points, outputs, facts = {}, {}, {}
    for language in ("en", "zh-CN"):
        for student, text in texts.items():
            nb = in_language(nbformat.reads(text, as_version=4), language)
            if language != "en":  # the Chinese docstrings are there, the code is the same
                assert nbformat.writes(nb) != text
            path = tmp_path / language / student / f"{name}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(nb, path)
            with speaking(language):  # as SealedExecute does for a class in that language
                result = sealed.grade_notebook(contract, path, seed=PUBLIC_SEED, limits=generous)
                graded = record_verdicts(seal_outputs(nb, result), result)
            points[language, student] = {k: c.points for k, c in result.cells.items()}
            (path.parent / "graded").mkdir()
            nbformat.write(graded, path.parent / "graded" / f"{name}.ipynb")
            outputs[language, student] = {
                c.metadata["nbgrader"]["grade_id"]: c.outputs
                for c in graded.cells
                if c.metadata.get("nbgrader", {}).get("grade_id")
            }
            facts[language, student] = read_cells(path.parent / "graded")
    for student in texts:
        assert points["zh-CN", student] == points["en", student] != {}, student
    reference, wrong = points["en", "reference"], points["en", "bug"]
    assert wrong["test_L8"] == 0 < reference["test_L8"]
    assert {k for k in reference if wrong[k] != reference[k]} == {"test_L8"}
    assert sum(points["en", "stub"].values()) == 0 < sum(reference.values())

    def said(language: str, cell: str) -> str:
        return "".join(o.get("evalue", "") + "".join(o.get("data", {}).get("text/plain", ""))
                       for o in outputs[language, "bug"][cell])  # fmt: skip

    zh = i18n.catalogue("zh-CN").gettext
    english, chinese = said("en", "test_L8"), said("zh-CN", "test_L8")
    assert english.startswith(f"NOT PASSED: rule L8\nL8: {statement('L8')}\nReread ")
    assert chinese.startswith(f"未通过：规则 L8\nL8: {zh(statement('L8'))}\n请重读“02_leaf_nodes”")
    assert bug.why in english and zh(bug.why) in chinese and zh(bug.why) != bug.why
    assert "请重读：" in chinese and "Reread: " in english  # the section's link under it
    report = {
        language: outputs[language, "bug"]["test_L8"][0]["text"] for language in ("en", "zh-CN")
    }
    assert "your engine vs PyTorch" in report["en"] and "] failed (rules L8; " in report["en"]
    assert "你的引擎 对照 PyTorch" in report["zh-CN"] and "] 未通过（规则 L8；" in report["zh-CN"]
    pytorch = [[line.split(maxsplit=1)[1] for line in text.splitlines()
                if line.lstrip().startswith("PyTorch")] for text in (english, chinese)]  # fmt: skip
    assert pytorch[0] == pytorch[1] != [], (english, chinese)

    def data(found) -> dict:  # the words aside
        return {key: {k: v for k, v in f.items() if k != "error"} for key, f in found.items()}

    cuda = (name, "test_cuda_leaf_nodes")
    for student in texts:
        assert data(facts["en", student]) == data(facts["zh-CN", student]) != {}, student
    if not _gpu():
        for language in ("en", "zh-CN"):
            found = facts[language, "reference"][cuda]
            assert found["reason"] == verdict_data.NO_GPU, found
            assert status_and_message(0.0, 1.0, found)[0] == "not run"
        # its verdict alone: nothing to reread for a cell that did not run
        assert said("zh-CN", "test_cuda_leaf_nodes") == "未运行：评分机器上没有 GPU"


def _gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def test_the_sealed_grade_speaks_the_class_language(tmp_path, monkeypatch):
    """nbgrader's sealed step (SealedExecute) grades, and writes the feedback under each test
    cell, in the class's language: its course_language file, as the feedback pages."""
    import nbformat
    from traitlets.config import Config

    from coursekit.sealed import nbgrader_steps
    from coursekit.sealed.grade import SealedResult

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    spoken = []

    def grade_notebook(contract, nb, seed, limits):
        spoken.append(i18n.current())
        return SealedResult("leaf_nodes", 1, {})

    monkeypatch.setattr(nbgrader_steps.Contract, "from_notebook", lambda path: None)
    monkeypatch.setattr(nbgrader_steps, "grade_notebook", grade_notebook)
    monkeypatch.setattr(
        nbgrader_steps, "seal_outputs", lambda nb, r: spoken.append(_("PASSED")) or nb
    )
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    step = nbgrader_steps.SealedExecute(config=config)
    resources = {"nbgrader": {"assignment": "leaf_nodes", "notebook": "leaf_nodes"}}
    step.preprocess(nbformat.v4.new_notebook(), resources)
    (tmp_path / "course_language").write_text("zh-CN\n")
    step.preprocess(nbformat.v4.new_notebook(), resources)
    assert spoken == ["en", "PASSED", "zh-CN", "通过"]


def _report_data() -> dict:
    return {
        "students": ["ann"], "assignments": ["leaf_nodes"], "messages": [("NOT PASSED", 1)],
        "problems": [], "collect_problems": {}, "missing": {"leaf_nodes": []},
        "failed_cells": [{"assignment": "leaf_nodes", "cell": "test_L8", "submissions": 1,
                          "rule": "L8: ..."}],
        "mistakes": [], "attention": [],
        "grades": [{"id": "ann", "name": "Ann", "total": "0/3", "sort": 0,
                    "cells": [{"text": "0/3", "sort": 0, "link": ""}]}],
    }  # fmt: skip


def test_the_class_report_and_feedback_pages_in_the_class_language(tmp_path, monkeypatch):
    """The report's headings and fixed texts, and a feedback page's own, in Chinese for a
    class made in Chinese (its course_language file decides, as `init --lang` wrote it)."""
    from types import SimpleNamespace

    from coursekit.classroom.results import feedback, report

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    english = report._page(_report_data(), [])
    with speaking("zh-CN"):
        chinese = report._page(_report_data(), [])
        not_graded = feedback._not_graded_page("leaf_nodes", "leaf_nodes", 3.0, ["bad.zip"])
    assert "<h1>Class report</h1>" in english and "1 students, 1 assignments." in english
    assert "<h1>班级报告</h1>" in chinese and "1 名学生，1 次作业。" in chinese
    assert "Class report" not in chinese and "<th>规则</th>" in chinese
    assert "这份提交的问题" in not_graded and "得分：0 / 3" in not_graded

    seen = []
    monkeypatch.setattr(report, "_write_report", lambda *_: seen.append(i18n.current()))
    monkeypatch.setattr(feedback, "_pages_for", lambda *_: seen.append(i18n.current()))
    course = SimpleNamespace(root=tmp_path)
    report.write_report(course, tmp_path / "report")
    feedback._feedback_for(str(tmp_path), "", "ann", "leaf_nodes", [], 3.0, [])
    (tmp_path / "course_language").write_text("zh-CN\n")
    report.write_report(course, tmp_path / "report")
    feedback._feedback_for(str(tmp_path), "", "ann", "leaf_nodes", [], 3.0, [])
    assert seen == ["en", "en", "zh-CN", "zh-CN"]


def test_a_student_command_speaks_the_language_the_override_asks_for(tmp_path, monkeypatch):
    """`saved list` has no notebook to read a language from: English, or the override's."""
    import contextlib
    import io

    from coursekit.cli import main

    monkeypatch.setenv("MINIGRAD_MY_SEAMS", str(tmp_path / "my_seams"))

    def said() -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["saved", "list"]) == 0
        return out.getvalue()

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    assert said().startswith("saved functions in ") and "none yet" in said()
    monkeypatch.setenv(i18n.OVERRIDE, "zh-CN")
    assert said().startswith("保存的函数在 ") and "还没有" in said()


def test_a_lectures_side_by_side_speaks_the_language_of_the_notebooks_in_its_folder(
    tmp_path, monkeypatch
):
    """A lecture's kernel runs in its folder: the notebooks there made in Chinese (`start
    --lang zh-CN`'s lectures/, `make lab COURSE_LANG=zh-CN`'s course-zh-CN/), its tables'
    headlines are Chinese; the observations themselves are as the engines printed them."""
    import nbformat

    from autograder.side_by_side import compare_engines

    def leaf_after_float(T, record, rng):
        record.tensor("z", T.tensor(rng.uniform(size=2), requires_grad=True).float())

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    english, chinese = tmp_path / "en", tmp_path / "zh"
    english.mkdir(), chinese.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), english / "02_leaf_nodes.ipynb")
    nbformat.write(
        in_language(nbformat.v4.new_notebook(), "zh-CN"), chinese / "02_leaf_nodes.ipynb"
    )
    comparison = compare_engines(leaf_after_float)
    monkeypatch.chdir(english)
    assert comparison.headline() == "leaf_after_float (seed 0): all 1 observations agree"
    rows = comparison.rows()
    monkeypatch.chdir(chinese)
    assert comparison.headline() == "leaf_after_float（种子 0）：全部 1 项观察一致"
    assert comparison.rows() == rows


def test_the_grading_notes_a_student_reads_follow_the_class_language(tmp_path, monkeypatch):
    """What the pipeline notes of a graded notebook (a cell that killed its kernel) and of a
    sealed run that ended early: in the language spoken, the class's as grading speaks it."""
    import nbformat

    from coursekit.classroom.grading.execute import KERNEL_DIED
    from coursekit.classroom.grading.outputs import incidents
    from coursekit.sealed.sandbox import _status_text

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("f()")
    cell.metadata["nbgrader"] = {"grade_id": "sol-f"}
    cell.outputs = [nbformat.v4.new_output("error", ename=KERNEL_DIED, evalue="", traceback=[])]
    nb.cells.append(cell)
    nbformat.write(nb, tmp_path / "toy.ipynb")
    assert incidents(tmp_path) == [
        "toy.ipynb: the kernel died in cell 'sol-f'; the cells after it were graded in a new kernel"
    ]
    assert _status_text(3) == "exit status 3" and _status_text(-9) == "killed by SIGKILL"
    with speaking("zh-CN"):
        assert incidents(tmp_path) == [
            "toy.ipynb: 内核在单元格“sol-f”中崩溃；其后的单元格在新的内核中评分"
        ]
        assert _status_text(3) == "退出状态 3" and _status_text(-9) == "被 SIGKILL 终止"


def test_a_repaired_submissions_notes_follow_the_class_language(tmp_path, monkeypatch):
    """What repairing a submission notes (shown atop its feedback page and in the report): in
    the language grading speaks, the class's; the notebooks' names as they are."""
    import nbformat

    from coursekit.classroom.grading.repair import repair_submission

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    released = tmp_path / "source" / "toy.ipynb"
    released.parent.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), released)
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    (submitted / "toy.ipynb").write_text("{not json")
    (submitted / "extra.ipynb").write_text("{}")
    with speaking("zh-CN"):
        notes = repair_submission(submitted, tmp_path / "work", {"toy": released}).notes
    english = repair_submission(submitted, tmp_path / "work_en", {"toy": released}).notes
    assert english[0].startswith("extra.ipynb: not a notebook nbformat can read (")
    assert notes[0].startswith("extra.ipynb: 不是 nbformat 能读取的笔记本（")
    assert english[1].startswith("toy.ipynb: not a valid notebook (invalid JSON: ")
    assert notes[1].startswith("toy.ipynb: 不是有效的笔记本（无效的 JSON：第 1 行 ")
    assert notes[1].endswith("）；无法评分（0 分）") and len(notes) == len(english) == 2


def test_the_sealed_runs_notes_on_a_submission_follow_the_language_spoken(monkeypatch):
    """What the sealed grade notes of how a submission was put together (an answer cell
    deleted, code outside the answer cells) is in the language it is graded in."""
    import nbformat

    from coursekit import sealed
    from coursekit.exercises.release import EXERCISES, SOLUTIONS
    from coursekit.sealed.submission import assemble

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    contract = sealed.Contract.from_notebook(SOLUTIONS / "leaf_nodes" / "leaf_nodes.ipynb")
    nb = nbformat.read(EXERCISES / "leaf_nodes" / "leaf_nodes.ipynb", as_version=4)
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    nb.cells.remove(answers[0])
    nb.cells.append(nbformat.v4.new_code_cell("print('mine')"))
    grade_id = answers[0].metadata["nbgrader"]["grade_id"]
    english = assemble(contract, nb).notes
    with speaking("zh-CN"):
        chinese = assemble(contract, nb).notes
    assert f"answer cell {grade_id} is missing from the submission: graded as empty" in english
    assert f"提交中缺少答案单元格 {grade_id}：按空答案评分" in chinese
    assert any(
        n.startswith("1 code cell(s) outside the answer cells were not run") for n in english
    )
    assert any(n.startswith("答案单元格之外的 1 个代码单元格没有运行") for n in chinese)
    assert len(chinese) == len(english) == 2
