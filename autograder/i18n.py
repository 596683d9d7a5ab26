"""The course's message catalogues (coursekit/i18n.py) where the course is installed around
the checker; the checker alone speaks English."""


def _(message: str) -> str:
    try:
        from coursekit.i18n import _ as translated
    except ImportError:
        return message
    return translated(message)


def language() -> str:
    """The language messages are written in here (coursekit.i18n.current), else English."""
    try:
        from coursekit.i18n import current
    except ImportError:
        return "en"
    return current()


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


def in_the_folders_language(method):
    """`method`'s messages in the language of the notebooks in the current folder (a
    lecture's, coursekit.i18n.folder_language), where the course is installed around the
    checker."""
    import functools

    @functools.wraps(method)
    def speaking_method(*args, **kwargs):
        try:
            from coursekit.i18n import folder_language, speaking
        except ImportError:
            return method(*args, **kwargs)
        import os

        with speaking(folder_language(os.getcwd())):
            return method(*args, **kwargs)

    return speaking_method
