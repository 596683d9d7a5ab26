"""autograder: checks any engine against PyTorch, scenario by scenario.

    import autograder, minigrad
    report = autograder.check(minigrad)          # whole CPU catalogue, fresh seed
    print(report)                                # or display it in Jupyter (HTML)

observe() runs scenarios on one engine (never importing torch itself); compare() decides;
check() does both with PyTorch as the reference.
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
