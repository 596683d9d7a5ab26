"""An assignment's contract with the sealed run, read from its nbgrader source notebook.

    contract = Contract.from_notebook("solutions/leaf_nodes/leaf_nodes.ipynb")

The source notebook is trusted (it is the instructor's). In its order, each code cell is:
- an answer slot: an nbgrader solution cell. Only its grade_id is kept, never its source (the
  instructor's solution): the student's cell with that grade_id fills the slot;
- a test cell: an nbgrader grade cell that is not a solution cell. It is never sent to the
  student's process. Its hidden tests name what it checks, in one of the two forms the course
  uses, with literal arguments:
      grade(globals(), "leaf", ["L3"])                    (autograder.exercise_kit.grading)
      grade(globals(), "leaf", ["L1", "L2"], "cuda")
      autograder.check(autograder.engine_from(globals()), rules=["L3"], topics=["leaf"])
  Its points are the cell's nbgrader points; it scores them when every scenario passes;
- given code: any other code cell, run as the source has it (whatever the student's copy says).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from autograder.scenarios import select


class ContractError(ValueError):
    """The source notebook cannot be graded in a sealed run (an instructor's problem)."""


@dataclass(frozen=True)
class Check:
    rules: tuple[str, ...] | None
    topics: tuple[str, ...] | None
    device: str

    def scenario_ids(self) -> list[str]:
        chosen = select(rules=self.rules, topics=self.topics, device=self.device)
        return [sc.id for sc in chosen]


@dataclass(frozen=True)
class TestCell:
    grade_id: str
    points: float
    checks: tuple[Check, ...]

    @property
    def device(self) -> str:
        return "cuda" if any(c.device == "cuda" for c in self.checks) else "cpu"


@dataclass(frozen=True)
class Slot:
    """One code cell of the source, in order: given code, or an answer slot (no source)."""

    grade_id: str
    kind: str  # "given" or "answer"
    source: str = ""  # given code only


@dataclass(frozen=True)
class Contract:
    name: str  # the notebook's name without .ipynb
    slots: tuple[Slot, ...]
    tests: tuple[TestCell, ...]

    @property
    def answer_ids(self) -> list[str]:
        return [s.grade_id for s in self.slots if s.kind == "answer"]

    @classmethod
    def from_notebook(cls, path) -> Contract:
        path = Path(path)
        return cls.from_json(json.loads(path.read_text()), path.stem)

    @classmethod
    def from_json(cls, nb: dict, name: str) -> Contract:
        slots, tests = [], []
        for index, cell in enumerate(nb.get("cells", [])):
            if cell.get("cell_type") != "code":
                continue
            meta = cell.get("metadata", {}).get("nbgrader", {})
            grade_id = meta.get("grade_id") or cell.get("id") or f"cell-{index}"
            source = _text(cell.get("source", ""))
            if meta.get("solution"):
                slots.append(Slot(grade_id, "answer"))
            elif meta.get("grade"):
                tests.append(TestCell(grade_id, float(meta.get("points", 0)), parse_checks(source)))
            else:
                slots.append(Slot(grade_id, "given", source))
        if not tests:
            raise ContractError(f"{name}: the source notebook has no test cells")
        seen = [s.grade_id for s in slots] + [t.grade_id for t in tests]
        duplicates = sorted({g for g in seen if seen.count(g) > 1})
        if duplicates:
            raise ContractError(f"{name}: duplicate grade ids {duplicates}")
        return cls(name, tuple(slots), tuple(tests))


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def parse_checks(source: str) -> tuple[Check, ...]:
    """The checks a test cell's hidden tests make (ContractError when there are none)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ContractError(f"a test cell does not parse: {exc}") from exc
    checks = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _called_name(node.func)
            if name == "grade":
                checks.append(_from_grade(node))
            elif name == "check":
                checks.append(_from_check(node))
    if not checks:
        raise ContractError(
            "a test cell calls neither grade(globals(), topic, rules[, device]) nor "
            f"autograder.check(...), so a sealed run cannot grade it:\n{source}"
        )
    return tuple(checks)


def _called_name(func) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _literal(node, what: str):
    try:
        return ast.literal_eval(node)
    except ValueError as exc:
        raise ContractError(
            f"{what} must be a literal in a test cell: {ast.unparse(node)}"
        ) from exc


def _from_grade(call: ast.Call) -> Check:
    args = {"topic": None, "rules": None, "device": "cpu"}
    for key, node in zip(("namespace", "topic", "rules", "device"), call.args):
        if key != "namespace":
            args[key] = _literal(node, key)
    for kw in call.keywords:
        if kw.arg in ("topic", "rules", "device"):
            args[kw.arg] = _literal(kw.value, kw.arg)
    if args["topic"] is None or args["rules"] is None:
        raise ContractError(f"grade(...) needs a topic and rules: {ast.unparse(call)}")
    return Check(tuple(args["rules"]), (args["topic"],), args["device"])


def _from_check(call: ast.Call) -> Check:
    args = {"rules": None, "topics": None, "device": "cpu"}
    for key, node in zip(("engine", "rules", "topics", "device"), call.args):
        if key != "engine":
            args[key] = _literal(node, key)
    for kw in call.keywords:
        if kw.arg in args:
            args[kw.arg] = _literal(kw.value, kw.arg)
    rules = tuple(args["rules"]) if args["rules"] is not None else None
    topics = tuple(args["topics"]) if args["topics"] is not None else None
    return Check(rules, topics, args["device"])
