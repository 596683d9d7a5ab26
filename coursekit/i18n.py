"""The messages a student or instructor reads, in the language they are meant for (gettext).

One domain (DOMAIN) whose catalogues live in the package, coursekit/locale/<ll_CC>/LC_MESSAGES/
(the .po written by people, its compiled .mo shipped beside it: `make messages` extracts the
marked strings, updates the .po and compiles it; tests/test_messages.py holds the .mo to the
.po and every marked string to a translation). English is the source text and the default; a
message with no translation falls back to it.

Which language: $MINIGRAD_COURSE_LANG where set (an override), else the one `speaking(...)`
chose for what runs inside it (`check` and Validate: the notebook's, from its metadata; a
class's pages: its course_language), else English. PyTorch's own texts are never passed
through here: they are what the student meets, quoted as PyTorch prints them.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext
import os
from pathlib import Path

from coursekit.languages import DEFAULT, LANGUAGES, checked

DOMAIN = "minigrad-course"
LOCALE_DIR = Path(__file__).with_name("locale")
OVERRIDE = "MINIGRAD_COURSE_LANG"

_chosen: contextvars.ContextVar[str | None] = contextvars.ContextVar("language", default=None)


def current() -> str:
    """The language messages are written in here and now. An override the course is not
    written in is passed over (a message is never refused for its language: it may be a
    grading kernel's); `zh_CN`, as gettext spells it, is zh-CN."""
    override = os.environ.get(OVERRIDE, "").replace("_", "-")
    return override if override in LANGUAGES else _chosen.get() or DEFAULT


def chosen() -> str | None:
    """The language `speaking(...)` chose around this call; None where none was chosen."""
    return _chosen.get()


def terminal_language() -> str | None:
    """The course's language a terminal's locale asks for (LC_ALL, LC_MESSAGES, LANG, as
    gettext reads them: zh_CN.UTF-8 -> zh-CN); None where it asks for none the course has.
    Only a command line's own help follows it: a notebook's checks follow the notebook."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            language = value.partition(".")[0].replace("_", "-")
            return language if language in LANGUAGES else None
    return None


@contextlib.contextmanager
def speaking(language: str | None):
    """Messages made inside are in `language` (None: as outside), unless overridden."""
    token = _chosen.set(checked(language) if language else _chosen.get())
    try:
        yield
    finally:
        _chosen.reset(token)


def locale_name(language: str) -> str:
    """'zh-CN' (the course's name, as notebooks and --lang write it) -> 'zh_CN' (gettext's)."""
    return language.replace("-", "_")


@functools.cache
def catalogue(language: str) -> gettext.NullTranslations:
    """The language's compiled catalogue; a null one (English) for the default."""
    if language == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[locale_name(language)], fallback=True)


def _(message: str) -> str:
    """`message` in the current language (English where it has no translation)."""
    return catalogue(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return catalogue(current()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a message kept as data (translated where it is shown, with _)."""
    return message


@functools.cache
def folder_language(folder: str) -> str:
    """The language the notebooks in `folder` were made in (a lecture's kernel runs in its
    folder, and a lecture knows no file name to look for): the first notebook there that
    says one (coursekit/languages.py), else English. Read once per folder and process."""
    import json

    from coursekit.languages import notebook_language

    for path in sorted(Path(folder).glob("*.ipynb")):
        try:
            language = notebook_language(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
        if language != DEFAULT:
            return language
    return DEFAULT
