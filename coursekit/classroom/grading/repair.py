"""Make a broken submission gradable, on a copy, and say what was wrong.

nbgrader grades a notebook by the nbgrader metadata of its cells. Students break notebooks in
ways nbgrader either stops on (invalid JSON, stripped metadata, a renamed file) or handles
silently (a retyped cell, a duplicated one). This module works on a copy of the submission
(the collected files are never written) and returns one plain sentence per problem, for the
instructor's report and the student's feedback, in the language spoken (grade_one speaks the
class's):

- unreadable notebooks are left out (nbgrader scores a missing notebook 0);
- a renamed notebook is graded under its released name when the evidence is unambiguous;
- cells that lost their nbgrader metadata get it back from the released notebook, matched by
  cell id, then by source, then by position between matched neighbours;
- deleted graded, answer or read-only cells are put back from the released notebook, after
  their released predecessor (a deleted answer is then graded as unanswered);
- retyped and duplicated cells are reported; nbgrader itself restores the type and grades
  the last copy of a duplicated cell;
- files a browser would run as a page (HTML, SVG, XML, JavaScript) stay out of the copy:
  nbgrader's Formgrader serves the graded copy's files on the Jupyter server's own origin,
  where a link in the notebook would open one with the instructor's rights.
"""

from __future__ import annotations

import copy
import json
import mimetypes
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from coursekit.classroom.intake.file_limits import Unsafe, open_regular
from coursekit.i18n import N_, _

# Content types a browser runs script in, as the Formgrader's file handler (tornado, by
# mimetypes) would send them.
ACTIVE_TYPES = {
    "text/html",
    "application/xhtml+xml",
    "image/svg+xml",
    "application/xml",
    "text/xml",
    "application/xslt+xml",
    "text/javascript",
    "application/javascript",
}
ACTIVE_NOTE = N_(
    "a page a browser would run; kept as handed in, left out of what is graded and shown"
)


@dataclass
class Repair:
    notes: list[str] = field(default_factory=list)  # one sentence per problem found
    notebooks: list[str] = field(default_factory=list)  # released names written to the copy


def repair_submission(src: Path, dest: Path, released: dict[str, Path]) -> Repair:
    """Copy the submission in `src` to `dest`, repairing its notebooks against `released`."""
    report = Repair()
    dest.mkdir(parents=True, exist_ok=True)
    readable: dict[str, nbformat.NotebookNode] = {}
    if src.is_symlink():  # submitted/ is read as collect wrote it: regular files only
        report.notes.append(_("the submission is a symbolic link, not a folder; nothing graded"))
    entries = sorted(src.iterdir()) if src.is_dir() and not src.is_symlink() else []
    for path in entries:
        if mimetypes.guess_type(path.name)[0] in ACTIVE_TYPES:
            report.notes.append(f"{path.name}: {_(ACTIVE_NOTE)}")
            continue
        try:
            with open_regular(path, shown=_("it")) as handle:  # after "NAME: "
                data = handle.read()
        except Unsafe as why:
            if not path.is_dir() or path.is_symlink():
                said = _("{why}; only regular files are graded").format(why=why)
                report.notes.append(f"{path.name}: {said}")
            continue
        if path.suffix != ".ipynb":
            (dest / path.name).write_bytes(data)
            continue
        nb, problem = _read(data)
        if problem:
            said = _("{problem}; it cannot be graded (0 points)").format(problem=problem)
            report.notes.append(f"{path.name}: {said}")
        else:
            readable[path.stem] = nb

    names = _match_names(readable, released, report.notes)
    for name, submitted_name in names.items():
        reference = nbformat.read(released[name], as_version=4)
        nb = readable[submitted_name]
        for problem in _repair_cells(nb, reference):
            report.notes.append(f"{name}.ipynb: {problem}")
        nbformat.write(nb, dest / f"{name}.ipynb")
        report.notebooks.append(name)
    for name in sorted(set(released) - set(names)):
        if not any(note.startswith(f"{name}.ipynb:") for note in report.notes):
            report.notes.append(f"{name}.ipynb: " + _("not submitted (0 points)"))
    return report


def _read(data: bytes):
    text = data.decode("utf-8", errors="replace")
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        said = _("not a valid notebook (invalid JSON: {error} at line {line})")
        return None, said.format(error=error.msg, line=error.lineno)
    try:
        with warnings.catch_warnings():  # duplicated cell ids: reported in our own words
            warnings.simplefilter("ignore")
            return nbformat.reads(text, as_version=4), ""
    except Exception as error:  # nbformat raises many kinds for a structurally wrong file
        said = _("not a notebook nbformat can read ({error})")
        return None, said.format(error=f"{type(error).__name__}: {error}")


def _match_names(readable, released, notes) -> dict[str, str]:
    """released name -> submitted name; renamed notebooks only when the evidence is clear."""
    names = {name: name for name in released if name in readable}
    extra = [name for name in readable if name not in released]
    for name in sorted(set(released) - set(names)):
        wanted = _graded_cell_ids(nbformat.read(released[name], as_version=4))
        owners = [other for other in extra if _cell_ids(readable[other]) & wanted]
        if len(owners) != 1 and len(extra) == 1 and len(released) == 1:
            owners = extra  # the only notebook handed in for a one-notebook assignment
        if len(owners) == 1:
            names[name] = owners[0]
            extra.remove(owners[0])
            said = _("handed in as {submitted}; graded as {graded}")
            notes.append(
                f"{name}.ipynb: "
                + said.format(submitted=f"'{owners[0]}.ipynb'", graded=f"{name}.ipynb")
            )
        elif owners:
            listed = ", ".join(f"'{o}.ipynb'" for o in owners)
            said = _("missing, and {notebooks} could each be it (not guessed)")
            notes.append(f"{name}.ipynb: " + said.format(notebooks=listed))
    for other in extra:
        notes.append(f"{other}.ipynb: " + _("not part of the assignment; ignored"))
    return names


