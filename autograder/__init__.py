"""autograder: checks any engine against PyTorch, scenario by scenario.

    import autograder, minigrad
    report = autograder.check(minigrad)          # whole CPU catalogue, fresh seed
    print(report)                                # or display it in Jupyter (HTML)

observe() runs scenarios on one engine (never importing torch itself); compare() decides;
check() does both with PyTorch as the reference.

Once-only warnings (PyTorch warns once per process, e.g. "Converting a tensor with
requires_grad=True to a scalar ...") are observed as their first occurrence in a
fresh process: scenarios marked `fresh_process` run in a child forked from a clean interpreter
that imported the engine and nothing else. An engine a fresh interpreter cannot import (one built
in a notebook) is observed in the running process instead, and the report says so.
"""

from autograder.check import ReferenceVersionWarning, check
from autograder.compare import compare
from autograder.engine import NULL_ENGINE, engine_from
from autograder.observe import observe
from autograder.report import Report
from autograder.scenarios import scenario

__all__ = [
    "NULL_ENGINE",
    "ReferenceVersionWarning",
    "Report",
    "check",
    "compare",
    "engine_from",
    "observe",
    "scenario",
]
