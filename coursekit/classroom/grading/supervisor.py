"""Run grading jobs in worker processes, N at a time, within a time and memory budget.

Workers are forked from a multiprocessing fork server that has imported nbgrader and torch
once. Where multiprocessing may not start processes (a daemonic process: the worker of a Dask
nanny, `dask worker`'s default), each is a fresh interpreter started with subprocess instead,
importing the same modules itself. A worker then grades one job after another (up to
JOBS_PER_WORKER), so what the first grading warms (PyTorch's reference on first use, nbgrader's
schemas and database mappings, the sealed run's staged files) is paid once per worker, not once
per submission. A job goes to its worker, and its result comes back, as JSON text (never a
pickle). The supervisor stops a worker, with every process it started (the kernel included),
when its job exceeds its wall-clock time or when their memory together exceeds the cap, and the
next job gets a fresh worker; every address space is also limited to the cap (RLIMIT_AS), so a
runaway allocation fails inside the kernel before the machine runs out. A worker that dies is
reported, never waited for. Results come back in completion order.

Student code never runs in a worker: it runs in nbgrader's kernel or in the sealed child,
both started afresh for each submission, and both ended before the worker takes another job.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import importlib
import json
import multiprocessing
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import weakref
from collections import deque
from dataclasses import dataclass
from multiprocessing import forkserver
from multiprocessing.connection import Connection, wait
from pathlib import Path

import psutil

# Imported once by the fork server, not once per submission (nbgrader alone takes seconds;
# the sealed grader's PyTorch reference, `import torch`, as long). Only imported: nothing
# runs on PyTorch's threads before a fork.
PRELOAD = [
    "coursekit.classroom.grading.grade_one",
    "coursekit.classroom.grading.execute",
    "autograder.catalogue",
    "nbgrader.converters",
    "nbgrader.apps",
    "coursekit.sealed.nbgrader_steps",
    "torch",
    "torch.optim",
    "torch._dynamo",  # what an optimizer's first step imports: 1.3 s in every job otherwise
]
POLL_S = 0.2
JOBS_PER_WORKER = 50  # then a fresh one: whatever a long-lived grading process accumulates
STAGE_PREFIX = "minigrad-grading-"  # + the pool's pid: a pool's folder for staged files


@dataclass(frozen=True)
class Limits:
    wall_s: float = 900.0  # per submission
    memory_mb: int = 3072  # per submission: all its processes together


@dataclass
class _Worker:
    process: multiprocessing.Process | _Interpreter
    conn: object  # duplex: jobs out, results back
    memory_mb: int
    jobs: int = 0


@dataclass
class _Running:
    job: object
    worker: _Worker
    started: float


def run_jobs(jobs, workers: int, limits: Limits, grader: str, logs: Path, pool=None):
    """Yield (job, result or None, problem) as jobs finish; problem explains a missing result.

    What a worker and its kernel print while grading a job goes to
    logs/<name of the job's work_dir>.log. `pool`: a WorkerPool whose idle workers outlive
    this call (a Dask worker keeps one); by default one for this call only.
    """
    logs.mkdir(parents=True, exist_ok=True)
    owned = pool is None
    pool = pool or WorkerPool()
    pending, running = deque(jobs), {}
    try:
        while pending or running:
            while pending and len(running) < workers:
                job = pending.popleft()
                worker = pool.take(limits.memory_mb)
                log = logs / f"{Path(job.work_dir).name}.log"
                try:
                    worker.conn.send_bytes(_job_message(grader, job, log))
                except OSError:  # it died while idle: the job goes to a fresh one
                    pool.discard(worker)
                    pending.appendleft(job)
                    continue
                running[worker.process.sentinel] = _Running(job, worker, time.monotonic())
            ready = [r.worker.conn for r in running.values()] + list(running)
            wait(ready, timeout=POLL_S)
            for key, run in list(running.items()):
                outcome = _check(run, limits)
                if outcome is None:
                    continue
                del running[key]
                result, problem, reusable = outcome
                if reusable:
                    pool.give_back(run.worker)
                else:
                    pool.discard(run.worker)
                yield run.job, result, problem
    finally:
        for run in running.values():
            pool.discard(run.worker)
        if owned:
            pool.close()


class WorkerPool:
    """Grading workers, started on demand and kept while idle; thread-safe (a Dask worker
    may grade several parcels at once). The folder where workers stage the sealed run's
    files is this pool's: removed by close(), also for a worker that was killed."""

    def __init__(self):
        # a daemonic process may start processes, but not through multiprocessing
        self._fresh = multiprocessing.current_process().daemon
        self._context = _fork_server_context()
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        _remove_stale_stages()
        self._stage = Path(tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-"))
        self._stage.chmod(0o755)  # the sandbox's own uid reads what is staged there

    def take(self, memory_mb: int) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.memory_mb == memory_mb and worker.process.is_alive():
                    return worker
                _retire(worker)
        if self._fresh:
            return _Interpreter.start(memory_mb, self._stage)
        ours, theirs = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=_serve, args=(theirs, memory_mb, str(self._stage)), daemon=False
        )
        process.start()
        theirs.close()
        return _Worker(process, ours, memory_mb)

    def give_back(self, worker: _Worker) -> None:
        worker.jobs += 1
        if worker.jobs >= JOBS_PER_WORKER:
            _retire(worker)
            return
        with self._lock:
            self._idle.append(worker)

    def discard(self, worker: _Worker) -> None:
        _kill_tree(worker.process.pid)
        worker.process.join(timeout=10)
        worker.conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            _retire(worker)
        shutil.rmtree(self._stage, ignore_errors=True)


