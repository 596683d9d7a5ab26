"""Stand-in graders for grade_class(grader="fake_graders:..."): the pipeline's planning,
writing and resuming without nbgrader or a kernel (each answers in milliseconds)."""

from __future__ import annotations

import os
import signal

from coursekit.classroom.grade_one import blank_result

KILL_ENV = "FAKE_GRADER_KILLS"  # the pid of the `grade` to kill, and the student that does


def quick(job) -> dict:
    """Every cell 0, graded cleanly."""
    result = blank_result(job, "graded by a stand-in")
    result.update(status="graded", notes=[])
    return result


def kills_the_grade(job) -> dict:
    """As quick, but the student named in $FAKE_GRADER_KILLS ("pid:student") kills the `grade`
    process (kill -9), as an instructor's Ctrl-C or a lost session would."""
    pid, student = os.environ[KILL_ENV].split(":", 1)
    if job.student == student:
        os.kill(int(pid), signal.SIGKILL)
        os._exit(1)
    return quick(job)


def which_process(job) -> dict:
    """Which grading process graded the job, and the folder it staged for sealed runs;
    the student "dies" kills that process mid-job, "sleeps" outlives any wall limit."""
    import time

    from coursekit.sealed.sandbox import staged_root

    staged = str(staged_root())
    if job.student == "dies":
        os.kill(os.getpid(), signal.SIGKILL)
    if job.student == "sleeps":
        time.sleep(600)
    return {"student": job.student, "pid": os.getpid(), "staged": staged}


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
