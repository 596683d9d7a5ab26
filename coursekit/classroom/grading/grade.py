"""`minigrad-course grade`: every collected submission graded, in parallel, resumable.

A submission is graded again only when it has no run yet, when its files changed since its
last run, with --force, or when it is an appeal (--student). An appeal reuses the seed of the
last run, so the hidden tests draw the same values, only for byte-identical files: the seeds
were in the student's feedback, and files changed since could replay what they drew. Changed
files get a fresh seed and a note saying so. One `grade` at a time per course (a lock file);
a killed one leaves nothing the next one trusts.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import secrets
import shutil
import sys
from contextlib import contextmanager, suppress

from coursekit.classroom.deadlines import apply_penalties, submission_time
from coursekit.classroom.grading import forced
from coursekit.classroom.grading.grade_one import SEED_ENV, Job, blank_result
from coursekit.classroom.grading.supervisor import Limits, run_jobs
from coursekit.classroom.grading.template_gradebook import build_template
from coursekit.classroom.grading.time_limits import SealedTimes
from coursekit.classroom.grading.writer import BatchWriter
from coursekit.classroom.printable import printable
from coursekit.classroom.progress import Progress
from coursekit.classroom.runs import ensure_table, fingerprint, latest_runs

# The function that makes the verdict for one submission ("module:function", job -> result).
GRADER = "coursekit.classroom.grading.grade_one:grade_submission"


def grade_class(
    course,
    workers: int | None = None,
    force: bool = False,
    student: str | None = None,
    cell_timeout: int = 120,
    limits: Limits | None = None,
    grader: str = GRADER,
    stream=None,
    sealed: SealedTimes | None = None,
    scheduler: str | None = None,
    insecure: bool = False,
) -> list[dict]:
    """Grade what needs grading; returns the results written, in completion order.

    scheduler: a Dask scheduler's address; each submission is then graded on its workers
    (cluster.py), else here, `workers` at a time (supervisor.py). insecure: a plain tcp://
    scheduler is accepted (by default only tls://, with the course's cluster keys)."""
    stream = stream or sys.stderr
    with _only_grader(course):
        plan = _plan(course, force, student, stream)
        if not plan:
            return []
        if force:  # cut short, the next `grade` finishes it (forced.py)
            forced.start(course, [(who, a) for who, a, *_ in plan])
        limits, sealed = limits or Limits(), sealed or SealedTimes()
        executor = _executor(course, workers, limits, grader, (scheduler, insecure), stream)
        written = _grade(course, plan, executor, cell_timeout, stream, sealed)
        with course.gradebook() as gb:
            apply_penalties(gb.db, student)  # an appeal: that student's alone
        forced.finish(course)
    if any(r["seeds_seen"] and r["seeds_seen"] != [r["seed"]] for r in written):
        stream.write(
            f"warning: the hidden tests did not use the seed in {SEED_ENV}; an appeal "
            "(--student) cannot draw the same values again\n"
        )
    return written


# The note on an appeal whose files are not the ones its last run graded.
CHANGED_SINCE = (
    "the submitted files changed since they were last graded; graded on fresh values "
    "(an appeal reuses them only for the same files)"
)


NOTHING_COLLECTED = (
    "nothing to grade: no submission has been collected yet. Collect them first, "
    "`minigrad-course collect ASSIGNMENT` from the exchange or `minigrad-course collect "
    "ASSIGNMENT --from DOWNLOAD --roster ROSTER` from an LMS, then grade."
)


def _plan(course, force: bool, student: str | None, stream) -> list[tuple]:
    """(student, assignment, seed, fingerprint, notes) of each submission to grade now."""
    collected = course.submitted()
    if not collected:
        raise SystemExit(NOTHING_COLLECTED)
    submissions = [s for s in collected if student is None or s[0] == student]
    if student is not None and not submissions:
        raise SystemExit(f"no collected submission for student '{printable(student)}'")
    with course.gradebook() as gb:
        ensure_table(gb.engine)
        last = latest_runs(gb.db, student)
    owed = forced.owed(course, last) & set(submissions)
    if owed:
        stream.write(f"a `grade --force` was cut short: {len(owed)} submissions it had not "
                     "regraded yet are regraded now\n")  # fmt: skip
    plan = []
    for who, assignment in submissions:
        prints = fingerprint(course.submission_dir(who, assignment))
        previous = last.get((who, assignment))
        same_files = previous is not None and previous.fingerprint == prints
        notes = ()
        if student is not None and same_files:  # an appeal: same values as the last run
            seed = previous.seed
        elif same_files and not force and (who, assignment) not in owed:
            continue
        else:
            seed = _fresh_seed()
            if student is not None and previous is not None:
                notes = (CHANGED_SINCE,)
        plan.append((who, assignment, seed, prints, notes))
    skipped = len(submissions) - len(plan)
    if skipped:
        stream.write(f"{skipped} submissions already graded and unchanged (--force regrades)\n")
    return plan


def _executor(course, workers, limits, grader, cluster, stream):
    """jobs -> (number graded at a time, iterator of (job, result or None, problem)).
    cluster: (the Dask scheduler's address or None, whether plain TCP is accepted)."""
    logs = course.work / "logs"
    scheduler, insecure = cluster
    if scheduler:
        from coursekit.classroom.grading.cluster import run_jobs_on_dask

        return lambda jobs: run_jobs_on_dask(
            course, jobs, scheduler, limits, grader, logs, stream, insecure
        )

    def local(jobs):
        at_a_time = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
        return at_a_time, run_jobs(jobs, at_a_time, limits, grader, logs)

    return local


def _grade(course, plan, executor, cell_timeout, stream, sealed) -> list[dict]:
    template = build_template(course, course.work / "template.db")
    jobs_dir = course.work / "jobs"
    shutil.rmtree(jobs_dir, ignore_errors=True)  # a killed run's leftovers
    prints = {(who, a): p for who, a, _, p, _ in plan}
    # when each was handed in, and how we know (deadlines.py), with its result
    times = {(who, a): submission_time(course.submission_dir(who, a)) for who, a, *_ in plan}
    jobs = [
        Job(
            str(course.root),
            who,
            a,
            seed,
            str(jobs_dir / _job_name(n, who, a)),
            str(template),
            cell_timeout,
            notes,
            sealed,
        )
        for n, (who, a, seed, _, notes) in enumerate(plan)
    ]
    workers, finished = executor(jobs)
    stream.write(f"grading {len(jobs)} submissions, {workers} at a time\n")
    progress, written = Progress(len(jobs), stream), []

    def stored(job, result):  # called by the writer once the result is committed
        shutil.rmtree(job.work_dir, ignore_errors=True)
        written.append(result)
        score = sum(c["score"] for c in result["cells"])
        total = sum(c["max_score"] for c in result["cells"])
        running = min(workers, len(jobs) - progress.done - 1)
        shown = printable(f"{job.student}/{job.assignment}")
        progress.step(running, f"{shown} {score:g}/{total:g}")

    with BatchWriter(course) as writer:
        for job, result, problem in finished:
            if result is None:
                result = blank_result(job, problem)
            result["submitted"] = times[(job.student, job.assignment)]
            result["timestamp"] = result["submitted"]["time"]
            writer.put(result, prints[(job.student, job.assignment)],
                       functools.partial(stored, job, result))  # fmt: skip
    return written


@contextmanager
def _only_grader(course):
    """An exclusive lock on the course's grading; the system drops it when we die."""
    course.work.mkdir(parents=True, exist_ok=True)
    with open(course.work / "grade.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit("another `minigrad-course grade` is running on this course") from None
        yield


def _job_name(n: int, student: str, assignment: str) -> str:
    """The job's work folder (and log) name. nbgrader's autograde matches that path as a
    regular expression without escaping it: a `+` or `(` of a student id must not reach it."""
    return f"{n:04d}-" + re.sub(r"[^\w-]", "_", f"{student}--{assignment}", flags=re.ASCII)


def _fresh_seed() -> int:
    return secrets.randbelow(2**31)


def sealing_notice(course) -> str:
    """For the instructor, once per `grade`: the sandbox layers this machine does not give a
    sealed course's grading, and how to get them; empty when none is missing."""
    from coursekit.classroom.grading.grade_one import _is_sealed
    from coursekit.sealed import sandbox

    missing = {name: state for name, state in sandbox.layers().items() if state != "active"}
    if not missing or not _is_sealed(course):
        return ""
    lines = ["NOTE: sealed grading is DEGRADED on this machine (every result says so):"]
    if "uid" in missing and os.geteuid() != 0:
        import pwd

        me, root = pwd.getpwuid(os.geteuid()).pw_name, printable(str(course.root))
        lines.append(
            f"  student code ran as your own account ({printable(me)}), not as a sandbox user "
            "of its own: it shares your process limit, so a fork bomb in one submission can "
            "stall the other runs and your own work. Only root can switch to a sandbox user: "
            f"for every layer, grade as root (sudo minigrad-course grade -C {root})."
        )
        del missing["uid"]
    lines += [f"  {name}: {state}" for name, state in missing.items()]
    return "\n".join(lines)


def hand_back(course) -> int:
    """As root, in a course directory that belongs to another account (the instructor's on a
    hub): what this run created there goes to that account, so that it can go on without root.
    Never follows a link (os.fwalk, dir_fd). Returns how many entries changed hands."""
    owner = course.root.stat()
    if os.geteuid() != 0 or owner.st_uid == 0:
        return 0
    changed = 0
    for _, dirs, files, fd in os.fwalk(course.root, follow_symlinks=False):
        for name in dirs + files:
            with suppress(FileNotFoundError):  # gone meanwhile: nothing to hand back
                if os.stat(name, dir_fd=fd, follow_symlinks=False).st_uid == 0:
                    os.chown(name, owner.st_uid, owner.st_gid, dir_fd=fd, follow_symlinks=False)
                    changed += 1
    return changed
