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
import shutil
import textwrap
import time
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
        _save(assignment, {name: namespace[name] for name in names})
    return names


def _save(assignment: str, functions: dict) -> None:
    """Save the student's written functions of `assignment` over what was saved before,
    function by function: one not written (still raising NotImplementedError, as released)
    or not the student's (the engine's own, or its stub) keeps the saved one, so checking an
    untouched copy never loses work. The file replaced is kept in the history first
    (saved_versions(), restore())."""
    fresh = {}
    for name, fn in functions.items():
        try:
            source = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):  # defined where no source is kept: nothing to carry
            continue
        if _students(fn) and _written(source) and name in _saved_functions(source):
            fresh[name] = source.rstrip() + "\n"
    path = my_seams() / f"{assignment}.py"
    saved = _saved_functions(path.read_text()) if path.is_file() else {}
    merged = {**saved, **fresh}
    if not fresh or merged == saved:
        return
    order = [n for n in module(assignment).GRADED if n in merged]
    _write_version(assignment, [merged[n] for n in order])


def _students(fn) -> bool:
    """Whether fn was written outside the engine (a notebook's cell, a student's file)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    engine = Path(__file__).resolve().parent.parent
    try:
        return not Path(code.co_filename).resolve().is_relative_to(engine)
    except (OSError, ValueError):
        return True


_HEADER = "from minigrad.seams.{assignment} import *  # noqa: F403\n\n\n"


def _saved_functions(text: str) -> dict[str, str]:
    """The top-level functions of a saved file, by name, as written (decorators included);
    {} for a file that does not parse (its history keeps it; restore() brings it back)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    lines = text.splitlines()
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            found[node.name] = "\n".join(lines[first : node.end_lineno]) + "\n"
    return found


def _history(assignment: str) -> Path:
    return my_seams() / "history" / assignment


def _write_version(assignment: str, sources) -> Path:
    """Write the assignment's saved file, first moving the one it replaces into the history."""
    path = _archive(assignment)
    path.write_text(_HEADER.format(assignment=assignment) + "\n\n".join(sources))
    return path


def _archive(assignment: str) -> Path:
    """Copy the assignment's saved file (if any) into its history; its path."""
    path = my_seams() / f"{assignment}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file():
        history = _history(assignment)
        history.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(path.stat().st_mtime))
        number = len(list(history.glob("*.py"))) + 1
        shutil.copy2(path, history / f"{number:03d}-{stamp}.py")
    return path


def saved_versions(assignment: str) -> list[dict]:
    """The versions of an assignment's saved functions, oldest first, the current one last:
    each {"version": n, "path", "saved" (a time), "functions": [names]} (version 0 is the
    current file)."""
    versions = []
    paths = sorted(_history(assignment).glob("*.py")) if _history(assignment).is_dir() else []
    current = my_seams() / f"{assignment}.py"
    for number, path in enumerate([*paths, current] if current.is_file() else paths, 1):
        versions.append({
            "version": 0 if path == current else number,
            "path": path,
            "saved": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(path.stat().st_mtime)),
            "functions": list(_saved_functions(path.read_text())),
        })  # fmt: skip
    return versions


def restore(assignment: str, version: int) -> Path:
    """Make an earlier version the saved one (the current one goes into the history, so a
    restore can be undone the same way)."""
    module(assignment)  # a clear error for a name that is no assignment
    found = [v for v in saved_versions(assignment) if v["version"] == version and version]
    if not found:
        raise ValueError(
            f"no saved version {version} of {assignment}: `minigrad-course saved list "
            f"{assignment}` shows the versions kept"
        )
    text = found[0]["path"].read_text()
    path = _archive(assignment)
    path.write_text(text)
    return path


def load_saved() -> list[str]:
    """Bind the functions a student saved (class edition): the assignments loaded. Each
    function is loaded on its own: one that fails is named, with what to do, and the
    engine keeps its stub for that one only."""
    if EDITION != "class":
        return []
    loaded = []
    for assignment in ASSIGNMENTS:
        path = my_seams() / f"{assignment}.py"
        if not path.is_file():
            continue
        text = path.read_text()
        functions = _saved_functions(text)
        if not functions and text.strip() != _HEADER.format(assignment=assignment).strip():
            _warn_saved(assignment, path, "the file", "it is not valid Python")
            continue
        # one namespace, as the notebook had: a function may call another one saved with it
        namespace = {"__name__": f"my_{assignment}"}
        exec(compile(_HEADER.format(assignment=assignment), str(path), "exec"), namespace)
        bound = []
        for name, source in functions.items():
            if name not in module(assignment).GRADED:
                continue
            try:
                exec(compile(source, str(path), "exec"), namespace)
                use(assignment, namespace, [name])
            except Exception as exc:  # noqa: BLE001  (the student's code: say so, go on without)
                _warn_saved(assignment, path, f"{name}()", f"{type(exc).__name__}: {exc}")
                continue
            bound.append(name)
        if bound:
            loaded.append(assignment)
    return loaded


def _warn_saved(assignment: str, path: Path, what: str, why: str) -> None:
    warnings.warn(
        f"your saved {what} of {assignment} ({path}) could not be used: {why}. The engine "
        f"keeps the stub for it: rerun the {assignment} notebook (the cell that defines it, "
        f"then the cell that binds your functions) to save it again, or bring back an "
        f"earlier version: minigrad-course saved list {assignment}",
        stacklevel=3,
    )


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
