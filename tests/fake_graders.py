"""Stand-in graders for grade_class(grader="fake_graders:..."): the pipeline's planning,
writing and resuming without nbgrader or a kernel (each answers in milliseconds)."""

from __future__ import annotations

import os
import signal

from coursekit.classroom.grading.grade_one import blank_result

KILL_ENV = "FAKE_GRADER_KILLS"  # the pid of the `grade` to kill, and the student that does


def quick(job) -> dict:
    """Every cell 0, graded cleanly."""
    result = blank_result(job, "graded by a stand-in")
    result.update(status="graded", notes=[])
    return result


def kills_the_grade(job) -> dict:
    """As quick, but the student named in $FAKE_GRADER_KILLS ("pid:student:runs") kills the
    `grade` process (kill -9), as an instructor's Ctrl-C or a lost session would, once the
    gradebook holds that many runs (the writer stores results on a thread of its own)."""
    pid, student, runs = os.environ[KILL_ENV].split(":", 2)
    if job.student == student:
        _wait_for_runs(job, int(runs))
        os.kill(int(pid), signal.SIGKILL)
        os._exit(1)
    return quick(job)


def _wait_for_runs(job, runs: int) -> None:
    import time

    from sqlalchemy import create_engine, func, select

    from coursekit.classroom.course import Course
    from coursekit.classroom.runs import GradingRun

    engine = create_engine(Course.at(job.course_root).url)
    try:
        for _ in range(600):
            with engine.connect() as connection:
                if connection.scalar(select(func.count()).select_from(GradingRun)) >= runs:
                    return
            time.sleep(0.05)
    finally:
        engine.dispose()


def which_process(job) -> dict:
    """Which grading process graded the job (and the process it was started from), and the
    folder it staged for sealed runs; the student "dies" kills that process mid-job, "sleeps"
    outlives any wall limit."""
    import time

    from coursekit.sealed.sandbox import staged_root

    staged = str(staged_root())
    if job.student == "dies":
        os.kill(os.getpid(), signal.SIGKILL)
    if job.student == "sleeps":
        time.sleep(600)
    return {"student": job.student, "pid": os.getpid(), "parent": os.getppid(), "staged": staged}


def leaves_processes(job) -> dict:
    """Starts a reference server as the checker does (registered in autograder.observe) and
    a process it forgets; the student "look" says which of the last job's are still alive."""
    import importlib
    import subprocess

    observe = importlib.import_module("autograder.observe")  # the module, not its function
    if job.student == "look":
        alive = {p for p in map(int, job.notes) if running(p)}
        return {"student": job.student, "alive": sorted(alive)}
    server = subprocess.Popen(["sleep", "600"])
    observe._SERVERS["fake-engine"] = server
    forgotten = subprocess.Popen(["sleep", "600"], start_new_session=True)
    return {"student": job.student, "server": server.pid, "forgotten": forgotten.pid}


def running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
