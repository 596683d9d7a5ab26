"""Grading on Dask workers: `minigrad-course grade --scheduler tcp://host:8786`.

The same jobs in, the same results out as supervisor.run_jobs, but each job is graded on a
Dask worker that shares no file system with the instructor. A job travels as a parcel of
plain data: the job's fields (JSON types) and, as bytes, the files grading reads: the
submission, the assignment's source and released notebooks (the hidden tests), the course's
nbgrader_config.py and the template gradebook. The worker writes them under its own temporary
folder, grades them there with supervisor.run_jobs (the same limits, the same sealed child
as local grading) and sends back the result (a JSON-able dict) and the graded notebooks as
bytes. The one gradebook writer stays on the instructor's side (grade.py).

A job whose hidden tests include CUDA cells asks for a worker started with
`--resources GPU=1`; with none connected it runs on any worker and its CUDA cells say
"not run: no GPU worker". So do the GPU jobs left waiting when the GPU workers leave and none
comes back within GPU_GRACE_S: they are cancelled and graded again on the other workers,
said once on the grade's stream. A worker that dies mid-job is replaced by another (Dask
reschedules its tasks); a submission that kills workers again and again (Dask's
allowed-failures) ends as that submission's blank result, never the class's.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing
import os
import shutil
import socket
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path, PurePosixPath

from coursekit.classroom.grade_one import Job
from coursekit.classroom.outputs import NOT_RUN_NO_GPU
from coursekit.classroom.time_limits import SealedTimes

GPU = "GPU"  # the Dask resource a GPU worker declares: dask worker ... --resources GPU=1
NO_GPU_WORKER = "not run: no GPU worker"
RETRIES = 1  # an exception inside the task (a worker that died is rescheduled apart from this)
CONNECT_S = 30
# GPU jobs wait this long for a GPU worker to (re)connect, then go to the other workers (their
# CUDA cells not run): a worker restart fits in it, an instructor is not kept waiting for one
# that left for good. Read when grading starts (a test may shorten it).
GPU_GRACE_S = 60.0
GPU_CHECK_S = 5.0  # how often, while GPU jobs are graded, the scheduler is asked for its workers


class ClusterError(SystemExit):
    """The cluster cannot grade (no worker, a misconfigured one): what to do, in a sentence."""


def run_jobs_on_dask(
    course, jobs: list[Job], scheduler: str, limits, grader: str, logs: Path, stream=None
):
    """(jobs graded at a time, an iterator of (job, result or None, problem) as jobs finish),
    as supervisor.run_jobs yields them. A result's graded notebooks are written under the
    job's work_dir: its autograded_dir. `stream` gets a line when GPU jobs go to CPU workers."""
    from distributed import Client

    logs.mkdir(parents=True, exist_ok=True)
    try:
        client = Client(scheduler, timeout=CONNECT_S)
    except OSError as error:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {scheduler} ({error}); start one with "
            "`dask scheduler` and check the address"
        ) from None
    try:
        workers = check_workers(client, scheduler)
    except BaseException:
        client.close()
        raise
    at_a_time = sum(w["nthreads"] for w in workers.values())
    graded = _graded(client, course, jobs, workers, limits, grader, logs, stream or sys.stderr)
    return at_a_time, graded


def _graded(client, course, jobs, workers, limits, grader, logs, stream):
    with client:  # closing it (also when the caller stops early) cancels what is left
        gpu_jobs = {a: needs_gpu(course, a) for a in {job.assignment for job in jobs}}
        gpu = _GpuWatch(client, _has_gpu(workers))
        gpu_left = sum(gpu_jobs[job.assignment] for job in jobs)  # watched while some are
        # parcels hold files: a few per worker thread in flight, not the whole class
        window = max(8, 2 * sum(w["nthreads"] for w in workers.values()))
        # every job in flight has exactly one future here: a cancelled one is dropped first
        pending, futures = list(reversed(jobs)), {}

        def submit(job):
            wants = gpu_jobs[job.assignment]
            future = client.submit(
                grade_parcel,
                make_parcel(course, job, limits, grader),
                key=f"grade-{Path(job.work_dir).name}-{os.urandom(4).hex()}",
                resources={GPU: 1} if wants and gpu.connected else None,
                retries=RETRIES,
                pure=False,
            )
            futures[future] = (job, wants and not gpu.connected)

        for _ in range(min(window, len(jobs))):
            submit(pending.pop())
        while futures:
            done = _done(futures, timeout=gpu.every if gpu_left else None)
            change = gpu.check() if gpu_left else None
            if change is False:  # none for the grace period: its jobs go to the others
                waiting = [
                    f
                    for f, (job, missing) in futures.items()
                    if gpu_jobs[job.assignment] and not missing and not f.done()
                ]
                client.cancel(waiting)
                for future in waiting:
                    submit(futures.pop(future)[0])
                later = sum(gpu_jobs[job.assignment] for job in pending)
                if waiting or later:
                    _say(stream, _gpu_gone(gpu.grace, len(waiting), later))
            elif change and gpu.fell_back:
                _say(stream, "a GPU worker connected: the next GPU submissions go to it")
            for future in done:
                if future not in futures:  # cancelled above
                    continue
                job, gpu_missing = futures.pop(future)
                gpu_left -= gpu_jobs[job.assignment]
                if pending:
                    submit(pending.pop())
                try:
                    reply = future.result()
                except Exception as error:  # KilledWorker, or the task raised RETRIES + 1 times
                    yield job, None, _failure(error)
                    continue
                finally:
                    future.release()
                yield job, *_unpack(job, reply, logs, gpu_missing)


