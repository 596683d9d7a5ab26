"""Build each assignment's nbgrader source notebook (solutions/<name>/<name>.ipynb).

A notebook is short: an introduction, the cell that installs the course on Colab (and does
nothing elsewhere), one given cell that imports minigrad and the helpers of
the assignment's seam module, the student's answer cells (each starting from a graded function
of minigrad/seams/<name>.py: signature, docstring, solution markers), one given cell that binds
the student's functions into the engine, then the test cells, each with a hidden test that
runs the autograder's scenarios for one rule and a short visible test; a last cell runs the
scenarios on CUDA. The engine itself is minigrad: nothing of it is pasted into the notebook.
Everything is deterministic (cell ids included), so regenerating gives identical files.
"""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.rules import statement
from autograder.scenarios import select
from coursekit import colab
from coursekit.edition import graded_functions, seam_source
from coursekit.exercises.assignments import ASSIGNMENTS, Assignment
from coursekit.exercises.cells import read_cells
from coursekit.exercises.grading import NOT_RUN_HERE
from coursekit.i18n import _, speaking
from coursekit.languages import as_lines
from coursekit.routes import check_sentence, lecture_sentence
from coursekit.sealed.contract import CHECK_KEY
from coursekit.sealed.grade import IMPORTABLE
from minigrad import seams

NBGRADER_SCHEMA = 3
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def cpu_points(a: Assignment, rule: str) -> float:
    return sum(sc.weight for sc in select(rules=[rule], topics=[a.topic], device="cpu"))


def cuda_points(a: Assignment) -> float:
    return sum(sc.weight for sc in select(rules=a.cuda_rules, topics=[a.topic], device="cuda"))


def student_functions(a: Assignment) -> list[str]:
    """The graded functions the student writes, in the seam module's order."""
    return list(seams.graded(a.name))


def check_data(a: Assignment, rules, device="cpu") -> dict:
    """A test cell's check, as its metadata states it (coursekit.sealed.contract reads it)."""
    return {"topic": a.topic, "rules": list(rules), "device": device, "seams": a.name}


def hidden_check(a: Assignment, rules, device="cpu") -> str:
    args = f'globals(), "{a.name}", {list(rules)!r}'
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


def visible_check(a: Assignment, rule: str, asserts: str) -> str:
    """The check a student sees and Validate runs: the rule's scenarios on public values,
    then the asserts, both on the engine with only the rule's functions taken from the
    notebook (so a cell's verdict depends on those functions alone, as when graded)."""
    body = "\n".join(("    " + line) if line.strip() else "" for line in asserts.splitlines())
    return (
        "from coursekit.exercises.grading import bound, check_rule\n\n"
        f'check_rule(globals(), "{a.name}", ["{rule}"])  # its scenarios, against PyTorch\n'
        f'with bound(globals(), "{a.name}", ["{rule}"]):  # your functions of {rule} only\n' + body
    )


def visible_gpu_check(asserts: str) -> str:
    """The CUDA cell's visible part: its asserts where there is a GPU; elsewhere one line, and
    the cell passes (CPU-only work is never told it failed: its points are not counted
    there, and grading's hidden CUDA check is never a pass without a GPU)."""
    body = "\n".join(("    " + line) if line.strip() else "" for line in asserts.splitlines())
    return (
        "from coursekit.exercises.grading import gpu_here\n\n"
        'if gpu_here():  # else it prints "CUDA: not run here (no GPU), not counted"\n' + body
    )


class _Builder:
    """Collects cells with deterministic ids and nbgrader metadata."""

    def __init__(self, name: str):
        self.name, self.cells, self.count = name, [], 0

    def _id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}-{self.count:03d}"

    def markdown(self, source: str, translations=()) -> None:
        """A prose cell; translations: its (language, text) twins, kept in its metadata."""
        metadata = {language: as_lines(text) for language, text in translations if text}
        self.cells.append(new_markdown_cell(source, id=self._id("md"), metadata=metadata))

    def locked(self, source: str) -> None:
        cell_id = self._id("engine")
        self.cells.append(new_code_cell(source, id=cell_id, metadata=_meta(cell_id, locked=True)))

    def solution(self, cell_id: str, source: str, translations=()) -> None:
        """An answer cell; translations: its function's docstring in other languages."""
        meta = _meta(cell_id, solution=True)
        meta.update({language: as_lines(text) for language, text in translations if text})
        self.cells.append(new_code_cell(source, id=cell_id, metadata=meta))

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


def setup_source(a: Assignment) -> str:
    """The given cell before the answers: the engine and the names the answers and tests use."""
    return (
        "import warnings\n\n"
        "import numpy as np\n\n"
        "import minigrad\n"
        "from minigrad import device, float32, float64, no_grad, tensor, zeros\n"
        f"from minigrad.seams.{a.name} import *  # the helpers your functions use\n"
    )


