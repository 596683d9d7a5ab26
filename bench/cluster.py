"""`python -m bench cluster`: CPU-seconds per notebook-submission, graded here and on Dask.

The demo class (14 notebook-submissions) is graded by `minigrad-course grade` here (-j 2, its
grading processes started and stopped with the command, as an instructor runs it), and
through a `dask scheduler` with two `dask worker` processes (each under its nanny, as Dask
starts them; one thread each; TLS with the course's cluster keys, as `grade --scheduler`
needs by default), all on this machine, after the workers have started (what starting them
costs is reported apart).
Each mode grades the class handed in twice and five times (each student hands in again
under more ids, the same files): the difference, divided by the 42 submissions between, is
what one more submission costs, the figure the target is about. It is a difference of two
totals, each noisy by a few percent here: the wider apart, the less that noise weighs. Both
runs are large enough for every grading process to have met every assignment, so the
one-off costs (the command's start, the fork server's imports, each grading process's first
submission of an assignment) cancel out; they are what is left of the smaller run. CPU
time is that of every process the run started (the grading processes, their kernels and
sealed children, the scheduler and workers): a probe process is their subreaper, so nothing
escapes the count.
Memory is each Dask worker's peak resident set with everything it started (sampled).
Target (issue 18): at most 0.5 CPU-s per notebook-submission. Measured figures: README,
Grading on a cluster.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.results import Row, set_target
from bench.timing import Timing

TARGET_CPU_S = 0.5
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
COPIES = (2, 5)  # the class handed in twice, then five times: <id>, <id>-again1, ...


def run() -> list[Row]:
    from coursekit.classroom.setup.demo import build_class

    with tempfile.TemporaryDirectory(prefix="bench-cluster-", dir="/tmp") as tmp:
        with contextlib.redirect_stdout(io.StringIO()):
            course = build_class(Path(tmp) / "course")
        n = len(course.submitted())
        rows = []
        for mode in ("local", "dask"):
            runs = [_probe(mode, course.root, Path(tmp) / f"{mode}-{k}", k) for k in COPIES]
            rows.append(_row(mode, *runs, n))
    return rows


def _probe(mode: str, course: Path, copy: Path, copies: int) -> dict:
    shutil.copytree(course, copy)
    submitted = copy / "submitted"
    for student in list(submitted.iterdir()):
        for k in range(1, copies):
            shutil.copytree(student, submitted / f"{student.name}-again{k}")
    probe = subprocess.run(
        [sys.executable, "-m", "bench.cluster", mode, str(copy)],
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=_die_with_parent,
    )
    if probe.returncode:
        raise RuntimeError(f"the {mode} probe failed: {probe.stderr.strip()[-2000:]}")
    return json.loads(probe.stdout.strip().splitlines()[-1])


def _row(mode: str, smaller: dict, larger: dict, n: int) -> Row:
    few, many = (k * n for k in COPIES)
    per = (larger["cpu_s"] - smaller["cpu_s"]) / (many - few)
    one_off = smaller["cpu_s"] - few * per
    engine = "minigrad-course -j 2" if mode == "local" else "2 Dask workers"
    note = (
        f"{per:.2f} CPU-s per more submission; one-off {one_off:.1f} CPU-s; "
        f"{smaller['cpu_s']:.1f} CPU-s and {smaller['wall_s']:.0f} s wall for {few}, "
        f"{larger['cpu_s']:.1f} and {larger['wall_s']:.0f} s for {many} "
        f"({larger['cpu_s'] / many:.2f} CPU-s each, one-off costs included); the instructor's "
        f"side {larger['instructor_cpu_s']:.1f} CPU-s for {many}"
    )
    if mode == "dask":
        note += (
            f"; starting the scheduler and workers {larger['startup_cpu_s']:.1f} CPU-s; worker "
            f"peak {max(larger['peak_worker_mb']):.0f} MB, idle "
            f"{max(larger['idle_worker_mb']):.0f} MB"
        )
    extra = {"smaller": smaller, "larger": larger, "per_submission_cpu_s": per,
             "one_off_cpu_s": one_off}  # fmt: skip
    row = Row("cluster", f"demo class, {few} then {many} notebook-submissions", engine,
              Timing([larger["wall_s"] / many], [per]), note=note, extra=extra)  # fmt: skip
    set_target(row, f"<={TARGET_CPU_S:g} CPU-s per notebook-submission", per, TARGET_CPU_S)
    return row


# --- the probe: a subreaper that starts everything and counts its CPU --------------------------
def probe(mode: str, course: str) -> dict:
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1)
    started: list[subprocess.Popen] = []
    home = Path(tempfile.mkdtemp(prefix="bench-workers-", dir="/tmp"))
    try:
        return _measure(mode, course, started, home)
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(timeout=60)
        shutil.rmtree(home, ignore_errors=True)


def _measure(mode: str, course: str, started: list, home: Path) -> dict:
    import psutil

    grade = [sys.executable, "-m", "coursekit.cli", "grade", "-C", course]
    peaks: dict[int, float] = {}
    if mode == "dask":  # TLS with the course's keys, as an instructor's cluster runs
        port = _free_port()
        address = f"tls://127.0.0.1:{port}"
        keys = Path(course, "cluster-keys")
        if not keys.is_dir():
            subprocess.run([*grade[:3], "cluster-keys", "-C", course], check=True,
                           capture_output=True)  # fmt: skip
        tls = ["--tls-ca-file", str(keys / "ca.pem"), "--tls-cert"]
        dask = str(Path(sys.executable).with_name("dask"))
        started.append(_start([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard", "--protocol", "tls", *tls,
                               str(keys / "scheduler.pem")], home))  # fmt: skip
        for name in ("w1", "w2"):
            (home / name).mkdir()
            started.append(_start([dask, "worker", address, "--nthreads", "1",
                                   "--no-dashboard", "--name", name, *tls,
                                   str(keys / "worker.pem")], home / name))  # fmt: skip
        _wait_for_workers(address, 2, keys)
        grade += ["--scheduler", address]
        watcher = threading.Thread(target=_watch, args=(started[1:], peaks), daemon=True)
        watcher.start()
    else:
        grade += ["-j", "2"]
    figures = {"startup_cpu_s": _cpu_so_far(psutil)}
    before, children = _cpu_so_far(psutil), _children_cpu()
    begun = time.monotonic()
    subprocess.run(grade, check=True, capture_output=True)
    figures["wall_s"] = time.monotonic() - begun
    figures["instructor_cpu_s"] = _children_cpu() - children
    time.sleep(1)  # the local fork server ends after the command
    figures["cpu_s"] = _cpu_so_far(psutil) - before
    print(json.dumps(figures), file=sys.stderr, flush=True)
    if mode == "dask":
        figures["idle_worker_mb"] = [_tree_rss_mb(p.pid) for p in started[1:]]
        figures["peak_worker_mb"] = [peaks.get(p.pid, 0.0) for p in started[1:]]
    return figures


def _start(command, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "TMPDIR": str(cwd)}
    return subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent)  # fmt: skip


def _die_with_parent() -> None:
    """An interrupted bench leaves no scheduler or worker running (Linux ends them)."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _wait_for_workers(address: str, n: int, keys: Path) -> None:
    from distributed import Client

    from coursekit.classroom.grading.cluster_keys import security

    with Client(address, timeout=60, security=security(keys)) as client:
        client.wait_for_workers(n, timeout=120)


def _reap() -> None:
    """Collect orphans that ended (their CPU then counts in ours)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _cpu_so_far(psutil) -> float:
    """CPU-seconds of everything this process started, ended or alive (not its own)."""
    _reap()
    me = psutil.Process()
    total = sum(me.cpu_times()[2:4])
    for process in me.children(recursive=True):
        try:
            total += sum(process.cpu_times()[:4])  # its own, and its ended children's
        except psutil.Error:
            pass
    return total


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_rss_mb(pid: int) -> float:
    import psutil

    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0
    for process in tree:
        with contextlib.suppress(psutil.Error):
            total += process.memory_info().rss
    return total / 2**20


def _watch(workers, peaks: dict) -> None:
    while True:
        for process in workers:
            peaks[process.pid] = max(peaks.get(process.pid, 0.0), _tree_rss_mb(process.pid))
        time.sleep(0.25)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1], sys.argv[2])))
