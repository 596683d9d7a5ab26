"""Grading on Dask workers: `minigrad-course grade --scheduler tls://host:8786`.

The same jobs in, the same results out as supervisor.run_jobs, but each job is graded on a
Dask worker that shares no file system with the instructor. A job travels as a parcel of
plain data: the job's fields (JSON types) and, as bytes, the files grading reads: the
submission, the assignment's source and released notebooks (the hidden tests), the course's
nbgrader_config.py and the template gradebook. The worker writes them under its own temporary
folder, grades them there with supervisor.run_jobs (the same limits, the same sealed child
as local grading) and sends back the result and the graded notebooks as one signed JSON
reply (cluster_reply.py). The one gradebook writer stays on the instructor's side (grade.py).

Trust: the cluster speaks TLS with the course's keys (cluster_keys.py): a machine without them
cannot join. A plain tcp:// scheduler is refused unless `grade` is told --insecure. Nothing a
worker controls is unpickled here: a reply is JSON bytes (Dask is asked for msgpack, and
refuses a pickled result), checked and its signature verified; what Dask's client itself
unpickles from the cluster (an error, a result's type) is limited to plain types and
exceptions (_plain_unpickling). A reply that does not count is reported, and its submission
is graded again on this machine.

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
import base64
import builtins
import contextlib
import functools
import io
import os
import pickle
import secrets
import shutil
import socket
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path, PurePosixPath

from coursekit.classroom.grading import cluster_keys, cluster_reply
from coursekit.classroom.grading.grade_one import Job
from coursekit.classroom.grading.time_limits import SealedTimes
from coursekit.exercises import verdict_data
from coursekit.i18n import speaking
from coursekit.languages import course_language

GPU = "GPU"  # the Dask resource a GPU worker declares: dask worker ... --resources GPU=1
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
    course,
    jobs: list[Job],
    scheduler: str,
    limits,
    grader: str,
    logs: Path,
    stream=None,
    insecure: bool = False,
):
    """(jobs graded at a time, an iterator of (job, result or None, problem) as jobs finish),
    as supervisor.run_jobs yields them. A result's graded notebooks are written under the
    job's work_dir: its autograded_dir. `stream` gets a line when GPU jobs go to CPU workers
    and for each worker's reply that is refused. `insecure`: a plain tcp:// scheduler is
    accepted (its results are not signed)."""
    from distributed import Client

    stream = stream or sys.stderr
    security, secret = _trust(course, scheduler, insecure)
    logs.mkdir(parents=True, exist_ok=True)
    restore = contextlib.ExitStack()  # Dask's own unpickling, once grading is over
    restore.enter_context(_plain_unpickling())
    try:
        client = Client(scheduler, timeout=CONNECT_S, security=security, deserializers=("msgpack",))
    except OSError as error:
        restore.close()
        raise ClusterError(
            f"cannot reach the Dask scheduler at {scheduler} ({error}); start one with "
            "`dask scheduler` and check the address (and that it uses the course's cluster "
            "keys: README, Grading on a cluster)"
        ) from None
    try:
        workers = check_workers(client, scheduler)
    except BaseException:
        client.close()
        restore.close()
        raise
    at_a_time = sum(w["nthreads"] for w in workers.values())
    run = secrets.token_hex(16)  # this run's nonce: what its results are signed for
    trust = _Trust(run, secret and cluster_keys.run_secret(secret, run), insecure)
    graded = _graded(client, course, jobs, workers, limits, grader, logs, stream, trust)
    return at_a_time, _closing(graded, restore, limits, grader, logs)


def _trust(course, scheduler: str, insecure: bool):
    """(Dask's Security, the results secret or None) for this scheduler; refuses plain TCP
    unless told --insecure."""
    from distributed.security import Security

    protocol = scheduler.split("://", 1)[0] if "://" in scheduler else "tcp"
    if protocol == "tls":
        folder = cluster_keys.keys_folder(course)
        security = cluster_keys.security(folder)
        return security, cluster_keys.results_secret((folder / "worker.pem").read_bytes())
    if not insecure:
        raise ClusterError(
            f"refusing the plain {protocol}:// scheduler {scheduler}: on it anyone who reaches "
            "it can join as a worker, read the hidden tests and send back grades. Make the "
            "cluster's keys (`minigrad-course cluster-keys -C COURSE`), start the scheduler "
            "and workers with them and grade with --scheduler tls://HOST:PORT (README, "
            "Grading on a cluster); or, on a network only you reach, add --insecure"
        )
    return Security(require_encryption=False), None


class _Trust:
    """What a reply is checked against: this run's nonce and secret (None: --insecure)."""

    def __init__(self, run: str, secret: bytes | None, insecure: bool):
        self.run, self.secret, self.insecure = run, secret, insecure
        self.cells: dict[str, list[tuple]] = {}  # assignment -> its grade cells

    def expected_cells(self, job: Job) -> list[tuple]:
        from coursekit.classroom.grading.grade_one import blank_result

        if job.assignment not in self.cells:
            cells = blank_result(job, "")["cells"]
            self.cells[job.assignment] = [(c["notebook"], c["cell"], c["max_score"]) for c in cells]
        return self.cells[job.assignment]


def _closing(graded, restore, limits, grader, logs):
    """The Dask results, then the refused ones graded here; Dask's unpickling as it was after."""
    refused = {}
    try:
        for job, result, problem in graded:
            if isinstance(problem, _Refusal):
                refused[job.work_dir] = (job, problem)
            else:
                yield job, result, problem
    finally:
        restore.close()
    if not refused:
        return
    from coursekit.classroom.grading.supervisor import run_jobs

    here = [replace(job, notes=(*job.notes, str(why))) for job, why in refused.values()]
    at_a_time = max(1, min(len(here), os.cpu_count() or 1))
    yield from run_jobs(here, at_a_time, limits, grader, logs)


class _Refusal(str):
    """The note of a submission whose worker's reply was refused (it is graded here)."""


def _graded(client, course, jobs, workers, limits, grader, logs, stream, trust):
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
                make_parcel(course, job, limits, grader, trust.run),
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
                    result, problem = _unpack(job, reply, logs, gpu_missing, trust)
                except cluster_reply.Refused as error:
                    yield job, None, _refuse(stream, job, _who(client, future), str(error))
                    continue
                except Exception as error:  # KilledWorker, or the task raised RETRIES + 1 times
                    failure = _failure(error)
                    if failure is None:  # not Dask's word: an error a worker sent
                        failure = _refuse(stream, job, "", f"an error instead of a result: {error}")
                    yield job, None, failure
                    continue
                finally:
                    future.release()
                yield job, result, problem


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
    """The scheduler's workers; refuses a cluster where none is connected."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_S)
    except TimeoutError:
        raise ClusterError(
            f"no Dask worker is connected to {scheduler}: start some with "
            f"`dask worker {scheduler} --nthreads N` (see README, Grading on a cluster)"
        ) from None
    return _workers(client)


# --- the parcel: a job as plain data -----------------------------------------------------------
def make_parcel(course, job: Job, limits, grader: str, run: str = "") -> dict:
    """What a worker needs to grade `job`: its fields and the files it reads, as bytes, and
    the run's nonce its reply is signed for. No instructor path goes out."""
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
        "run": run,
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


def grade_parcel(parcel: dict) -> bytes:
    """The Dask task: grade one parcel in a private temporary folder; returns the reply, JSON
    bytes signed with this run's secret (cluster_reply.py): its body is
    {"version", "run", "submission", "result": dict or None, "problem": str,
     "graded": {name: base64}, "log": base64, "worker": {"address", "host", "sealing"}}."""
    from coursekit.classroom.grading.supervisor import Limits, run_jobs
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
            found = _files_under(Path(result["autograded_dir"]), Path(result["autograded_dir"]))
            graded = {name: cluster_reply.encode(data) for name, data in found.items()}
        log = logs / f"{spec['name']}.log"
        body = {
            "version": cluster_reply.VERSION,
            "run": parcel["run"],
            "submission": {"name": spec["name"], "student": spec["student"],
                           "assignment": spec["assignment"], "seed": spec["seed"]},
            "result": result,
            "problem": problem,
            "graded": graded,
            "log": cluster_reply.encode(log.read_bytes() if log.is_file() else b""),
            "worker": {
                "address": _worker_address(),
                "host": socket.gethostname(),
                "sealing": layers(),
            },
        }  # fmt: skip
    secret = _worker_secret()
    return cluster_reply.sign(body, secret and cluster_keys.run_secret(secret, parcel["run"]))


def _worker_secret() -> bytes | None:
    try:
        return cluster_keys.worker_secret()
    except ValueError:  # called outside a worker (tests of the parcel alone)
        return None


@functools.cache
def _worker_pool():
    """This Dask worker's grading processes, kept between parcels: each warms once (PyTorch,
    nbgrader, the staged sealed side) and then grades parcel after parcel."""
    from coursekit.classroom.grading.supervisor import WorkerPool

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
def _unpack(job: Job, reply, logs: Path, gpu_missing: bool, trust: _Trust):
    """(result, problem) with the graded notebooks written under the job's work_dir; raises
    cluster_reply.Refused for a reply that does not count."""
    body = cluster_reply.read(
        reply, trust.run, cluster_reply.submission_of(job), trust.secret, trust.expected_cells(job)
    )
    (logs / f"{Path(job.work_dir).name}.log").write_bytes(base64.b64decode(body.log))
    if body.result is None:
        return None, body.problem
    result = body.result.model_dump()
    graded = Path(job.work_dir, "autograded", job.student, job.assignment)
    shutil.rmtree(graded, ignore_errors=True)
    graded.mkdir(parents=True)
    try:
        for name, data in body.graded.items():
            _write_inside(graded, name, base64.b64decode(data))
    except ValueError as error:
        raise cluster_reply.Refused(str(error)) from None
    result["autograded_dir"] = str(graded) if body.graded else None
    result["worker"] = body.worker.model_dump()
    if trust.insecure and trust.secret is None:
        result["notes"].append(INSECURE_NOTE)
    if gpu_missing:  # the worker said it has no GPU: the cluster has none
        for cell in result["cells"]:
            if cell["reason"] == verdict_data.NO_GPU:
                cell["reason"] = verdict_data.NO_GPU_WORKER
                with speaking(course_language(job.course_root)):
                    cell["message"] = verdict_data.reason_text(verdict_data.NO_GPU_WORKER)
    return result, ""


INSECURE_NOTE = (
    "graded on a Dask cluster without TLS (--insecure): the result could not be checked as "
    "coming from one of your workers"
)


def _refuse(stream, job: Job, worker: str, reason: str) -> _Refusal:
    """Say that a worker's reply for `job` does not count; the note its regrading carries."""
    from coursekit.classroom.printable import printable

    who = f"the Dask worker {printable(worker)}" if worker else "a Dask worker"
    what = printable(f"{job.student}/{job.assignment}")
    _say(
        stream,
        f"refused what {who} sent for {what}: {printable(reason)}; graded again here. Check "
        "that worker: a machine that is not yours may have joined the cluster",
    )
    return _Refusal(
        f"graded on the instructor's machine: what {who} sent for it was refused "
        f"({printable(reason)})"
    )


def _who(client, future) -> str:
    """The worker that holds the future's result, as the scheduler says ('' if unknown)."""
    try:
        holders = client.who_has([future]).get(future.key) or ()
    except Exception:  # noqa: BLE001 (only for the message)
        return ""
    return str(holders[0]) if holders and isinstance(holders[0], str) else ""


def _failure(error: BaseException) -> str | None:
    """The problem Dask itself reports (a worker died again and again); None for an error a
    worker sent, which does not count."""
    from distributed import KilledWorker

    if isinstance(error, KilledWorker) or _names_killed_worker(error):
        return (
            "every Dask worker that took this submission died while grading it "
            "(Dask gave up after its allowed-failures); see the workers' logs, then regrade it "
            "with `grade --student`"
        )
    return None


def _names_killed_worker(error: BaseException) -> bool:
    """Whether an error plain_loads would not rebuild is the scheduler's KilledWorker (it holds
    the last worker's state): read from the pickle's opcodes, never unpickled. At worst a
    worker that fakes it gets its submission stored blank, saying so, rather than regraded."""
    import pickletools

    raw = error.args[0] if type(error) is Exception and len(error.args) == 1 else None
    if not isinstance(raw, bytes):
        return False
    strings = []
    try:
        for op, arg, _ in pickletools.genops(raw):
            if isinstance(arg, str):
                strings.append(arg)
            if op.name == "STACK_GLOBAL" and strings[-2:] == ["distributed.scheduler",
                                                              "KilledWorker"]:  # fmt: skip
                return True
    except Exception:  # noqa: BLE001 (not a pickle: not Dask's word)
        return False
    return False


# --- what Dask's client may unpickle -----------------------------------------------------------
# Dask's client unpickles a few things its scheduler forwards from workers (a result's type, a
# task's error, the reply of a function run on each worker); here those may hold only plain
# types and exceptions: a pickle that names anything else (os.system, a class of its own) is
# refused before it runs.
_PLAIN = {"bytes", "bytearray", "str", "int", "float", "bool", "complex", "dict", "list",
          "tuple", "set", "frozenset", "slice", "range"}  # fmt: skip
_EXCEPTIONS_FROM = ("builtins", "distributed", "concurrent", "asyncio")
# how Dask pickles an exception with its attributes (tblib): they make an instance of a class
# found here and set its attributes, nothing else (a traceback, which tblib rebuilds by running
# code, is refused: Dask then leaves it out)
_EXCEPTION_MAKERS = {("tblib.pickling_support", "unpickle_exception"),
                     ("tblib.pickling_support", "unpickle_exception_with_attrs")}  # fmt: skip


class RefusedPickle(TypeError):
    """A pickle from the cluster that names something other than a plain type or an exception
    (a TypeError: Dask then drops what it was, a traceback say, instead of failing)."""


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        found = getattr(sys.modules.get(module), name, None) if "." not in name else None
        if module == "builtins" and name in _PLAIN:
            return getattr(builtins, name)
        if (module, name) in _EXCEPTION_MAKERS and found is not None:
            return found
        if (
            isinstance(found, type)
            and issubclass(found, BaseException)
            and module.split(".")[0] in _EXCEPTIONS_FROM
        ):
            return found
        raise RefusedPickle(f"refused to unpickle {module}.{name} from the Dask cluster")


def plain_loads(data, *, buffers=()):
    """pickle.loads for what comes from the cluster: plain types and exceptions only."""
    return _PlainUnpickler(io.BytesIO(bytes(data)), buffers=buffers).load()


@contextlib.contextmanager
def _plain_unpickling():
    """While `grade` talks to the cluster: Dask's client unpickles with plain_loads, and runs
    no event handler of its own (its "warn" handler unpickles what a worker posts)."""
    import distributed.client
    import distributed.protocol.pickle

    saved = (distributed.protocol.pickle.loads, distributed.client.loads,
             distributed.client.Client._default_event_handlers)  # fmt: skip
    distributed.protocol.pickle.loads = distributed.client.loads = plain_loads
    distributed.client.Client._default_event_handlers = {}
    try:
        yield
    finally:
        (distributed.protocol.pickle.loads, distributed.client.loads,
         distributed.client.Client._default_event_handlers) = saved  # fmt: skip


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
