"""The local grading workers (coursekit/classroom/grading/supervisor.py): each grades job after job,
so what grading warms is paid once per worker; one that dies or overruns is replaced, and
the folder workers stage sealed files in goes with the pool, killed workers' included."""

from __future__ import annotations

import json
import os
from pathlib import Path

from coursekit.classroom.grading.grade_one import Job
from coursekit.classroom.grading.supervisor import JOBS_PER_WORKER, Limits, WorkerPool, run_jobs

GRADER = "fake_graders:which_process"
LEAVES = "fake_graders:leaves_processes"


def jobs(tmp_path: Path, *students: str) -> list[Job]:
    return [
        Job(str(tmp_path), s, "toy", 1, str(tmp_path / "jobs" / f"{n}-{s}"), "unused.db")
        for n, s in enumerate(students)
    ]


def test_one_worker_grades_job_after_job(tmp_path):
    finished = list(run_jobs(jobs(tmp_path, "a", "b", "c"), 1, Limits(), GRADER, tmp_path / "l"))
    assert [problem for _, _, problem in finished] == ["", "", ""]
    assert len({result["pid"] for _, result, _ in finished}) == 1
    assert (tmp_path / "l" / "0-a.log").is_file()


def test_a_worker_that_dies_or_overruns_is_replaced_and_the_class_goes_on(tmp_path):
    pool = WorkerPool()
    stage = Path(pool._stage)
    limits = Limits(wall_s=5)
    try:
        finished = {
            job.student: (result, problem)
            for job, result, problem in run_jobs(
                jobs(tmp_path, "a", "dies", "b", "sleeps", "c"),
                1,
                limits,
                GRADER,
                tmp_path / "l",
                pool=pool,
            )  # fmt: skip
        }
        assert "died (signal 9)" in finished["dies"][1]
        assert "over the 5 s limit" in finished["sleeps"][1]
        graded = [finished[s][0] for s in ("a", "b", "c")]
        assert all(result is not None for result in graded)
        assert graded[0]["pid"] != graded[1]["pid"] != graded[2]["pid"]  # fresh after each
        assert Path(graded[0]["staged"]).is_relative_to(stage)
    finally:
        pool.close()
    assert not stage.exists()  # with what the killed workers staged


def test_after_a_job_its_leftover_processes_end_but_the_reference_servers_stay(tmp_path):
    """A kernel a job left running is killed before the next job; the checker's reference
    server, PyTorch imported (1.3 CPU-s to start again), serves the worker's next jobs, and
    ends with the worker."""
    from fake_graders import running

    pool, logs = WorkerPool(), tmp_path / "l"
    try:
        [(_, first, problem)] = run_jobs(jobs(tmp_path, "a"), 1, Limits(), LEAVES, logs, pool=pool)
        assert first, problem
        pids = (str(first["server"]), str(first["forgotten"]))
        look = Job(str(tmp_path), "look", "toy", 1, str(tmp_path / "jobs" / "look"), "-", 1, pids)
        [(_, second, _)] = run_jobs([look], 1, Limits(), LEAVES, logs, pool=pool)
    finally:
        pool.close()
    assert second["alive"] == [first["server"]]
    assert not running(first["server"])  # the pool closed: its workers' servers are gone


def test_a_worker_retires_after_its_share_of_jobs(tmp_path):
    students = [f"s{n}" for n in range(JOBS_PER_WORKER + 1)]
    finished = list(run_jobs(jobs(tmp_path, *students), 1, Limits(), GRADER, tmp_path / "l"))
    pids = [result["pid"] for _, result, _ in finished]
    assert len(set(pids[:JOBS_PER_WORKER])) == 1 and pids[-1] != pids[0]


def test_a_pool_removes_the_folders_of_pools_whose_process_was_killed(tmp_path, monkeypatch):
    """A `grade` killed with kill -9 never closes its pool: the next one removes its folder,
    and leaves alone that of a pool whose process still runs."""
    import subprocess
    import sys
    import tempfile

    from coursekit.classroom.grading.supervisor import STAGE_PREFIX

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the sweep looks here only
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    killed = tmp_path / f"{STAGE_PREFIX}{int(ended.stdout)}-abc"
    running = tmp_path / f"{STAGE_PREFIX}{os.getpid()}-def"
    for folder in (killed, running):
        (folder / "minigrad-sealed-x").mkdir(parents=True)
    pool = WorkerPool()
    try:
        assert not killed.exists() and running.exists()
        assert Path(pool._stage).parent == tmp_path
    finally:
        pool.close()


def test_the_fork_server_ends_with_the_process_that_graded(tmp_path):
    """Left to end by itself, the fork server tears down the interpreter it imported torch
    and nbgrader into, seconds after the `grade` that started it is done, holding that
    command's stdout and stderr open: whoever reads them waits. It ends with that process."""
    import subprocess
    import sys

    from fake_graders import running

    script = (
        "import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "from test_supervisor import GRADER, jobs; "
        "from coursekit.classroom.grading.supervisor import Limits, run_jobs; "
        "tmp = Path(sys.argv[2]); "
        "[(_, result, _)] = run_jobs(jobs(tmp, 'a'), 1, Limits(), GRADER, tmp / 'l'); "
        "(tmp / 'graded.json').write_text(json.dumps(result))"
    )
    here = str(Path(__file__).resolve().parent)
    subprocess.run([sys.executable, "-c", script, here, str(tmp_path)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)  # fmt: skip
    graded = json.loads((tmp_path / "graded.json").read_text())
    assert graded["pid"] != graded["parent"]  # a worker, forked from the server
    assert not running(graded["parent"])


def _grade_as_a_daemon(tmp_path: Path, answers) -> None:
    """Run in a daemonic process, as a Dask nanny's worker: multiprocessing may not start a
    child there."""
    try:
        limits = Limits(wall_s=5)
        finished = run_jobs(jobs(tmp_path, "a", "dies", "b", "sleeps"), 1, limits, GRADER,
                            tmp_path / "l")  # fmt: skip
        answers.put([(job.student, result, problem) for job, result, problem in finished])
    except BaseException as error:
        answers.put(repr(error))


def test_a_daemonic_process_grades_through_fresh_interpreters(tmp_path):
    import multiprocessing

    import psutil

    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    daemon = context.Process(target=_grade_as_a_daemon, args=(tmp_path, answers), daemon=True)
    daemon.start()
    try:
        finished = answers.get(timeout=600)
    finally:
        daemon.join(30)
    assert isinstance(finished, list), finished
    problems = {student: problem for student, _, problem in finished}
    assert problems["a"] == problems["b"] == "", problems
    assert "died (signal 9)" in problems["dies"] and "over the 5 s limit" in problems["sleeps"]
    graded = [result for student, result, _ in finished if student in ("a", "b")]
    assert graded[0]["pid"] != graded[1]["pid"]  # a fresh one after the killed one
    assert daemon.exitcode == 0
    assert not any(psutil.pid_exists(result["pid"]) for result in graded)
