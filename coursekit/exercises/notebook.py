"""Build each assignment's nbgrader source notebook (solutions/<name>/<name>.ipynb).

One notebook = the shared skeleton (skeleton.py), the other four parts given solved (so the
assignment stands alone), this assignment's part with nbgrader's solution markers, and its
test cells: each hidden tests that run the autograder's scenarios for one rule (first, so that
a graded cell's feedback is the autograder's report naming the rule) and a short visible
test; a last cell runs the scenarios on CUDA. Everything is deterministic (cell ids
included), so regenerating gives identical files.
"""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.rules import statement
from autograder.scenarios import select
from coursekit.exercises.assignments import ASSIGNMENTS, KIT, Assignment
from coursekit.exercises.cells import read_cells, without_markers
from coursekit.sealed.contract import CHECK_KEY
from coursekit.sealed.grade import IMPORTABLE

NBGRADER_SCHEMA = 3
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def cpu_points(a: Assignment, rule: str) -> float:
    return sum(sc.weight for sc in select(rules=[rule], topics=[a.topic], device="cpu"))


def cuda_points(a: Assignment) -> float:
    return sum(sc.weight for sc in select(rules=a.cuda_rules, topics=[a.topic], device="cuda"))


def engine_names(a: Assignment) -> list[str]:
    """The engine names the graded scenarios use: the assignment's contract with engine_from."""
    chosen = select(rules=a.rules, topics=[a.topic]) + select(rules=a.cuda_rules, topics=[a.topic])
    return sorted({name for sc in chosen for name in sc.needs})


def student_functions(a: Assignment) -> list[str]:
    """Top-level functions and classes the student's solution cells define."""
    names = []
    for cell in read_cells(a.part_file):
        if cell.kind == "solution":
            for line in cell.source.splitlines():
                if line.startswith(("def ", "class ")):
                    names.append(line.split()[1].split("(")[0].rstrip(":"))
    return names


def check_data(a: Assignment, rules, device="cpu") -> dict:
    """A test cell's check, as its metadata states it (coursekit.sealed.contract reads it)."""
    return {"topic": a.topic, "rules": list(rules), "device": device}


def hidden_check(a: Assignment, rules, device="cpu") -> str:
    args = f'globals(), "{a.topic}", {list(rules)!r}'
    if device != "cpu":
        args += f', "{device}"'
    where = "on a GPU" if device == "cuda" else "on fresh values"
    return (
        f"# Graded: hidden tests run the autograder's scenarios for rule {', '.join(rules)} "
        f"{where}.\n"
        "### BEGIN HIDDEN TESTS\n"
        "from coursekit.exercises.grading import grade\n\n"
        f"grade({args})\n"
        "### END HIDDEN TESTS"
    )


def visible_check(a: Assignment, rule: str) -> str:
    """The check a student sees and Validate runs: the rule's scenarios on public values."""
    return (
        "from coursekit.exercises.grading import check_rule\n\n"
        f'check_rule(globals(), "{a.topic}", ["{rule}"])  # its scenarios, against PyTorch\n'
    )


class _Builder:
    """Collects cells with deterministic ids and nbgrader metadata."""

    def __init__(self, name: str):
        self.name, self.cells, self.count = name, [], 0

    def _id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}-{self.count:03d}"

    def markdown(self, source: str) -> None:
        self.cells.append(new_markdown_cell(source, id=self._id("md")))

    def locked(self, source: str) -> None:
        cell_id = self._id("engine")
        self.cells.append(new_code_cell(source, id=cell_id, metadata=_meta(cell_id, locked=True)))

    def solution(self, source: str) -> None:
        cell_id = self._id("solution")
        self.cells.append(new_code_cell(source, id=cell_id, metadata=_meta(cell_id, solution=True)))

    def test(self, grade_id: str, source: str, points: float, check: dict) -> None:
        meta = _meta(grade_id, grade=True, locked=True, points=points)
        meta[CHECK_KEY] = {"checks": [check]}  # what the sealed run grades, read as data
        self.cells.append(new_code_cell(source, id=grade_id, metadata=meta))


