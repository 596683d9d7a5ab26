"""An assignment's contract with the sealed run, read from its nbgrader source notebook.

    contract = Contract.from_notebook("solutions/leaf_nodes/leaf_nodes.ipynb")

The source notebook is trusted (it is the instructor's). In its order, each code cell is:
- an answer slot: an nbgrader solution cell. Only its grade_id is kept, never its source (the
  instructor's solution): the student's cell with that grade_id fills the slot;
- a test cell: an nbgrader grade cell that is not a solution cell. It is never sent to the
  student's process. Its metadata states what it checks, as data (never read from its code):
      {"minigrad": {"checks": [{"topic": "leaf", "rules": ["L3"], "device": "cpu"}]}}
  ("topics" may list several; no "rules" means every rule of those topics). Its points are
  the cell's nbgrader points; it scores them when every scenario passes;
- given code: any other code cell, run as the source has it (whatever the student's copy says).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from autograder.rules import RULES
from autograder.scenarios import DEVICES, TOPICS, select

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
    unknown = set(item) - {"topic", "topics", "rules", "device"}
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}")
    topics = item.get("topics") or ([item["topic"]] if item.get("topic") else None)
    rules = item.get("rules")
    device = item.get("device", "cpu")
    if device not in DEVICES:
        raise ValueError(f"device {device!r} is not one of {DEVICES}")
    if rules is not None and any(r not in RULES for r in rules):
        raise ValueError(f"rules {rules!r} must be SPEC.md rule ids")
    if topics is not None and any(t not in TOPICS for t in topics):
        raise ValueError(f"topics {topics!r} must be among {TOPICS}")
    return Check(
        tuple(rules) if rules is not None else None,
        tuple(topics) if topics is not None else None,
        device,
    )
