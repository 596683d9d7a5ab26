"""The sealed run inside nbgrader: a preprocessor, the gradebook write, the feedback outputs.

Two ways to use it, both through nbgrader's own machinery:

1. No student code in nbgrader's kernel at all (recommended): SealedExecute replaces
   nbgrader's Execute in `Autograde.autograde_preprocessors`. It grades the notebook nbgrader
   hands it (solution cells as submitted, test and locked cells already restored from the
   source by OverwriteCells) in a sealed run, and writes each test cell's verdict as its
   outputs. nbgrader's SaveAutoGrades then records the scores in the gradebook from those
   outputs, and generate_feedback shows them.

       c.Autograde.autograde_preprocessors = autograde_steps()   # nbgrader_config.py

2. After a plain autograde (the in-kernel verdict is then replaced, but the student's code
   did run with the grader's rights in nbgrader's kernel, so threats 4-6 are NOT defended):
   write_scores(gradebook, assignment, student, result) and seal_outputs(notebook, result).

What the student reads (the verdicts, the feedback under each test cell, the notes) is in the
class's language (its course_language file, as its feedback pages); what the pipeline reads
(record_verdicts) is data that no language changes.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path

import nbformat
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Integer

from autograder.scenarios import REGISTRY, load_catalogue
from coursekit.feedback_graphs import graph_outputs
from coursekit.i18n import _, speaking
from coursekit.languages import course_language
from coursekit.routes import feedback_link
from coursekit.sealed.contract import CHECK_KEY, Contract
from coursekit.sealed.grade import SealedResult, grade_notebook
from coursekit.sealed.sandbox import Limits

SEED_ENV = "MINIGRAD_COURSE_SEED"  # the seed a pipeline chose for this submission, if any
VERDICT_KEY = "sealed_verdict"  # under metadata[CHECK_KEY] of the autograded notebook
FAILED_ENAME = "AssertionError"  # what a failed check shows, as the in-kernel grade() does


class SealedExecute(NbGraderPreprocessor):
    """nbgrader preprocessor: grade the notebook in a sealed run; test cells get the verdicts."""

    seed = Integer(
        None,
        allow_none=True,
        help=f"Seed of the scenarios' values (default: ${SEED_ENV}, else fresh)",
    ).tag(config=True)
    wall_s = Float(Limits.wall_s, help="Wall-clock limit of one sealed run").tag(config=True)
    cell_s = Float(Limits.cell_s, help="Time limit of one answer or given cell").tag(config=True)
    scenario_s = Float(Limits.scenario_s, help="Time limit of one scenario").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        contract = Contract.from_notebook(
            self._source_notebook(info["assignment"], info["notebook"])
        )
        seed = self.seed if self.seed is not None else os.environ.get(SEED_ENV)
        # CPU time (per process) never cuts short what the wall-clock limit allows
        cpu_s = max(Limits.cpu_s, math.ceil(self.wall_s))
        limits = Limits(wall_s=self.wall_s, cpu_s=cpu_s, cell_s=self.cell_s,
                        scenario_s=self.scenario_s)  # fmt: skip
        coursedir = CourseDirectory(config=self.config)
        with speaking(course_language(coursedir.root)):
            result = grade_notebook(contract, nbformat.from_dict(nb), seed=seed, limits=limits)
            nb = seal_outputs(nb, result)
        self.log.info("sealed run of %s: %g/%g points", info["notebook"], result.score,
                      result.max_score)  # fmt: skip
        for note in result.notes:
            self.log.warning("sealed run of %s: %s", info["notebook"], note.splitlines()[0])
        resources["nbgrader"]["sealed_result"] = result.to_json()
        return record_verdicts(nb, result), resources

    def _source_notebook(self, assignment: str, notebook: str) -> Path:
        coursedir = CourseDirectory(config=self.config)
        folder = coursedir.format_path(coursedir.source_directory, ".", assignment)
        return Path(folder) / f"{notebook}.ipynb"


def autograde_steps() -> list:
    """nbgrader's autograde preprocessors with SealedExecute in place of Execute."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute

    defaults = Autograde.class_traits()["autograde_preprocessors"].default()
    return [SealedExecute if step is Execute else step for step in defaults]


def seal_outputs(nb, result: SealedResult):
    """Every test cell's outputs become its sealed verdict; an answer cell that raised shows
    its error. Nothing else of the in-kernel run is kept in those cells (tracebacks that
    quoted hidden tests included)."""
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or grade_id is None:
            continue
        if grade_id in result.cells:
            score = result.cells[grade_id]
            notes = [_("NOTE: {note}").format(note=n) + "\n" for n in result.notes
                     if n not in score.feedback]  # fmt: skip
            text = "".join(notes) + score.feedback + "\n"
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
            if score.status != "passed":
                cell.outputs.append(
                    nbformat.v4.new_output(
                        "error",
                        ename=FAILED_ENAME,
                        evalue=score.verdict,
                        traceback=[f"{FAILED_ENAME}: {score.verdict}"],
                    )
                )
            if score.status == "failed":  # a cell not run has nothing to reread
                cell.outputs.extend(_section_links(score.failed))
                cell.outputs.extend(graph_outputs(score.graph))
        elif grade_id in result.answer_errors:
            error = result.answer_errors[grade_id]
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=error + "\n")]
    return nb


def _section_links(failed: list[str]) -> list:
    """The lecture sections the failed scenarios teach, as links the feedback page keeps
    (its sanitiser lets a relative <a href> through): each heading, opening its section."""
    load_catalogue()
    sections = dict.fromkeys(REGISTRY[s].lecture for s in failed if s in REGISTRY)
    links = [feedback_link(reference) for reference in sections]
    if not links:
        return []
    shown = ", ".join(f'<a href="{html.escape(href)}">{html.escape(title)}</a>'
                      for title, href in links)  # fmt: skip
    plain = ", ".join(f"{title} ({href})" for title, href in links)
    reread = html.escape(_("Reread: "))
    data = {"text/html": f"<p>{reread}{shown}</p>", "text/plain": _("Reread: ") + plain}
    return [nbformat.v4.new_output("display_data", data=data)]


def record_verdicts(nb, result: SealedResult):
    """The verdicts as data, for the class pipeline: each test cell's in its metadata
    (VERDICT_KEY), the run's seed and notes in the notebook's. Only this trusted process
    writes them, after the sealed run; a submission's own metadata is never read."""
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        mine = cell.setdefault("metadata", {}).setdefault(CHECK_KEY, {})
        mine.pop(VERDICT_KEY, None)  # whatever the submission carried under that name
        if cell.cell_type == "code" and grade_id in result.cells:
            mine[VERDICT_KEY] = result.cells[grade_id].verdict_json()
    nb.metadata.setdefault(CHECK_KEY, {})[VERDICT_KEY] = {
        "seed": result.seed,
        "notes": list(result.notes),
    }
    return nb


def write_scores(gradebook, assignment: str, student: str, result: SealedResult) -> None:
    """Set each test cell's auto_score in nbgrader's gradebook (an open nbgrader.api.Gradebook)
    to the sealed run's points. A grader's manual score stays in force, as nbgrader keeps it."""
    for grade_id, score in result.cells.items():
        grade = gradebook.find_grade(grade_id, result.notebook, assignment, student)
        grade.auto_score = score.points
        grade.needs_manual_grade = grade.manual_score is not None
    gradebook.db.commit()
