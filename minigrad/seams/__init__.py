"""The engine's seams: the functions students build in the exercises, inside minigrad itself.

Each assignment of the course owns one module here (`leaf_nodes.py`, `detach_numpy.py`, ...).
Its graded functions are ordinary parts of the engine: the rest of minigrad calls them through
the module (`_leaf.read_grad(self)`), never by a copy, so rebinding a module attribute changes
what every tensor does. In this edition (the clone, the self-paced course) their bodies are the
reference answers, between nbgrader's solution markers; the class edition (`edition.py`) ships
the same files with those bodies replaced by a stub naming the assignment that builds them.

An exercise notebook imports the module's helpers, the student writes the graded functions,
and one line binds them into the engine:

    minigrad.seams.use("leaf_nodes", globals())            # all of them
    minigrad.seams.use("leaf_nodes", globals(), ["read_grad"])  # just one (grading in isolation)

Each module's GRADED maps a graded function to the rules whose scenarios it decides, so a test
cell can bind only the functions of its rules and keep the reference (or the stub) for the rest.

In the class edition (EDITION "class"), binding all of an assignment's functions also saves
their source in the student's own folder (my_seams()), and `import minigrad` binds what was saved:
a student's engine carries their earlier assignments forward into the next notebook and the
lectures. The self-paced edition never reads or writes that folder.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import textwrap
import warnings
from pathlib import Path
from types import ModuleType

EDITION = "self-paced"  # coursekit.edition writes "class" into the class edition's copy


def my_seams() -> Path:
    """Where the class edition keeps a student's functions between kernels (one file each):
    $MINIGRAD_MY_SEAMS, else ~/.minigrad/my_seams (read only in the class edition, and
    never failing where a process has no home directory)."""
    configured = os.environ.get("MINIGRAD_MY_SEAMS")
    if configured:
        return Path(configured)
    return Path(os.path.expanduser("~")) / ".minigrad" / "my_seams"


# Course order, as the lectures: the first assignment is numbered 1.
ASSIGNMENTS = (
    "leaf_nodes",
    "detach_numpy",
    "inplace_versions",
    "rebuilding_tensors",
    "devices",
)

_ORIGINALS: dict[str, dict[str, object]] = {}  # what each module held before any use()


class SeamNotBuilt(NotImplementedError):
    """A graded function that this edition leaves to the student, called before it is built.
    `waiting_for` names the assignment that builds it ("leaf_nodes"), or, for a function the
    student's notebook binds while its answer cell is still as released, that function too
    ("leaf_nodes.accumulate_grad"): the checker (autograder) then reports the scenario as
    waiting for it rather than as a difference from PyTorch."""

    def __init__(self, message: str, assignment: str):
        super().__init__(message)
        self.waiting_for = assignment


def not_built(assignment: str, name: str) -> SeamNotBuilt:
    """The error a stub raises: which function is missing and which assignment builds it."""
    number = ASSIGNMENTS.index(assignment) + 1
    return SeamNotBuilt(
        f"{name}() is not built yet: you write it in assignment {number}, {assignment} "
        f"(exercises/{assignment}/{assignment}.ipynb). Until then, the operations that need "
        "it stop here.",
        assignment,
    )


def not_written(assignment: str, name: str) -> SeamNotBuilt:
    """What a bound answer cell still as released raises (instead of its bare
    NotImplementedError): it names the function, so every verdict that stops there does."""
    return SeamNotBuilt(
        f"{name}() is not written yet: its answer cell in the {assignment} notebook still "
        "raises NotImplementedError",
        f"{assignment}.{name}",
    )


def waiting_parts(waiting_for: str) -> tuple[str, str]:
    """(assignment, function) of a SeamNotBuilt's `waiting_for` (function "" when unnamed)."""
    assignment, _, name = waiting_for.partition(".")
    return assignment, name


def module(assignment: str) -> ModuleType:
    if assignment not in ASSIGNMENTS:
        raise ValueError(
            f"no assignment named {assignment!r}: the assignments are {', '.join(ASSIGNMENTS)}"
        )
    return importlib.import_module(f"{__name__}.{assignment}")


def graded(assignment: str) -> dict[str, tuple[str, ...]]:
    """The assignment's graded functions, each with the rules it decides."""
    return dict(module(assignment).GRADED)