def _done(futures, timeout: float | None) -> list:
    """The futures that are done, in the order they were submitted, once one is or after
    `timeout` seconds (then maybe none)."""
    import asyncio
    from concurrent.futures import CancelledError

    from distributed import wait

    try:
        wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
    except (TimeoutError, asyncio.TimeoutError):
        pass
    except CancelledError:  # cancelled elsewhere (a lost scheduler): its result() says so
        pass
    return [future for future in futures if future.done()]


def _gpu_gone(grace: float, moved: int, later: int) -> str:
    """The line for the instructor: `moved` GPU jobs left waiting, `later` not started yet."""
    line = (
        f"no GPU worker for {grace:g} s: {moved + later} submissions graded on CPU workers, "
        "their CUDA cells not run"
    )
    if later:
        line += f" ({later} not started yet: those go to a GPU worker if one connects first)"
    return line


def _say(stream, line: str) -> None:
    """One line between the progress lines (on a terminal, below the one being redrawn)."""
    tty = getattr(stream, "isatty", lambda: False)()
    stream.write(("\n" if tty else "") + line + "\n")
    stream.flush()


def _has_gpu(workers: dict) -> bool:
    return any(w["resources"].get(GPU, 0) >= 1 for w in workers.values())


def _workers(client) -> dict:
    """The scheduler's workers, all of them (newer Dask gives a few unless asked for all)."""
    try:
        return client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:  # a Dask before n_workers: it gives them all
        return client.scheduler_info()["workers"]


class _GpuWatch:
    """Whether GPU jobs go to a GPU worker: check() asks the scheduler, at most every `every`
    seconds, whether one is connected."""

    def __init__(self, client, connected: bool):
        self.client, self.connected = client, connected
        self.grace = GPU_GRACE_S
        self.every = min(GPU_CHECK_S, self.grace / 3)
        self.seen = self.checked = time.monotonic()
        self.fell_back = False

    def check(self) -> bool | None:
        """True when a GPU worker has just connected (again), False when none has been
        connected for the grace period (GPU jobs then go to the other workers), else None."""
        now = time.monotonic()
        if now - self.checked < self.every:
            return None
        self.checked = now
        if _has_gpu(_workers(self.client)):
            self.seen = now
            if not self.connected:
                self.connected = True
                return True
        elif self.connected and now - self.seen >= self.grace:
            self.connected, self.fell_back = False, True
            return False
        return None


def check_workers(client, scheduler: str) -> dict:
    """The scheduler's workers; refuses a cluster where none is connected or one cannot
    start grading processes."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_S)
    except TimeoutError:
        raise ClusterError(
            f"no Dask worker is connected to {scheduler}: start some with "
            f"`dask worker {scheduler} --nthreads N` (see README, Grading on a cluster)"
        ) from None
    daemonic = [addr for addr, facts in client.run(worker_facts).items() if facts["daemonic"]]
    if daemonic:
        raise ClusterError(
            f"the Dask workers at {', '.join(daemonic)} cannot start grading processes: "
            "start them with `dask worker --no-nanny ...`, or with "
            "DASK_DISTRIBUTED__WORKER__DAEMON=False in their environment"
        )
    return _workers(client)


def worker_facts() -> dict:
    """Run on each worker by check_workers."""
    return {"daemonic": bool(multiprocessing.current_process().daemon)}


# --- the parcel: a job as plain data -----------------------------------------------------------
def make_parcel(course, job: Job, limits, grader: str) -> dict:
    """What a worker needs to grade `job`: its fields and the files it reads, as bytes.
    No instructor path goes out."""
    files = {"nbgrader_config.py": course.path("nbgrader_config.py").read_bytes()}
    for top in ("source", "release"):
        files.update(_files_under(course.root, course.path(top, job.assignment)))
    files.update(_files_under(course.root, course.submission_dir(job.student, job.assignment)))
    return {
        "job": {
            "student": job.student,
            "assignment": job.assignment,
            "seed": job.seed,
            "name": Path(job.work_dir).name,
            "cell_timeout": job.cell_timeout,
            "notes": list(job.notes),
            "sealed": asdict(job.sealed),
        },
        "limits": asdict(limits),
        "grader": grader,
        "course": files,
        "template_db": Path(job.template_db).read_bytes(),
    }


def _files_under(root: Path, folder: Path) -> dict[str, bytes]:
    """Regular files under `folder`, by their path relative to `root` (links not followed:
    repair.py refuses them, and a link to elsewhere on this machine means nothing there)."""
    found = {}
    for where, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(where, d))]
        for name in names:
            path = Path(where, name)
            if path.is_file() and not path.is_symlink():
                found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def job_from_parcel(spec: dict, root: Path, template: Path) -> Job:
    """The job a parcel's fields describe, its files unpacked under `root` on this worker."""
    return Job(
        str(root),
        spec["student"],
        spec["assignment"],
        spec["seed"],
        str(root / ".pipeline" / "jobs" / spec["name"]),
        str(template),
        spec["cell_timeout"],
        tuple(spec["notes"]),
        SealedTimes(**spec["sealed"]),
    )


