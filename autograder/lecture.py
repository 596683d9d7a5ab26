"""A lecture that goes on where a part is missing: a function the student has not built yet,
or an optional package (PyTorch, matplotlib) that is not installed.

Each lecture's first cell calls `keep_going()`. From then on, a cell that stops because of
one of those says so in one line (which assignment builds the function; which extra to
install) instead of a traceback, and counts as run, so that "Run All" and a headless run go
on to the next cell. Names that such a cell would have defined are remembered: a later cell
that needs one of them says where it comes from, rather than raising a bare NameError. Any
other error is shown as always and stops the lecture, as it should.
"""

from __future__ import annotations

import ast
import importlib.metadata

from autograder.i18n import _, in_the_folders_language
from minigrad import seams

# optional package -> (what it is called in a message, extra of the students' distribution)
OPTIONAL = {"torch": ("PyTorch", "torch"), "matplotlib": ("matplotlib", "lab")}
STUDENT_DISTRIBUTION = "minigrad-course-student"
_unmade: dict[str, str] = {}  # name -> why the cell that defines it stopped


def install_hint(package: str) -> str:
    """The pip command that brings `package` into this installation of the course."""
    try:
        importlib.metadata.version(STUDENT_DISTRIBUTION)
        return f"pip install '{STUDENT_DISTRIBUTION}[{OPTIONAL[package][1]}]'"
    except importlib.metadata.PackageNotFoundError:
        return "pip install 'minigrad-course[course]'"


@in_the_folders_language
def why_stopped(exc: BaseException) -> str | None:
    """One line saying why a cell stopped, when it is a missing part the lecture can go on
    without; None for any other error."""
    reason = _missing_part(exc)
    if reason is None and isinstance(exc, NameError):
        name = getattr(exc, "name", None)
        if name in _unmade:
            why = _unmade[name]
            said = _(
                "skipped: this cell needs `{name}`, which a cell above could not make ({why})."
            )
            return said.format(name=name, why=why)
    if reason is None:
        return None
    if isinstance(exc, seams.SeamNotBuilt):
        return _(
            "minigrad stops here: {reason}. The lecture goes on; once it is built, this cell "
            "runs in full."
        ).format(reason=reason)
    return _("skipped: this cell {reason}; the lecture goes on.").format(reason=reason)


def _missing_part(exc: BaseException) -> str | None:
    """What is missing, in a few words: a function not built yet, or a package."""
    if isinstance(exc, seams.SeamNotBuilt):
        number = seams.ASSIGNMENTS.index(exc.waiting_for) + 1
        function = str(exc).split(" is not built yet", 1)[0]
        return _(
            "{function} is not built yet; you build it in assignment {number} ({assignment})"
        ).format(function=function, number=number, assignment=exc.waiting_for)
    package = (getattr(exc, "name", None) or "").split(".")[0]
    if isinstance(exc, ImportError) and package in OPTIONAL:
        return _("needs {package}, not installed here: {hint}").format(
            package=OPTIONAL[package][0], hint=install_hint(package)
        )
    return None


def defined_names(source: str) -> set[str]:
    """The names a cell's top-level statements bind (what it would have defined)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def went_on(exc: BaseException, source: str) -> str | None:
    """The line a cell whose `source` raised `exc` says where the lecture goes on past it,
    remembering the names the cell would have defined; None for any other error (the cell
    fails). The kernel's handler below, and a run of the cells without a kernel
    (bench.gpu.lectures), both decide here."""
    line = why_stopped(exc)
    if line is not None:
        name = getattr(exc, "name", None)
        reason = _unmade[name] if isinstance(exc, NameError) else _missing_part(exc)
        for made in defined_names(source):
            _unmade.setdefault(made, reason)
    return line


def _handler(shell, etype, value, tb, tb_offset=None):
    result = getattr(shell.displayhook, "exec_result", None)
    line = went_on(value, (result.info.raw_cell or "") if result is not None else "")
    if line is None:  # not ours: the usual traceback, and the cell fails
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        shell._showtraceback(etype, value, stb)
        return None
    if result is not None:
        result.error_in_exec = None  # the cell counts as run: the lecture goes on
    print(line)
    return None


def keep_going() -> None:
    """In IPython (a lecture's kernel): cells that stop on a missing part say why in one
    line and the lecture goes on. Elsewhere nothing changes."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((seams.SeamNotBuilt, ImportError, NameError), _handler)
