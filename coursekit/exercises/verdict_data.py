"""A hidden test cell's verdict as data, beside the words the student reads.

grade() (grading.py) runs in nbgrader's kernel and shows, besides its report in the
notebook's language, one display_data output of its own MIME type (MIME) holding

    {"version": 1, "status": "passed" | "failed" | "not run", "reason": "" | REASONS key,
     "failed": [scenario ids not passed], "seed": int}

The class pipeline (coursekit/classroom/grading/outputs.py) reads that back from the
autograded notebook, never the report's words. A kernel also runs the student's code, so what
is read is checked (read) and only the cell's last such output counts: grade() shows it after
every student function has run. JupyterLab shows nothing for it; feedback pages drop it
(classroom/results/feedback.py: DropVerdictData), as nbconvert, which cannot show it either,
warns for each one.

A "not run" verdict says why by a key of REASONS, whose text is translated where it is shown.
"""

from __future__ import annotations

import re

from autograder.report import NOT_RUN_NO_GPU
from coursekit.i18n import N_, _

MIME = "application/vnd.minigrad.verdict+json"
VERSION = 1
STATUSES = ("passed", "failed", "not run")
# what a verdict may hold (a kernel runs the student's code too): scenario ids as the catalogue
# names them, no more than a catalogue has, and a seed as grading draws them (secrets.randbelow)
SCENARIO_ID = re.compile(r"[\w.]{1,120}")
MAX_FAILED = 1000
MAX_SEED = 2**31

NO_GPU = "no GPU"  # a CUDA cell graded where there is no GPU
NO_GPU_WORKER = "no GPU worker"  # a CUDA cell of a Dask cluster that had no GPU worker
# each reason's one text (NOT_RUN_NO_GPU is the checker's own: it says it without the course)
REASONS = {NO_GPU: NOT_RUN_NO_GPU, NO_GPU_WORKER: N_("not run: no GPU worker")}


def reason_text(reason: str) -> str:
    """A "not run" reason as a person reads it, in the current language."""
    return _(REASONS[reason])


def of_report(report) -> dict:
    """The verdict data of an autograder Report (the hidden test's, on its rules)."""
    not_run = bool(report.results) and all(r.status == "not run" for r in report.results)
    status = "passed" if report.passed else "not run" if not_run else "failed"
    return {
        "version": VERSION,
        "status": status,
        "reason": NO_GPU if not_run else "",
        "failed": sorted({r.id for r in report.failures}),
        "seed": int(report.seed),
    }


def show(data: dict) -> None:
    """Show `data` as a display_data output of its own MIME type, where there is a kernel to
    show it in (elsewhere, a plain Python calling grade() has no output to carry it)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return
    if get_ipython() is not None:
        display({MIME: data}, raw=True)


def read(outputs) -> dict | None:
    """The verdict data among a cell's outputs (its last), checked; None where there is none
    that holds its shape (a cell graded before grade() showed it, or something else)."""
    found = None
    for output in outputs:
        data = (
            output.get("data", {}).get(MIME)
            if output.get("output_type") == "display_data"
            else None
        )
        checked = _checked(data)
        if checked is not None:
            found = checked
    return found


def _checked(data) -> dict | None:
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    status, reason, failed, seed = (data.get(k) for k in ("status", "reason", "failed", "seed"))
    if status not in STATUSES or (reason and reason not in REASONS):
        return None
    if not isinstance(failed, list) or len(failed) > MAX_FAILED:
        return None
    if not all(isinstance(s, str) and SCENARIO_ID.fullmatch(s) for s in failed):
        return None
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < MAX_SEED:
        return None
    return {"status": status, "reason": reason or "", "failed": failed, "seed": seed}
