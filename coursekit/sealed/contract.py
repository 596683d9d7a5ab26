"""An assignment's contract with the sealed run, read from its nbgrader source notebook.

    contract = Contract.from_notebook("solutions/leaf_nodes/leaf_nodes.ipynb")

The source notebook is trusted (it is the instructor's). In its order, each code cell is:
- an answer slot: an nbgrader solution cell. Only its grade_id is kept, never its source (the
  instructor's solution): the student's cell with that grade_id fills the slot;
- a test cell: an nbgrader grade cell that is not a solution cell. It is never sent to the
  student's process. Its metadata states what it checks, as data (never read from its code):
      {"minigrad": {"checks": [{"topic": "leaf", "rules": ["L3"], "device": "cpu",
                                "seams": "leaf_nodes"}]}}
  ("topics" may list several; no "rules" means every rule of those topics). "seams" names
  the assignment whose graded functions the student writes: the check runs minigrad with the
  student's functions of its rules bound in and the engine's own for the rest; without it,
  the notebook defines a whole engine (autograder.engine_from). Its points are the cell's
  nbgrader points; it scores them when every scenario passes;
- given code: any other code cell, run as the source has it (whatever the student's copy says).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from autograder.rules import RULES
from autograder.scenarios import DEVICES, TOPICS, select
from minigrad import seams

# The key of a test cell's metadata that states what it checks (written by the exercise kit,
# or by an instructor), so the sealed run reads data, never the cell's source.
CHECK_KEY = "minigrad"


class ContractError(ValueError):
    """The source notebook cannot be graded in a sealed run (an instructor's problem)."""


@dataclass(frozen=True)
class Check:
    rules: tuple[str, ...] | None
    topics: tuple[str, ...] | None
    device: str
    seams: str | None = None  # the assignment whose graded functions are the student's

    def scenario_ids(self) -> list[str]:
        chosen = select(rules=self.rules, topics=self.topics, device=self.device)
        return [sc.id for sc in chosen]

    def bound_functions(self) -> tuple[str, ...]:
        """The student's functions this check binds into minigrad (those of its rules)."""
        if self.seams is None:
            return ()
        rules = self.rules or [r for sc in select(topics=self.topics) for r in sc.rules]
        return tuple(seams.functions_for(self.seams, rules))


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
                checks = checks_of(cell, grade_id)
                tests.append(TestCell(grade_id, float(meta.get("points", 0)), checks))
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


def checks_of(cell: dict, grade_id: str) -> tuple[Check, ...]:
    """The checks a test cell's metadata states (ContractError when it states none)."""
    stated = cell.get("metadata", {}).get(CHECK_KEY, {}).get("checks")
    if not stated:
        raise ContractError(
            f"test cell {grade_id!r} states no check in its metadata ({CHECK_KEY}.checks: "
            '[{"topic": ..., "rules": [...], "device": "cpu"}]), so a sealed run cannot grade it'
        )
    try:
        return tuple(_check(item) for item in stated)
    except (TypeError, ValueError, AttributeError) as exc:
        raise ContractError(
            f"test cell {grade_id!r}: {CHECK_KEY}.checks is malformed: {exc}"
        ) from exc


def _check(item: dict) -> Check:
    unknown = set(item) - {"topic", "topics", "rules", "device", "seams"}
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}")
    topics = item.get("topics") or ([item["topic"]] if item.get("topic") else None)
    rules = item.get("rules")
    device = item.get("device", "cpu")
    if device not in DEVICES:
        raise ValueError(f"device {device!r} is not one of {DEVICES}")
    if rules is not None and any(r not in RULES for r in rules):
        raise ValueError(f"rules {rules!r} must be rule ids of autograder/rules.py")
    if topics is not None and any(t not in TOPICS for t in topics):
        raise ValueError(f"topics {topics!r} must be among {TOPICS}")
    assignment = item.get("seams")
    if assignment is not None and assignment not in seams.ASSIGNMENTS:
        raise ValueError(f"seams {assignment!r} must be one of {seams.ASSIGNMENTS}")
    check = Check(
        tuple(rules) if rules is not None else None,
        tuple(topics) if topics is not None else None,
        device,
        assignment,
    )
    if assignment is not None and not check.bound_functions():
        # the engine's own functions would answer every scenario: points for nothing
        raise ValueError(f"its rules decide none of {assignment}'s graded functions")
    return check