def bind_source(a: Assignment) -> str:
    return (
        "# Your functions become the engine's: from here on every tensor in this notebook uses\n"
        "# them (a function still to write stops only the operations that need it).\n"
        f'minigrad.seams.use("{a.name}", globals())'
    )


def build_notebook(a: Assignment) -> nbformat.NotebookNode:
    nb = _Builder(a.name)
    nb.markdown(intro_text(a), [("zh-CN", intro_text_zh(a))] if a.intro_zh else [])
    nb.locked(colab.CELL)
    nb.locked(setup_source(a))
    answers = graded_functions(seam_source(a.name))
    part = read_cells(a.part_file)
    written = [c.args for c in part if c.kind == "seam"]
    if sorted(written) != sorted(answers):
        raise ValueError(f"{a.part_file.name}: answer cells for {written}, graded {list(answers)}")
    tests_start = next(
        i
        for i, c in enumerate(part)
        if c.kind in ("test", "cuda")
        or (c.kind == "markdown" and i + 1 < len(part) and part[i + 1].kind in ("test", "cuda"))
    )
    for cell in part[:tests_start]:
        if cell.kind == "markdown":
            nb.markdown(cell.source, cell.translations)
        elif cell.kind == "seam":
            nb.solution(f"answer_{cell.args}", answers[cell.args], cell.translations)
        else:
            nb.locked(cell.source)
    nb.locked(bind_source(a))
    tested, gpu_cells = [], []
    for i, cell in enumerate(part[tests_start:], tests_start):
        if cell.kind == "cuda" or (cell.kind == "markdown" and part[i + 1].kind == "cuda"):
            gpu_cells.append(cell)
        elif cell.kind == "markdown":
            nb.markdown(cell.source, cell.translations)
        elif cell.kind == "test":
            rule = cell.args
            if rule not in a.rules:
                raise ValueError(f"{a.part_file.name}: test cell for ungraded rule {rule!r}")
            tested.append(rule)
            nb.test(
                f"test_{rule}",
                hidden_check(a, [rule]) + "\n\n" + visible_check(a, rule, cell.source),
                cpu_points(a, rule),
                check_data(a, [rule]),
            )
        else:
            raise ValueError(f"{a.part_file.name}: a {cell.kind} cell among the tests")
    if sorted(tested) != sorted(a.rules):
        raise ValueError(f"{a.part_file.name}: test cells for {tested}, graded rules {a.rules}")
    nb.markdown(grading_table(a), [("zh-CN", grading_table_zh(a))] if a.intro_zh else [])
    heading, gpu = gpu_cells
    nb.markdown(heading.source, heading.translations)
    nb.test(
        f"test_cuda_{a.name}",
        hidden_check(a, a.cuda_rules, "cuda") + "\n\n" + visible_gpu_check(gpu.source),
        cuda_points(a),
        check_data(a, a.cuda_rules, "cuda"),
    )
    return new_notebook(
        cells=nb.cells,
        metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
    )


def intro_text(a: Assignment) -> str:
    """The notebook's introduction, as the clone reads it (coursekit/routes.py rewrites its
    sentences that name the clone's commands and paths for the other routes)."""
    functions = ", ".join(f"`{name}`" for name in student_functions(a))
    number = ASSIGNMENTS.index(a) + 1
    check = check_sentence(a)
    return f"""# {number}. {a.title}

{a.intro}

{lecture_sentence(a)}
reread it when a test fails (each failure names the section).

**You build a part of minigrad itself.** The functions you write here ({functions}) are
where minigrad decides these things: the engine calls them, every time. They live in
`minigrad/seams/{a.name}.py` (`minigrad.seams.{a.name}.__file__` says where); read the engine
around them there, nothing of it is pasted here. Write each where a cell says `# YOUR CODE HERE`
(replace the `raise NotImplementedError()`), keep the names and parameters, then run the
cell that binds them into the engine (`minigrad.seams.use(...)`). A function you have not
written yet stops only the operations that need it, with a message naming its assignment.

**How it is checked.** Each test cell checks one rule of the course and grades only the
functions that rule is about: the engine's own versions stand in for your others, so two
right functions out of three earn the points of their rules. What you can run now (and
Validate runs): `check_rule(...)`, the autograder's scenarios for that rule on public values
against PyTorch 2.13 (when one differs it names the rule, the lecture section to reread and
the first difference, PyTorch's output next to yours), then a few asserts. When the notebook
is graded, hidden tests run the same scenarios again on fresh random values. A test cell earns
its points only when every scenario matches PyTorch exactly: values, flags, `grad_fn` names,
errors and warnings, word for word.

**What your code may import.** {IMPORTABLE[0].upper() + IMPORTABLE[1:]}: the grader runs
your cells where `torch` and every other package do not exist, so an answer that imports one
of them scores 0 there, whatever it does here, and your feedback says so.

To see the feedback the grader would give, without waiting for it, {check}
(without a GPU it counts your CPU points and says "CUDA: not run here (no GPU), not counted")."""