def functions_for(assignment: str, rules) -> list[str]:
    """The graded functions that decide any of `rules` (what a test cell binds)."""
    wanted = set(rules)
    return [name for name, decides in graded(assignment).items() if wanted & set(decides)]


def use(assignment: str, namespace: dict, names=None) -> list[str]:
    """Bind the functions `namespace` defines (a notebook's globals) into the engine.

    `names` None binds every graded function of the assignment, which must all be defined.
    Returns the names bound. Signatures must match the engine's, so that a typo is reported
    here and not as a strange failure deep inside an operation.
    """
    seam = module(assignment)
    binding_all = names is None  # the notebook's bind line, not a test cell's
    names = list(seam.GRADED) if binding_all else list(names)
    originals = _ORIGINALS.setdefault(assignment, {n: getattr(seam, n) for n in seam.GRADED})
    for name in names:
        if name not in seam.GRADED:
            raise ValueError(f"{name} is not a graded function of {assignment}")
        given = namespace.get(name)
        if not callable(given):
            raise NameError(
                f"{name} is not defined: run the cell that defines it before binding "
                f"{assignment}'s functions into the engine"
            )
        want = _parameters(originals[name])
        if _parameters(given) != want:
            raise TypeError(
                f"{name} must take the parameters ({', '.join(want)}), as the engine calls it; "
                f"yours takes ({', '.join(_parameters(given))})"
            )
    for name in names:
        setattr(seam, name, _named_if_unwritten(assignment, name, namespace[name]))
    if EDITION == "class" and binding_all:
        _save(assignment, [namespace[name] for name in names])
    return names


def _save(assignment: str, functions) -> None:
    """The source of a student's written functions, with the import their notebook gives
    them. One still raising NotImplementedError (as released) is left out, so that the next
    notebook's engine keeps the stub that names the assignment to finish."""
    try:
        sources = [inspect.getsource(fn) for fn in functions]
    except (OSError, TypeError):  # defined where no source is kept: nothing to carry
        return
    sources = [text for text in sources if _written(text)]
    header = f"from minigrad.seams.{assignment} import *  # noqa: F403\n\n\n"
    folder = my_seams()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{assignment}.py").write_text(header + "\n\n".join(sources))


def load_saved() -> list[str]:
    """Bind the functions a student saved (class edition): the assignments loaded."""
    if EDITION != "class":
        return []
    loaded = []
    for assignment in ASSIGNMENTS:
        path = my_seams() / f"{assignment}.py"
        if not path.is_file():
            continue
        namespace = {"__name__": f"my_{assignment}"}
        try:
            exec(compile(path.read_text(), str(path), "exec"), namespace)
            use(assignment, namespace, [n for n in module(assignment).GRADED if n in namespace])
        except Exception as exc:  # noqa: BLE001  (the student's code: say so, go on without)
            warnings.warn(
                f"your saved {assignment} functions ({path}) could not be used: {exc}; rerun "
                f"the {assignment} notebook to save them again",
                stacklevel=2,
            )
            reset(assignment)
            continue
        loaded.append(assignment)
    return loaded


def reset(assignment: str | None = None) -> None:
    """Give the engine back the functions it had before use() (all assignments by default)."""
    for name in [assignment] if assignment else list(_ORIGINALS):
        for attr, fn in _ORIGINALS.pop(name, {}).items():
            setattr(module(name), attr, fn)


def _named_if_unwritten(assignment: str, name: str, fn):
    """`fn`, or, when its source is an answer cell as released, a stand-in that raises
    not_written(...) (a bare NotImplementedError would leave the student guessing which)."""
    try:
        written = _written(inspect.getsource(fn))
    except (OSError, TypeError):  # no source kept: bind it as it is
        written = True
    if written:
        return fn

    def unwritten(*args, **kwargs):
        raise not_written(assignment, name)

    unwritten.__signature__ = inspect.signature(fn)
    return unwritten


def _written(source: str) -> bool:
    """False for a function whose body (docstring aside) only raises NotImplementedError:
    an answer cell as released, not yet written."""
    try:
        body = ast.parse(textwrap.dedent(source)).body[0].body
    except (SyntaxError, IndexError, AttributeError):
        return True  # not ours to judge here: binding it reports the problem
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return True
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return not (isinstance(raised, ast.Name) and raised.id == "NotImplementedError")


def _parameters(fn) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ["?"]