class _Interpreter:
    """A worker as a fresh interpreter (subprocess), with what run_jobs uses of a
    multiprocessing.Process: pid, sentinel (a pidfd), is_alive, join, exitcode."""

    def __init__(self, popen: subprocess.Popen):
        self._popen, self.pid = popen, popen.pid
        self.sentinel = os.pidfd_open(popen.pid)
        weakref.finalize(self, os.close, self.sentinel)

    @classmethod
    def start(cls, memory_mb: int, stage: Path) -> _Worker:
        ours, theirs = socket.socketpair()
        command = f"from {__name__} import serve_inherited; serve_inherited()"
        # what a multiprocessing child is given: where to import from, and its job
        arguments = json.dumps({"fd": theirs.fileno(), "memory_mb": memory_mb, "stage": str(stage),
                                "parent": os.getpid(), "sys_path": sys.path})  # fmt: skip
        popen = subprocess.Popen(
            [sys.executable, "-c", command, arguments], pass_fds=[theirs.fileno()]
        )
        theirs.close()
        conn = Connection(ours.detach())
        # ready once it has imported what a fork server's child would have inherited (a job's
        # time starts then, as it does for a forked worker)
        try:
            conn.recv_bytes()
        except EOFError:
            popen.wait()
            raise RuntimeError(
                f"a grading process ended as it started (exit code {popen.returncode}): "
                "what it said is in the Dask worker's log"
            ) from None
        return _Worker(cls(popen), conn, memory_mb)

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    def join(self, timeout: float | None = None) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout)

    @property
    def exitcode(self) -> int | None:
        return self._popen.poll()  # negative for a signal, as multiprocessing's


def serve_inherited() -> None:
    """A fresh interpreter's worker (_Interpreter): the modules a fork server would have
    imported, then _serve on the connection it inherited."""
    arguments = json.loads(sys.argv[1])
    sys.path[:] = arguments["sys_path"]
    for module in PRELOAD:
        importlib.import_module(module)
    conn = Connection(arguments["fd"])
    conn.send_bytes(b"ready")
    _serve(conn, arguments["memory_mb"], arguments["stage"],
           parent=arguments["parent"])  # fmt: skip


def start_fork_server() -> None:
    """Start the fork server now (where this process may start one), so that its imports
    (seconds: torch, nbgrader) go on while this process does its own work before grading."""
    if not multiprocessing.current_process().daemon:
        _fork_server_context()
        forkserver.ensure_running()


def _fork_server_context():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    if not multiprocessing.current_process().daemon:
        _end_fork_server_at_exit()
    return context


@functools.cache
def _end_fork_server_at_exit() -> None:
    """Once per process: the fork server ends with it. Left to end by itself, it would tear
    down the interpreter it imported torch and nbgrader into (seconds of CPU) with this
    process's stdout and stderr still open: whoever reads them (`grade | tee`, a script, a
    notebook's `!`) would wait for that after the command is done."""
    atexit.register(_end_fork_server, os.getpid())


def _end_fork_server(owner: int) -> None:
    if os.getpid() != owner:  # a fork of this process that exits: the server is not its own
        return

    # multiprocessing keeps the pid of the server it started here, and says it nowhere else
    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid is None:
        return
    with contextlib.suppress(OSError):  # already gone
        os.kill(pid, signal.SIGKILL)  # its workers are retired: it holds nothing to save
        os.waitpid(pid, 0)