def intro_text_zh(a: Assignment) -> str:
    """intro_text in Chinese (coursekit/glossary_zh.json's terms)."""
    functions = "、".join(f"`{name}`" for name in student_functions(a))
    number = ASSIGNMENTS.index(a) + 1
    check = check_sentence(a, language="zh-CN")
    return f"""# {number}. {a.title_zh}

{a.intro_zh}

{lecture_sentence(a, language="zh-CN")}
测试失败时请重读它（每条失败都会指明对应的小节）。

**你要构建的是 minigrad 本身的一部分。** 你在这里编写的函数（{functions}）正是 minigrad
做出这些决定的地方：引擎每次都会调用它们。它们位于 `minigrad/seams/{a.name}.py`
（`minigrad.seams.{a.name}.__file__` 会告诉你它在哪里）；请到那里阅读它们周围的引擎代码，
这里没有粘贴任何引擎代码。在标有 `# YOUR CODE HERE` 的单元格里编写每个函数（替换掉
`raise NotImplementedError()`），保持函数名和参数不变，然后运行把它们绑定到引擎中的那个
单元格（`minigrad.seams.use(...)`）。还没写好的函数只会让需要它的那些运算停下，并给出
一条指明其所属作业的消息。

**如何检查。** 每个测试单元格检查课程的一条规则，并且只为这条规则所涉及的函数打分：你的
其他函数由引擎自己的版本代替，所以三个函数写对两个，就能拿到这两个函数所对应规则的分数。
你现在就能运行的（也是 Validate 运行的）：`check_rule(...)`，即针对这条规则、在公开的数值上
与 PyTorch 2.13 对比的自动评分器场景（一旦有不同，它会指出规则、应重读的讲义小节以及第一处
差异，并把 PyTorch 的输出和你的输出并排列出），然后是几条断言。作业评分时，隐藏测试会在新的
随机数值上再次运行同样的场景。只有每个场景都与 PyTorch 完全一致时，一个测试单元格才能得分：
数值、标志、`grad_fn` 的名字、错误和警告，一字不差。

**你的代码可以导入什么。** 评分时，提交的 notebook 只能导入 Python 标准库、NumPy 和
minigrad（你正在构建的引擎），别的都不行：评分器在 `torch` 和其他所有包都不存在的环境中运行
你的单元格，所以导入了它们的答案在那里得 0 分，无论它在这里表现如何，你的反馈也会说明这一点。

想不必等待就看到评分器会给出的反馈，{check}
（没有 GPU 时它只计算你的 CPU 分数，并显示 "{in_chinese(NOT_RUN_HERE)}"）。"""


def grading_table_zh(a: Assignment) -> str:
    """grading_table in Chinese: the rules' statements as the checker's feedback words them in
    Chinese (the catalogue's), the CUDA cell's line as the kernel prints it there."""
    rows, total = _rule_rows(a, in_chinese)
    return "\n".join(
        [
            "## 评分",
            "",
            f"上面的 CPU 测试单元格共 {total:g} 分：",
            "",
            "| 规则 | 分数 | 内容 |",
            "| --- | --- | --- |",
            *rows,
            "",
            f"最后一个单元格在 GPU 上运行同样的场景（{cuda_points(a):g} 分，规则 "
            f"{'、'.join(a.cuda_rules)}）：这时你的引擎的数据存放在 CuPy 数组中。只有 PyTorch "
            "和你的引擎都能看到 GPU 时它才会运行。没有 GPU 时它显示 "
            f'"{in_chinese(NOT_RUN_HERE)}"，并且能通过 Validate；没有 GPU 的评分器'
            "不给它任何分数（跳过的检查从来不算通过）。",
        ]
    )


def in_chinese(message: str) -> str:
    """A message of the catalogue as the Chinese edition's checker prints it."""
    with speaking("zh-CN"):
        return _(message)


def _rule_rows(a: Assignment, words=str) -> tuple[list[str], float]:
    """The grading table's rows (rule, CPU points, statement in `words`) and their total."""
    rows = [f"| {rule} | {cpu_points(a, rule):g} | {words(statement(rule))} |" for rule in a.rules]
    return rows, sum(cpu_points(a, rule) for rule in a.rules)


def grading_table(a: Assignment) -> str:
    rows, total = _rule_rows(a)
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
            "runs where both PyTorch and your engine see a GPU. Without one it says "
            '"CUDA: not run here (no GPU), not counted" and passes Validate; a grader without '
            "a GPU gives it no points (a skipped check is never a pass).",
        ]
    )


def notebook_text(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"
