"""A `grade --force` that was cut short is finished by the next `grade`.

Without a record, a killed --force run leaves the submissions it had not reached yet with
their old runs, whose files are unchanged: the next `grade` would take them as current. So
--force writes, before grading, what it set out to regrade and when it started
(.pipeline/forced-regrade.json, typed JSON); a submission of that list whose last run
finished before then is still owed a regrade, by whichever `grade` comes next. The record
goes once nothing on it is owed.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

RECORD = "forced-regrade.json"


def start(course, plan: list[tuple[str, str]]) -> None:
    """Record a --force run's (student, assignment) list and its start, before it grades."""
    course.work.mkdir(parents=True, exist_ok=True)
    record = {"started": _now().isoformat(), "submissions": [list(key) for key in plan]}
    path = course.work / RECORD
    staged = path.with_suffix(".tmp")
    staged.write_text(json.dumps(record))
    staged.replace(path)  # never half a record


def owed(course, runs: dict) -> set[tuple[str, str]]:
    """The submissions an interrupted --force run had not regraded (runs: runs.latest_runs)."""
    try:
        record = json.loads((course.work / RECORD).read_text())
        started = datetime.fromisoformat(record["started"])
        keys = {(str(s), str(a)) for s, a in record["submissions"]}
    except (OSError, ValueError, KeyError, TypeError):
        return set()  # none (or not ours to read): nothing is owed
    keys &= set(course.submitted())  # one removed since is owed nothing
    return {key for key in keys if key in runs and runs[key].finished_at < started}


def finish(course) -> None:
    """Remove the record once every submission on it has been regraded."""
    from coursekit.classroom.runs import latest_runs

    if not (course.work / RECORD).is_file():
        return
    with course.gradebook() as gb:
        runs = latest_runs(gb.db)
    if not owed(course, runs):
        (course.work / RECORD).unlink(missing_ok=True)


def _now() -> datetime:
    """Naive UTC, as runs.new_run stamps finished_at."""
    return datetime.now(timezone.utc).replace(tzinfo=None)