def grade_parcel(parcel: dict) -> dict:
    """The Dask task: grade one parcel in a private temporary folder; returns
    {"result": dict or None, "problem": str, "graded": {name: bytes}, "log": bytes,
     "worker": {"address", "host", "sealing"}}."""
    from coursekit.classroom.supervisor import Limits, run_jobs
    from coursekit.sealed.sandbox import layers

    spec = parcel["job"]
    with tempfile.TemporaryDirectory(prefix="minigrad-grade-") as tmp:
        root = Path(tmp, "course")
        for name, data in parcel["course"].items():
            _write_inside(root, name, data)
        template = Path(tmp, "template.db")
        template.write_bytes(parcel["template_db"])
        job = job_from_parcel(spec, root, template)
        logs = Path(tmp, "logs")
        limits = Limits(**parcel["limits"])
        ((_, result, problem),) = run_jobs(
            [job], 1, limits, parcel["grader"], logs, pool=_worker_pool()
        )
        graded = {}
        if result is not None and result.get("autograded_dir"):
            graded = _files_under(Path(result["autograded_dir"]), Path(result["autograded_dir"]))
        log = logs / f"{spec['name']}.log"
        return {
            "result": result,
            "problem": problem,
            "graded": graded,
            "log": log.read_bytes() if log.is_file() else b"",
            "worker": {
                "address": _worker_address(),
                "host": socket.gethostname(),
                "sealing": layers(),
            },  # fmt: skip
        }


@functools.cache
def _worker_pool():
    """This Dask worker's grading processes, kept between parcels: each warms once (PyTorch,
    nbgrader, the staged sealed side) and then grades parcel after parcel."""
    from coursekit.classroom.supervisor import WorkerPool

    pool = WorkerPool()
    atexit.register(pool.close)
    return pool


def _worker_address() -> str:
    from distributed import get_worker

    try:
        return get_worker().address
    except ValueError:  # called outside a worker (tests of the parcel alone)
        return ""


def _write_inside(root: Path, name: str, data: bytes) -> Path:
    """Write `data` at root/name, refusing a name that would leave root."""
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise ValueError(f"refusing the file name {name!r}: not inside the folder")
    path = root.joinpath(*relative.parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# --- back on the instructor's side -------------------------------------------------------------
def _unpack(job: Job, reply: dict, logs: Path, gpu_missing: bool):
    """(result, problem) with the graded notebooks written under the job's work_dir."""
    (logs / f"{Path(job.work_dir).name}.log").write_bytes(reply["log"])
    result = reply["result"]
    if result is None:
        return None, reply["problem"]
    graded = Path(job.work_dir, "autograded", job.student, job.assignment)
    shutil.rmtree(graded, ignore_errors=True)
    graded.mkdir(parents=True)
    for name, data in reply["graded"].items():
        _write_inside(graded, name, data)
    result["autograded_dir"] = str(graded) if reply["graded"] else None
    result["worker"] = reply["worker"]
    if gpu_missing:  # the worker said it has no GPU: the cluster has none
        for cell in result["cells"]:
            if cell["message"] == NOT_RUN_NO_GPU:
                cell["message"] = NO_GPU_WORKER
    return result, ""


def _failure(error: BaseException) -> str:
    from distributed import KilledWorker

    if isinstance(error, KilledWorker):
        return (
            "every Dask worker that took this submission died while grading it "
            "(Dask gave up after its allowed-failures); see the workers' logs, then regrade it "
            "with `grade --student`"
        )
    return f"grading failed on the Dask worker ({type(error).__name__}: {error})"


# --- GPU routing -------------------------------------------------------------------------------
def needs_gpu(course, assignment: str) -> bool:
    """Whether the assignment's hidden tests include a CUDA cell (by the sealed contract's
    devices, else by the grade id, as `init --cpu-only` finds them)."""
    from coursekit.sealed.contract import Contract, ContractError

    for path in sorted(course.path("source", assignment).glob("*.ipynb")):
        try:
            if any(test.device == "cuda" for test in Contract.from_notebook(path).tests):
                return True
        except ContractError:
            import nbformat

            cells = nbformat.read(path, as_version=4).cells
            ids = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id", "") for c in cells]
            if any(_is_cuda(i) for i in ids):
                return True
    return False


def _is_cuda(grade_id: str) -> bool:
    return "cuda" in grade_id.lower()
