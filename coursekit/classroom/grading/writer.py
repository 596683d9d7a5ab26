"""The one writer: the workers' results into the course's gradebook and autograded/ folder.

Results are written in batches, on a thread of their own while the grading goes on: each
batch is whatever has finished since the last one (up to BATCH results), in one transaction
with the results' runs, committed after their graded notebooks are in place. A `grade`
killed at any point holds, for each submission, either its last complete grading or none,
in the order they finished; the next `grade` regrades exactly what is missing.

The rows are nbgrader's own, as `Gradebook.add_submission` makes them and `find_grade` /
`find_comment` find them (tests/test_writer.py compares), but a batch takes a few
statements in all, where nbgrader's API takes about ten queries and three commits per
result: that wrote 41 results/s into a 5,000-student gradebook (`python -m bench
gradebook`), so 25,000 results took ten minutes however many workers graded them.
"""

from __future__ import annotations

import queue
import shutil
import threading
import uuid
from datetime import datetime
from pathlib import Path

from nbgrader.api import (
    Comment,
    Grade,
    MissingEntry,
    Notebook,
    Student,
    SubmittedAssignment,
    SubmittedNotebook,
)
from nbgrader.utils import parse_utc
from sqlalchemy import bindparam, insert, select, text, update

from coursekit.classroom.runs import GradingRun, run_row

# Results per transaction at most, by database. A batch is whatever finished since the last
# one, so it is large only when the writer is behind. On SQLite one commit for many results
# is what keeps up: a commit rewrites every page the batch touched, and nbgrader's random ids
# spread even a few hundred results over most of its indexes' pages (in a 5,000-student
# gradebook, 2,000 results: 4 commits of 0.25 s at 500 a batch, one of 0.4 s at 2,000).
# PostgreSQL commits cheaply and wrote 2,000 results faster in batches of 500 (the same
# gradebook, batch sizes alternated: 538 and 609 results/s at 500, 467 and 415 at 2,000, on
# a loaded machine). A grade killed mid-batch regrades at most a batch on resume.
BATCH = {"sqlite": 2000, "postgresql": 500}
OTHER_BATCH = 500
# SQLite's page cache for the writer's connection, in KiB (SQLite's default: 2 MB). nbgrader's
# ids are random, so a batch's rows land on pages all over its tables and indexes: in a
# 5,000-student gradebook (90 MB) the default cache reread them from the file for every
# batch, half of a batch's time. A cache only: what is committed, and when, is unchanged.
SQLITE_CACHE_KIB = 128 * 1024
_END = object()


class BatchWriter:
    """`with BatchWriter(course) as writer: writer.put(result, fingerprint, after)`: each
    result written in the next batch, then `after()` called (on the writer's thread).

    A failure to write (a full disk, the database gone) stops the grading at the next put()
    and is raised there; what was committed before stays. On the way out, whatever was put
    is written first (Ctrl-C keeps what finished grading)."""

    def __init__(self, course, batch: int | None = None):
        self.course, self.batch = course, batch  # None: BATCH's for the gradebook's database
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="gradebook-writer", daemon=True)

    def __enter__(self) -> BatchWriter:
        self._thread.start()
        return self

    def put(self, result: dict, fingerprint: str, after=None) -> None:
        self._raise_error()
        self._queue.put((result, fingerprint, after))

    def __exit__(self, kind, error, trace) -> None:
        self._queue.put(_END)
        self._thread.join()
        if kind is None:
            self._raise_error()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        try:
            with self.course.gradebook() as gb:
                rows = GradebookRows(self.course, gb)
                if self.batch is None:
                    self.batch = BATCH.get(gb.engine.dialect.name, OTHER_BATCH)
                while True:
                    batch = self._next_batch()
                    items = [item for item in batch if item is not _END]
                    if items:
                        rows.write([(result, prints) for result, prints, _ in items])
                        for _, _, after in items:
                            if after is not None:
                                after()
                    if len(items) < len(batch):
                        return
        except BaseException as error:  # noqa: BLE001  (raised in the grading thread)
            self._error = error
            self._drain()

    def _next_batch(self) -> list:
        """The next result (waiting for it), then all that finished meanwhile, up to BATCH."""
        batch = [self._queue.get()]
        while len(batch) < self.batch and batch[-1] is not _END:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _drain(self) -> None:
        """After a failure: take what is put until the end, so that __exit__ never waits."""
        while self._queue.get() is not _END:
            pass


