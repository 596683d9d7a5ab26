"""Planted bugs: minigrad with exactly one mistake students typically make, as an edit of its
source. The engine's planted bugs (tests/planted_bugs.py) and the exercises' (a typical wrong
answer, coursekit/exercises/planted.py) are the same kind of thing:

    Bug(rule, file, text, replacement, why)

- rule: the rule (autograder/rules.py) the mistake breaks (a scenario naming it must catch it);
- file: the source file it edits, relative to minigrad/ ("ops/views.py", "seams/leaf_nodes.py");
- text: the source it changes, which must occur exactly once in that file (for an exercise's
  bug, inside the reference answer, so it also plants into an answer cell);
- replacement: what the buggy source has instead;
- why: what goes wrong, in a sentence.

planted_in() applies a bug to a source text (a whole file, or an answer cell);
planted_engine() to a fresh copy of the minigrad package, so a bug never leaks into the real
minigrad or into another planted engine.
"""

from __future__ import annotations

import atexit
import importlib.util
import itertools
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple


class Bug(NamedTuple):
    rule: str
    file: str
    text: str
    replacement: str
    why: str


def planted_in(source: str, bug: Bug) -> str | None:
    """`source` with `bug` planted, or None when its text is not in it; the text may end the
    source (an answer's last line with its newline). Its text must occur once, so that a bug
    is planted where it was meant to be."""
    text = source + "\n"
    if bug.text not in text:
        return None
    assert text.count(bug.text) == 1, f"the bug's text occurs more than once: {bug.text!r}"
    trailing = source[len(source.rstrip("\n")) :]  # a file's last newline stays
    return text.replace(bug.text, bug.replacement).rstrip("\n") + trailing


_copies = itertools.count()
_folder: Path | None = None  # the copies, kept while the process runs (modules import lazily)


def planted_engine(bug: Bug, tag: str = "copy"):
    """A fresh minigrad package object (its own Tensor class, state and nodes), loaded under a
    new module name from a copy of minigrad's source with `bug` planted."""
    from coursekit.edition import ENGINE  # minigrad's own source (imported only when planting)

    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="minigrad_planted_"))
        atexit.register(shutil.rmtree, _folder, ignore_errors=True)
    tag = re.sub(r"\W", "_", tag)  # a top-level module name: no dots
    name = f"minigrad_planted_{tag}_{next(_copies)}"
    package = _folder / name
    shutil.copytree(ENGINE, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    path = package / bug.file
    buggy = planted_in(path.read_text(), bug)
    assert buggy is not None, f"the bug's text is not in minigrad/{bug.file}: {bug.text!r}"
    path.write_text(buggy)
    spec = importlib.util.spec_from_file_location(
        name, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # relative imports inside the copy resolve through this name
    spec.loader.exec_module(module)
    return module