def _graded_cell_ids(nb) -> set[str]:
    """Grade ids and cell ids of the cells nbgrader tracks."""
    graded = [c for c in nb.cells if _graded_id(c)]
    return {_graded_id(c) for c in graded} | {c.get("id") for c in graded if c.get("id")}


def _cell_ids(nb) -> set[str]:
    return {_graded_id(c) for c in nb.cells if _graded_id(c)} | {c.get("id") for c in nb.cells}


def _graded_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _repair_cells(nb, reference) -> list[str]:
    problems = []
    wanted = [c for c in reference.cells if _graded_id(c)]
    by_id = {_graded_id(c): c for c in wanted}
    counts: dict[str, int] = {}
    for cell in nb.cells:
        if _graded_id(cell) in by_id:
            counts[_graded_id(cell)] = counts.get(_graded_id(cell), 0) + 1
    for grade_id, n in counts.items():
        if n > 1:
            said = _("cell '{cell}' appears {count} times (the last copy is graded)")
            problems.append(said.format(cell=grade_id, count=n))
            _demote_all_but_last(nb, grade_id)

    restored = _restore_metadata(nb, wanted, counts)
    if restored:
        said = _("nbgrader metadata missing on {count} cells; restored from the released notebook")
        problems.append(said.format(count=len(restored)))
    present = {_graded_id(c) for c in nb.cells}
    deleted = [c for c in wanted if _graded_id(c) not in present]
    for cell in deleted:
        _insert_after_predecessor(nb, copy.deepcopy(cell), wanted)
    if deleted:
        listed = ", ".join(f"'{_graded_id(c)}'" for c in deleted)
        said = _("deleted cells {cells} put back from the released notebook")
        problems.append(said.format(cells=listed))
    for cell in nb.cells:
        original = by_id.get(_graded_id(cell))
        if original is not None and cell.cell_type != original.cell_type:
            said = _("cell '{cell}' changed from {was} to {now} (graded as {was})")
            problems.append(
                said.format(cell=_graded_id(cell), was=original.cell_type, now=cell.cell_type)
            )
    if not nb.metadata.get("kernelspec"):
        problems.append(_("notebook metadata stripped (the course's kernel is used)"))
    return problems


def _demote_all_but_last(nb, grade_id: str) -> None:
    """Earlier copies run as plain code. (nbgrader's own deduplication leaves them an empty
    nbgrader entry, which its metadata check then rejects as an old schema.)"""
    copies = [c for c in nb.cells if _graded_id(c) == grade_id]
    for cell in copies[:-1]:
        del cell.metadata["nbgrader"]


def _restore_metadata(nb, wanted, counts) -> list[str]:
    """Give cells without nbgrader metadata back the released cell's, where they match."""
    missing = {_graded_id(c): c for c in wanted if _graded_id(c) not in counts}
    bare = {id(c): c for c in nb.cells if "nbgrader" not in c.get("metadata", {})}
    restored = []

    def adopt(cell, original):
        cell.metadata["nbgrader"] = copy.deepcopy(original.metadata["nbgrader"])
        restored.append(_graded_id(original))
        del missing[_graded_id(original)]
        del bare[id(cell)]

    for cell in list(bare.values()):  # same cell id (nbformat >= 4.5 keeps ids)
        original = next((o for o in missing.values() if o.get("id") == cell.get("id")), None)
        if original is not None:
            adopt(cell, original)
    for cell in list(bare.values()):  # same source: read-only cells students could not change
        original = next((o for o in missing.values() if o.source == cell.source), None)
        if original is not None:
            adopt(cell, original)
    order = [_graded_id(c) for c in wanted]
    for grade_id in [g for g in order if g in missing]:  # an answer between known neighbours
        position = order.index(grade_id)
        before = {g for g in order[:position] if g not in missing}
        after = {g for g in order[position + 1 :] if g not in missing}
        ids = [_graded_id(c) for c in nb.cells]
        low = max((i for i, g in enumerate(ids) if g in before), default=-1)
        high = min((i for i, g in enumerate(ids) if g in after), default=len(ids))
        candidates = [
            c for c in nb.cells[low + 1 : high] if id(c) in bare and c.cell_type == "code"
        ]
        if len(candidates) == 1:
            adopt(candidates[0], missing[grade_id])
    return restored


def _insert_after_predecessor(nb, cell, wanted) -> None:
    order = [_graded_id(c) for c in wanted]
    earlier = set(order[: order.index(_graded_id(cell))])
    ids = [_graded_id(c) for c in nb.cells]
    position = max((i for i, g in enumerate(ids) if g in earlier), default=-1)
    cell.pop("id", None)  # nbformat gives it a fresh one; the released id may still be in use
    nb.cells.insert(position + 1, nbformat.from_dict(cell))
