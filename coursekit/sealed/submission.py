"""Build the program a sealed run executes from a student's notebook and the contract.

The program is the source notebook's code cells in the source's order: given cells as the
source has them, answer slots filled with the student's cell of the same grade_id. Nothing
else of the submission runs: not its test cells, not cells it added, not its order. Every
way the submission departs from that shape becomes a note the student and instructor read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coursekit.i18n import _
from coursekit.sealed.contract import Contract


@dataclass
class Program:
    cells: list[dict]  # {"id", "kind", "source"}: what the child executes, in order
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # answer slots left empty


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _grade_id(cell: dict):
    meta = cell.get("metadata")
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None


def assemble(contract: Contract, notebook: dict) -> Program:
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        cells = []
    cells = [c for c in cells if isinstance(c, dict)]
    answers = set(contract.answer_ids)
    program = Program(cells=[])
    candidates: dict[str, list[tuple[int, dict, str]]] = {gid: [] for gid in answers}
    for position, cell in enumerate(cells):
        gid = _grade_id(cell)
        if gid in answers:
            candidates[gid].append((position, cell, "metadata"))
        elif gid is None and cell.get("id") in answers:
            candidates[cell["id"]].append((position, cell, "cell id"))
    order = []
    for slot in contract.slots:
        if slot.kind == "given":
            program.cells.append({"id": slot.grade_id, "kind": "given", "source": slot.source})
            continue
        chosen = _choose(slot.grade_id, candidates[slot.grade_id], program.notes)
        if chosen is None:
            program.missing.append(slot.grade_id)
            program.cells.append({"id": slot.grade_id, "kind": "answer", "source": ""})
            continue
        position, cell = chosen
        order.append(position)
        program.cells.append({"id": slot.grade_id, "kind": "answer", "source": _source(cell)})
    if order != sorted(order):
        program.notes.append(
            _("answer cells were reordered in the submission; they ran in the assignment's order")
        )
    given = {s.source.strip() for s in contract.slots if s.kind == "given"}
    extra = [
        c
        for c in cells
        if c.get("cell_type") == "code"
        and _grade_id(c) is None
        and c.get("id") not in answers
        and _source(c).strip()
        and _source(c).strip() not in given
    ]
    if extra:
        said = _(
            "{count} code cell(s) outside the answer cells were not run: only the answer cells "
            '("YOUR CODE HERE") of a submission are graded'
        )
        program.notes.append(said.format(count=len(extra)))
    return program


def _choose(grade_id: str, found: list, notes: list[str]):
    """(position, cell) of the student's answer for grade_id, or None; notes say why."""
    if not found:
        said = _("answer cell {cell} is missing from the submission: graded as empty")
        notes.append(said.format(cell=grade_id))
        return None
    # a copy that kept its metadata over one known by its cell id only (the class pipeline's
    # repair takes the metadata off every copy but the one it grades)
    found = [f for f in found if f[2] == "metadata"] or found
    code = [(pos, cell, how) for pos, cell, how in found if cell.get("cell_type") == "code"]
    if len(found) > 1:  # the last, as running the notebook top to bottom defines it last
        said = _("answer cell {cell} appears {count} times: the last code copy is graded")
        notes.append(said.format(cell=grade_id, count=len(found)))
    if not code:
        kind = found[-1][1].get("cell_type")
        said = _("answer cell {cell} was changed into a {kind} cell: graded as empty")
        notes.append(said.format(cell=grade_id, kind=kind))
        return None
    position, cell, how = code[-1]
    if how == "cell id":
        said = _("answer cell {cell} had lost its nbgrader metadata: matched by its cell id")
        notes.append(said.format(cell=grade_id))
    return position, cell
