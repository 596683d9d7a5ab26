"""Run grading jobs, each in its own process, N at a time, within a time and memory budget.

Workers are forked from a multiprocessing fork server that has imported nbgrader once, so a
job starts in milliseconds. Each worker grades one submission and sends back the result as
JSON text (never a pickle). The supervisor stops a worker, with every process it started
(the kernel included), when it exceeds its wall-clock time or when their memory together
exceeds the cap; every address space is also limited to the cap (RLIMIT_AS), so a
runaway allocation fails inside the kernel before the machine runs out. A worker that dies
is reported, never waited for. Results come back in completion order.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import multiprocessing
import os
import resource
import signal
import time
import traceback
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

import psutil

# Imported once by the fork server, not once per submission (nbgrader alone takes seconds;
# the sealed grader's PyTorch reference, `import torch`, as long). Only imported: nothing
# runs on PyTorch's threads before a fork.
PRELOAD = [
    "coursekit.classroom.grade_one",
    "coursekit.classroom.execute",
    "autograder.catalogue",
    "nbgrader.converters",
    "nbgrader.apps",
    "coursekit.sealed.nbgrader_steps",
    "torch",
    "torch.optim",
    "torch._dynamo",  # what an optimizer's first step imports: 1.3 s in every job otherwise
]
POLL_S = 0.2


@dataclass(frozen=True)
class Limits:
    wall_s: float = 900.0  # per submission
    memory_mb: int = 3072  # per submission: all its processes together


@dataclass
class _Running:
    job: object
    process: multiprocessing.Process
    conn: object
    started: float


def run_jobs(jobs, workers: int, limits: Limits, grader: str, logs: Path):
    """Yield (job, result or None, problem) as jobs finish; problem explains a missing result.

    What a worker and its kernel print goes to logs/<name of the job's work_dir>.log.
    """
    logs.mkdir(parents=True, exist_ok=True)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    pending, running = deque(jobs), {}
    try:
        while pending or running:
            while pending and len(running) < workers:
                job = pending.popleft()
                receive, send = context.Pipe(duplex=False)
                log = logs / f"{Path(job.work_dir).name}.log"
                process = context.Process(
                    target=_worker,
                    args=(grader, job, send, limits.memory_mb, str(log)),
                    daemon=False,
                )
                process.start()
                send.close()
                running[process.sentinel] = _Running(job, process, receive, time.monotonic())
            wait([r.conn for r in running.values()] + list(running), timeout=POLL_S)
            for key, run in list(running.items()):
                outcome = _check(run, limits)
                if outcome is not None:
                    del running[key]
                    run.conn.close()
                    yield (run.job, *outcome)
    finally:
        for run in running.values():
            _kill_tree(run.process.pid)


def _check(run: _Running, limits: Limits):
    """(result, problem) once the job is over, None while it is still going."""
    if run.conn.poll():
        try:
            result = json.loads(run.conn.recv_bytes().decode())
        except (EOFError, OSError, ValueError) as error:
            result = None
            problem = f"the grading process sent no readable result ({error})"
        else:
            problem = result.pop("_worker_error", "") if isinstance(result, dict) else ""
        _kill_tree(run.process.pid)  # a kernel left behind, if any
        run.process.join(timeout=10)
        return (None, problem) if problem else (result, "")
    if not run.process.is_alive():
        run.process.join()
        code = run.process.exitcode
        how = f"signal {-code}" if code and code < 0 else f"exit code {code}"
        return None, f"the grading process died ({how}) before sending a result"
    elapsed = time.monotonic() - run.started
    if elapsed > limits.wall_s:
        _kill_tree(run.process.pid)
        return None, f"stopped after {elapsed:.0f} s: over the {limits.wall_s:.0f} s limit"
    used = _tree_memory_mb(run.process.pid)
    if used > limits.memory_mb:
        _kill_tree(run.process.pid)
        return None, f"stopped at {used:.0f} MB: over the {limits.memory_mb} MB memory limit"
    return None


def _worker(grader: str, job, send, memory_mb: int, log: str) -> None:
    _die_with_parent()
    with open(log, "w") as sink:  # nbgrader's and the kernel's chatter, off the terminal
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
    cap = memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        module, _, name = grader.partition(":")
        result = getattr(importlib.import_module(module), name)(job)
    except BaseException:  # the report must name it; the class goes on
        last = traceback.format_exc().strip().splitlines()[-1]
        result = {"_worker_error": f"grading failed: {last}"}
    send.send_bytes(json.dumps(result).encode())
    send.close()


def _die_with_parent() -> None:
    """A worker outliving a killed `grade` would grade on, unseen: Linux ends it instead."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    if os.getppid() == 1:
        os._exit(1)


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _tree_memory_mb(pid: int) -> float:
    total = 0
    for process in _tree(pid):
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def _kill_tree(pid: int) -> None:
    """The worker and everything it started (kernels run in their own sessions)."""
    for process in reversed(_tree(pid)):
        try:
            process.kill()
        except psutil.Error:
            pass
