"""The messages a student reads, through the gettext catalogues (coursekit/i18n.py, issue 35).

Every message the code marks, and every rule's statement, has its zh-CN translation; the
compiled .mo the package ships is the .po's; each translation uses the glossary's terms; a
message without a translation is English; the notebook's language chooses, the override wins."""

from __future__ import annotations

import gettext
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
def test_every_message_the_code_marks_and_every_rule_has_a_translation(tool, language):
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
        assert sorted(re.findall(r"\{\w*\}", english)) == sorted(re.findall(r"\{\w*\}", chinese)), (
            english
        )


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


def test_a_notebook_made_in_chinese_says_so_and_a_strange_one_is_english():
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("A leaf.")])
    assert notebook_language(nb) == "en"
    assert notebook_language(in_language(nb, "zh-CN")) == "zh-CN"
    for metadata in ({"course_language": "fr"}, {"course_language": ["zh-CN"]}, []):
        assert notebook_language({"metadata": metadata}) == "en"
    assert notebook_language([]) == "en"
