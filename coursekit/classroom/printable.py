"""Text from students shown on the instructor's terminal, without terminal control codes.

Student ids, names and file names come from rosters, the exchange and LMS downloads; an
escape sequence in one (`\x1b]0;...`, `\x1b[2J`) would retitle, clear or rewrite the
instructor's terminal. Every CLI line that shows such text passes it through `printable`.
"""

from __future__ import annotations


def printable(text) -> str:
    """`text` with each character a terminal would not print (controls, bidi overrides) as
    its Python escape (`\\x1b`, `\\u202e`); letters of every script stay as they are."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in str(text))
