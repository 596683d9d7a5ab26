"""The instructor's report figures in the class's language (issue 35): SVG whose words are text
the browser draws with its own fonts (no system font for matplotlib), every word inside the
figure as a browser draws it."""

from __future__ import annotations

import re
import unicodedata
import warnings
import xml.etree.ElementTree as ET

import pytest

from bench.gradebook import build_gradebook
from coursekit.classroom.results import report
from coursekit.i18n import OVERRIDE, speaking

SVG = "{http://www.w3.org/2000/svg}"
FIGURES = ("score_distribution.svg", "scenario_pass_rate.svg", "failure_messages.svg")


@pytest.fixture(autouse=True)
def gradebook_schema_in_process(monkeypatch):
    from coursekit.nbgrader_schema import answer_in_process

    monkeypatch.delenv(OVERRIDE, raising=False)
    answer_in_process()


def words(svg_path) -> list[str]:
    return [t.text for t in ET.parse(svg_path).getroot().iter(SVG + "text")]


def test_a_chinese_classs_report_has_its_figures_words_in_chinese(tmp_path):
    course = build_gradebook(tmp_path / "class", students=4, assignments=2, cells=2, seed=1)
    english = report.write_report(course, tmp_path / "en")
    (course.root / "course_language").write_text("zh-CN\n")  # as `init --lang zh-CN` writes
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "Glyph ... missing" among them
        chinese = report.write_report(course, tmp_path / "zh")
    drawn = [name for name in FIGURES if (chinese.parent / name).is_file()]
    assert "score_distribution.svg" in drawn
    for name in drawn:
        assert f'<img src="{name}"' in chinese.read_text()
    assert {"分数（%）", "提交数"} <= set(words(chinese.parent / "score_distribution.svg"))
    assert {"score (%)", "submissions"} <= set(words(english.parent / "score_distribution.svg"))
    assert "score (%)" not in words(chinese.parent / "score_distribution.svg")


@pytest.fixture(scope="module")
def advance():
    """A character's advance in the figures' font (DejaVu Sans, which matplotlib ships), read
    from the font, in ems."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    font = FT2Font(font_manager.findfont("DejaVu Sans", fallback_to_default=False))
    font.set_size(100, 72)

    def em(ch: str) -> float:
        if unicodedata.east_asian_width(ch) in "WF":
            return 1.0  # drawn from the browser's CJK font: one em, whichever
        return font.load_char(ord(ch)).linearHoriAdvance / 65536 / 100

    return em


def outside_the_figure(svg_path, em) -> list[str]:
    """The texts that a browser draws past the figure's edges (along their line)."""
    root = ET.parse(svg_path).getroot()
    _, _, width, height = (float(v) for v in root.get("viewBox").split())
    outside = []
    for t in root.iter(SVG + "text"):
        style = dict(p.split(": ", 1) for p in t.get("style").split("; "))
        size = float(style["font-size"].removesuffix("px"))
        length = size * sum(em(ch) for ch in t.text)
        before = {"start": 0, "middle": 0.5, "end": 1}[style.get("text-anchor", "start")]
        angle = float(re.match(r"rotate\((\S+) ", t.get("transform", "rotate(0 0 0)"))[1])
        along, room = (
            (float(t.get("x")), width) if angle % 180 == 0 else (float(t.get("y")), height)
        )
        if along - before * length < 0 or along + (1 - before) * length > room:
            outside.append(t.text)
    return outside


def test_long_chinese_labels_stay_inside_their_figure(tmp_path, advance):
    data = {
        "assignments": ["leaf_nodes", "detach_numpy"],
        "percent": {"leaf_nodes": [10.0, 55.0, 90.0], "detach_numpy": [100.0]},
        "pass_rate": {"leaf_nodes.grad_is_none": 0.5},
        "attempts": {"leaf_nodes.grad_is_none": 4},
        "messages": [
            (
                "张量不需要梯度，所以没有 grad_fn：请检查 requires_grad 的设置，"
                "以及是否在 no_grad 之中",
                3,
            ),
            ("叶子节点的 .grad 是 None", 5),
        ],
    }
    with speaking("zh-CN"):
        drawn = [
            report._plot_scores(data, tmp_path / "s.svg"),
            report._plot_pass_rates(data, tmp_path / "p.svg"),
            report._plot_messages(data, tmp_path / "m.svg"),
        ]
    assert all(drawn)
    assert "通过率（%），括号中为提交数" in words(tmp_path / "p.svg")
    assert "测试单元格数" in words(tmp_path / "m.svg")
    for name in ("s.svg", "p.svg", "m.svg"):
        assert outside_the_figure(tmp_path / name, advance) == [], name
