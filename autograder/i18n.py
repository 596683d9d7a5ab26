"""The course's message catalogues (coursekit/i18n.py) where the course is installed around
the checker; the checker alone speaks English."""

import contextlib
import functools


@functools.cache
def _course():
    """coursekit.i18n, or None where the checker runs alone (a sealed run stages it so): looked
    for once per process, not on every message (a failed import searches the path each time)."""
    try:
        from coursekit import i18n
    except ImportError:
        return None
    return i18n


def _(message: str) -> str:
    course = _course()
    return message if course is None else course._(message)


def language() -> str:
    """The language messages are written in here (coursekit.i18n.current), else English."""
    course = _course()
    return "en" if course is None else course.current()


def N_(message: str) -> str:
    """Marks a message kept as data (translated where it is shown, with _)."""
    return message


def columns(text: str) -> int:
    """How many columns a terminal gives `text` (a Chinese character takes two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def padded(text: str, width: int) -> str:
    """`text` padded to `width` columns, so that translated labels still line up."""
    return text + " " * max(width - columns(text), 0)


def languages() -> tuple[str, ...]:
    """The languages messages can be made in: the course's, where it is installed around the
    checker; English alone."""
    course = _course()
    return ("en",) if course is None else course.LANGUAGES


def folder_language() -> str:
    """The language of the notebooks in the current folder (a lecture's kernel runs in its
    folder: coursekit.i18n.folder_language), else English."""
    course = _course()
    if course is None:
        return "en"
    import os

    return course.folder_language(os.getcwd())


@contextlib.contextmanager
def speaking(language: str):
    """Messages made inside in `language` (coursekit.i18n.speaking), where the course is
    installed around the checker; English alone."""
    course = _course()
    if course is None:
        yield
        return
    with course.speaking(language):
        yield


def in_the_folders_language(method):
    """`method`'s messages in the language of the notebooks in the current folder (a
    lecture's, folder_language), where the course is installed around the checker and no
    language was chosen around the call (a class's pages choose theirs)."""

    @functools.wraps(method)
    def speaking_method(*args, **kwargs):
        course = _course()
        if course is not None and course.chosen() is not None:
            return method(*args, **kwargs)
        with speaking(folder_language()):
            return method(*args, **kwargs)

    return speaking_method