class GradebookRows:
    """Batches of (result, fingerprint) into nbgrader's tables and the pipeline's runs."""

    def __init__(self, course, gb):
        self.course, self.gb, self.db = course, gb, gb.db
        self._layouts: dict[str, _Layout] = {}

    def write(self, batch: list[tuple[dict, str]]) -> None:
        """One transaction: all of the batch, in its order, or (killed, failed) none of it."""
        for result, _ in batch:
            _move_graded_notebooks(self.course, result)
        try:
            if self.db.get_bind().dialect.name == "sqlite":  # per connection: the pool's may change
                self.db.execute(text(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}"))
            self._write(batch)
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise

    def _write(self, batch: list[tuple[dict, str]]) -> None:
        results = [result for result, _ in batch]
        layouts = {r["assignment"]: self._layout(r["assignment"]) for r in results}
        self._add_students(list(dict.fromkeys(r["student"] for r in results)))
        rows = _Rows()
        notebooks = self._submissions(results, layouts, rows)  # (who, assignment, nb) -> id
        for result in results:
            who, name = result["student"], result["assignment"]
            layout = layouts[name]
            for cell in result["cells"]:
                notebook = notebooks[(who, name, cell["notebook"])]
                key = (notebook, layout.graded.get((cell["notebook"], cell["cell"])))
                if key not in rows.grades:
                    raise MissingEntry(f"No such grade: {name}/{cell['notebook']}/"
                                       f"{cell['cell']} for {who}")  # fmt: skip
                rows.set(Grade, rows.grades[key], auto_score=cell["score"],
                         needs_manual_grade=cell["needs_manual_grade"])  # fmt: skip
            for entry in result["comments"]:
                notebook = notebooks[(who, name, entry["notebook"])]
                key = (notebook, layout.commented.get((entry["notebook"], entry["cell"])))
                if key not in rows.comments:
                    raise MissingEntry(f"No such comment: {name}/{entry['notebook']}/"
                                       f"{entry['cell']} for {who}")  # fmt: skip
                rows.set(Comment, rows.comments[key], auto_comment=entry["auto_comment"])
            for entry in result["notebooks"]:
                if (penalty := entry["late_penalty"]) is not None:
                    notebook = notebooks[(who, name, entry["notebook"])]
                    rows.set(SubmittedNotebook, notebook, late_submission_penalty=penalty)
        rows.flush(self.db)
        # in the batch's order: the last run of a submission is the one written last
        self.db.execute(insert(GradingRun.__table__), [run_row(r, p) for r, p in batch])

    def _add_students(self, students: list[str]) -> None:
        """update_or_create_student(id) for each: the ones not in the gradebook yet."""
        known = set(self.db.scalars(select(Student.id).where(Student.id.in_(students))))
        new = [{"id": s} for s in students if s not in known]
        if new:
            self.db.execute(insert(Student.__table__), new)

    def _submissions(self, results: list[dict], layouts: dict, rows: _Rows) -> dict:
        """update_or_create_submission for each result: a new one with its notebooks, empty
        grades and comments (as add_submission makes them), an old one's timestamp set.
        Returns (student, assignment, notebook name) -> submitted notebook id."""
        ids = {layout.id: name for name, layout in layouts.items()}
        query = select(
            SubmittedAssignment.student_id, SubmittedAssignment.assignment_id,
            SubmittedAssignment.id,
        ).where(
            SubmittedAssignment.student_id.in_({r["student"] for r in results}),
            SubmittedAssignment.assignment_id.in_(ids),
        )  # fmt: skip
        found = {(s, ids[a]): sub for s, a, sub in self.db.execute(query)}
        notebooks = self._old_notebooks(found, rows) if found else {}
        for result in results:
            key = (result["student"], result["assignment"])
            stamp = result["timestamp"] and parse_utc(datetime.fromisoformat(result["timestamp"]))
            if key in found:
                if stamp:
                    rows.set(SubmittedAssignment, found[key], timestamp=stamp)
                continue
            found[key] = rows.add(SubmittedAssignment, assignment_id=layouts[key[1]].id,
                                  student_id=key[0], timestamp=stamp or None)  # fmt: skip
            for notebook in layouts[key[1]].notebooks:
                row = notebooks[(*key, notebook.name)] = rows.add(
                    SubmittedNotebook, assignment_id=found[key], notebook_id=notebook.id,
                    late_submission_penalty=None,
                )  # fmt: skip
                for cell in notebook.grade_cells:  # nbgrader's defaults, then the result's
                    rows.grades[(row, cell)] = rows.add(
                        Grade, notebook_id=row, cell_id=cell, auto_score=None,
                        needs_manual_grade=True,
                    )  # fmt: skip
                for cell in notebook.comment_cells:
                    rows.comments[(row, cell)] = rows.add(
                        Comment, notebook_id=row, cell_id=cell, auto_comment=None
                    )
        return notebooks

    def _old_notebooks(self, found: dict, rows: _Rows) -> dict:
        """The notebooks, grades and comments of submissions already in the gradebook."""
        query = (
            select(SubmittedNotebook.assignment_id, Notebook.name, SubmittedNotebook.id)
            .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
            .where(SubmittedNotebook.assignment_id.in_(found.values()))
        )
        owner = {sub: key for key, sub in found.items()}
        notebooks = {(*owner[sub], name): row for sub, name, row in self.db.execute(query)}
        for model, known in ((Grade, rows.grades), (Comment, rows.comments)):
            query = select(model.notebook_id, model.cell_id, model.id)
            query = query.where(model.notebook_id.in_(notebooks.values()))
            known.update({(n, c): row for n, c, row in self.db.execute(query)})
        return notebooks

    def _layout(self, name: str) -> _Layout:
        if name not in self._layouts:
            self._layouts[name] = _Layout(self.gb.find_assignment(name))
        return self._layouts[name]


class _Layout:
    """An assignment's notebooks and cells, by the names a result gives (read once)."""

    def __init__(self, assignment):
        self.id = assignment.id
        self.notebooks = []
        self.graded, self.commented = {}, {}  # (notebook, cell name) -> cell id
        for notebook in assignment.notebooks:
            tasks = [(c.name, c.id) for c in notebook.task_cells]
            graded = [(c.name, c.id) for c in notebook.grade_cells] + tasks
            commented = [(c.name, c.id) for c in notebook.solution_cells] + tasks
            ids = ([i for _, i in graded], [i for _, i in commented])
            self.notebooks.append(_Notebook(notebook.id, notebook.name, *ids))
            # find_grade looks among grade cells first, then task cells (same for comments)
            for kind, cells in ((self.graded, graded), (self.commented, commented)):
                for cell, row in reversed(cells):
                    kind[(notebook.name, cell)] = row


class _Notebook:
    def __init__(self, id, name, grade_cells, comment_cells):
        self.id, self.name = id, name
        self.grade_cells, self.comment_cells = grade_cells, comment_cells


class _Rows:
    """What a batch writes into nbgrader's tables: new rows, inserted whole, and values set
    on rows already there, each table in one executemany per set of columns."""

    ORDER = (SubmittedAssignment, SubmittedNotebook, Grade, Comment)  # foreign keys first

    def __init__(self):
        self.new = {model: {} for model in self.ORDER}  # id -> the row's values
        self.changed = {model: {} for model in self.ORDER}  # id -> values to set
        self.grades, self.comments = {}, {}  # (submitted notebook id, cell id) -> id

    def add(self, model, **values) -> str:
        row = uuid.uuid4().hex  # nbgrader's new_uuid
        self.new[model][row] = {"id": row, **values}
        return row

    def set(self, model, row: str, **values) -> None:
        target = self.new[model].get(row)
        (target if target is not None else self.changed[model].setdefault(row, {})).update(values)

    def flush(self, db) -> None:
        for model in self.ORDER:
            if self.new[model]:
                db.execute(insert(model.__table__), list(self.new[model].values()))
        for model in self.ORDER:
            by_columns: dict[tuple, list] = {}
            for row, values in self.changed[model].items():
                by_columns.setdefault(tuple(values), []).append({"row": row, **values})
            table = model.__table__  # the SET clause: the rows' other keys
            for rows in by_columns.values():
                db.execute(update(table).where(table.c.id == bindparam("row")), rows)


def _move_graded_notebooks(course, result: dict) -> None:
    """Replace autograded/<student>/<assignment> with the worker's, by renames."""
    final = course.path("autograded", result["student"], result["assignment"])
    old = final.with_name(final.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    if result.get("autograded_dir") and Path(result["autograded_dir"]).is_dir():
        final.parent.mkdir(parents=True, exist_ok=True)
        Path(result["autograded_dir"]).rename(final)
    shutil.rmtree(old, ignore_errors=True)