def _remove_stale_stages() -> None:
    """The folders of pools whose process is gone: a `grade` killed with kill -9 (or a lost
    session) never closed its pool. Only this user's, only where that pid is not running."""
    for folder in Path(tempfile.gettempdir()).glob(f"{STAGE_PREFIX}*-*"):
        pid = folder.name.removeprefix(STAGE_PREFIX).split("-")[0]
        with contextlib.suppress(OSError):
            if pid.isdigit() and folder.lstat().st_uid == os.geteuid() and not _alive(int(pid)):
                shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True


def _retire(worker: _Worker) -> None:
    """Let an idle worker end as a process ends (its finalizers run), else end it."""
    worker.conn.close()  # it reads the end of its jobs
    worker.process.join(timeout=10)
    if worker.process.is_alive():
        _kill_tree(worker.process.pid)
        worker.process.join(timeout=10)


def _job_message(grader: str, job, log: Path) -> bytes:
    from coursekit.classroom.grading.grade_one import job_as_data

    return json.dumps({"grader": grader, "job": job_as_data(job), "log": str(log)}).encode()


def _check(run: _Running, limits: Limits):
    """(result, problem, worker reusable) once the job is over, None while it is going."""
    worker = run.worker
    if worker.conn.poll():
        try:
            result = json.loads(worker.conn.recv_bytes().decode())
        except EOFError:  # it died: said below
            result = None
        except (OSError, ValueError) as error:
            return None, f"the grading process sent no readable result ({error})", False
        if result is not None:
            problem = result.pop("_worker_error", "") if isinstance(result, dict) else ""
            return (None, problem, True) if problem else (result, "", True)
        worker.process.join(timeout=10)
    if not worker.process.is_alive():
        worker.process.join()
        code = worker.process.exitcode
        how = f"signal {-code}" if code and code < 0 else f"exit code {code}"
        return None, f"the grading process died ({how}) before sending a result", False
    elapsed = time.monotonic() - run.started
    if elapsed > limits.wall_s:
        return None, f"stopped after {elapsed:.0f} s: over the {limits.wall_s:.0f} s limit", False
    used = _tree_memory_mb(worker.process.pid)
    if used > limits.memory_mb:
        return None, f"stopped at {used:.0f} MB: over the {limits.memory_mb} MB memory limit", False
    return None


def _serve(conn, memory_mb: int, stage: str, parent: int | None = None) -> None:
    """A worker: grade each job it is sent, until its supervisor closes the pipe. parent: the
    supervisor's pid, where it started this worker itself (a fresh interpreter)."""
    if parent is None:
        _die_with_parent()
    else:
        _watch_parent(parent)
    from autograder.observe import server_pids
    from coursekit.classroom.grading.grade_one import job_from_data
    from coursekit.sealed.sandbox import STAGE_ENV

    os.environ[STAGE_ENV] = stage
    cap = memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    while True:
        try:
            message = json.loads(conn.recv_bytes().decode())
        except (EOFError, OSError):
            _end_children()  # its reference servers too: nothing outlives the worker
            return
        _log_to(message["log"])
        try:
            module, _, name = message["grader"].partition(":")
            grader = getattr(importlib.import_module(module), name)
            result = grader(job_from_data(message["job"]))
        except BaseException:  # the report must name it; the class goes on
            last = traceback.format_exc().strip().splitlines()[-1]
            result = {"_worker_error": f"grading failed: {last}"}
        # what the job left running (a kernel, say), but not the checker's reference
        # servers, which keep PyTorch imported for the next job (1.3 CPU-s to start again)
        _end_children(kept=server_pids())
        _flush()  # the job's log is whole before its result is read
        conn.send_bytes(json.dumps(result).encode())


def _log_to(path: str) -> None:
    """This job's chatter (nbgrader's, the kernel's) into its own log, off the terminal."""
    _flush()
    with open(path, "w") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()


def _die_with_parent() -> None:
    """A worker outliving a killed `grade` would grade on, unseen: Linux ends it instead."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    if os.getppid() == 1:
        os._exit(1)


def _watch_parent(parent: int) -> None:
    """_die_with_parent for a worker whose parent is the supervisor: Linux's death signal
    follows the thread that started the worker, and a Dask worker's task threads come and go,
    so a thread of this worker watches the supervisor's process instead."""

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        _end_children()
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


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
    """The process and everything it started (kernels run in their own sessions)."""
    for process in reversed(_tree(pid)):
        try:
            process.kill()
        except psutil.Error:
            pass


def _end_children(kept: frozenset[int] | set[int] = frozenset()) -> None:
    """Kill this process's children but `kept`, with all they started; reap them."""
    left = [child for child in psutil.Process().children() if child.pid not in kept]
    for child in left:
        _kill_tree(child.pid)
    psutil.wait_procs(left, timeout=5)  # no zombie stays for the worker's next jobs