def _meta(grade_id, *, solution=False, grade=False, locked=False, points=None) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": NBGRADER_SCHEMA,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def build_notebook(a: Assignment) -> nbformat.NotebookNode:
    nb = _Builder(a.name)
    nb.markdown(intro_text(a))
    for cell in read_cells(KIT / "skeleton.py"):
        (nb.markdown if cell.kind == "markdown" else nb.locked)(cell.source)
    nb.markdown(
        "## Given: the other assignments' parts, solved\n\n"
        "The engine also needs the pieces the other assignments are about. They are given "
        "here, solved, so that this assignment stands on its own."
    )
    for other in ASSIGNMENTS:
        if other is a:
            continue
        nb.markdown(f"### From `{other.name}`")
        for cell in read_cells(other.part_file):
            if cell.kind in ("code", "solution"):
                nb.locked(without_markers(cell.source))
    part = read_cells(a.part_file)
    # Hidden tests need the whole engine: the test cells, each group with the heading just
    # before it, come after the last of the student's functions; the GPU cell comes last.
    deferred = {
        i
        for i, c in enumerate(part)
        if c.kind in ("test", "cuda")
        or (c.kind == "markdown" and i + 1 < len(part) and part[i + 1].kind in ("test", "cuda"))
    }
    (gpu,) = [i for i, c in enumerate(part) if c.kind == "cuda"]
    order = [i for i in range(len(part)) if i not in deferred]
    order += [i for i in sorted(deferred) if i not in (gpu - 1, gpu)]
    tested = []
    for cell in (part[i] for i in order):
        if cell.kind == "markdown":
            nb.markdown(cell.source)
        elif cell.kind == "code":
            nb.locked(cell.source)
        elif cell.kind == "solution":
            nb.solution(cell.source)
        else:
            rule = cell.args
            if rule not in a.rules:
                raise ValueError(f"{a.part_file.name}: test cell for ungraded rule {rule!r}")
            tested.append(rule)
            nb.test(
                f"test_{rule}",
                hidden_check(a, [rule]) + "\n\n" + visible_check(a, rule) + cell.source,
                cpu_points(a, rule),
                check_data(a, [rule]),
            )
    if sorted(tested) != sorted(a.rules):
        raise ValueError(f"{a.part_file.name}: test cells for {tested}, graded rules {a.rules}")
    nb.markdown(grading_table(a))
    nb.markdown(part[gpu - 1].source)
    nb.test(
        f"test_cuda_{a.name}",
        hidden_check(a, a.cuda_rules, "cuda") + "\n\n" + part[gpu].source,
        cuda_points(a),
        check_data(a, a.cuda_rules, "cuda"),
    )
    return new_notebook(
        cells=nb.cells,
        metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
    )


def intro_text(a: Assignment) -> str:
    functions = ", ".join(f"`{name}`" for name in student_functions(a))
    names = ", ".join(f"`{name}`" for name in engine_names(a))
    return f"""# {a.title}

{a.intro}

This assignment follows the lecture `{a.lecture}`; reread it when a test fails (each
failure names the section).

**How it works.** Run the notebook top to bottom. The engine's cells are read-only; your
code goes where a cell says `# YOUR CODE HERE` (replace the `raise NotImplementedError()`).
Each test cell checks one rule of the course. What you can run now (and Validate runs):
`check_rule(...)`, the autograder's scenarios for that rule on public values against
PyTorch 2.13 (when one differs it names the rule, the lecture section to reread and the
first difference, PyTorch's output next to yours), then a few asserts. When the notebook
is graded, hidden tests run the same scenarios again on fresh random values.
A test cell earns its points
only when every scenario matches PyTorch exactly: values, flags, `grad_fn` names, errors and
warnings, word for word.

**What your code may import.** {IMPORTABLE[0].upper() + IMPORTABLE[1:]}: the grader runs
your cells where `torch`, `minigrad` and every other package do not exist, so an answer that
imports one of them scores 0 there, whatever it does here, and your feedback says so.

To see the feedback the grader would give, without waiting for it, run `make check` from
the course's root directory: it checks the copy you fetched and submit,
`{a.fetched_copy}` (without a GPU it counts your CPU points and says
"CUDA: not run here (no GPU), not counted").

**Contract with the grader.** The grader builds your engine from this notebook's globals
with `autograder.engine_from(globals())`. The scenarios graded here use these names:
{names}. The engine's cells define them; keep them. The engine calls the functions you
write by name: {functions}. Keep their names and signatures. The grader also empties
`WARNED_ONCE` (the once-only warnings already given) before it checks, as a fresh process
would have it."""


def grading_table(a: Assignment) -> str:
    rows = [f"| {rule} | {cpu_points(a, rule):g} | {statement(rule)} |" for rule in a.rules]
    total = sum(cpu_points(a, rule) for rule in a.rules)
    return "\n".join(
        [
            "## Grading",
            "",
            f"The CPU test cells above are worth {total:g} points:",
            "",
            "| rule | points | what it says |",
            "| --- | --- | --- |",
            *rows,
            "",
            f"The last cell runs the same scenarios on a GPU ({cuda_points(a):g} points, rules "
            f"{', '.join(a.cuda_rules)}): your engine's data then lives in CuPy arrays. It "
            "runs where both PyTorch and your engine see a GPU; on a grader without one it "
            'scores 0 with "not run: no GPU on the grader" (a skipped check is never a pass).',
        ]
    )


def notebook_text(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"
