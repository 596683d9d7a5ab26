"""`minigrad-course grade --scheduler`: grading on real Dask workers (issue 18).

Every test starts its own `dask scheduler` and `dask worker` processes (TLS with the course's
cluster keys, on 127.0.0.1, free ports; each worker as Dask starts it, under its nanny, so a
daemonic process), each worker in its own folder (its cwd and TMPDIR, not
the course's), and kills only those. Scores are compared with a local run of the same class,
or with the toy cells' points by hand.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest
from test_pipeline import (
    REPO,
    ROSTER,
    _assert_no_process_left_in,
    answered,
    gradebook_scores,
    hand_in,
    run,
    runs,
    sqlite_url,
    toy_solutions,
)

# two groups, so that `pytest -n 2 --dist loadgroup` can run them side by side
pytestmark = pytest.mark.slow
SCORES, FAULTS = pytest.mark.xdist_group("dask_scores"), pytest.mark.xdist_group("dask_faults")

DASK = Path(sys.executable).with_name("dask")
TOY = {"test_add": 2.0, "test_mul": 1.0}


class Cluster:
    """A scheduler and workers this test started, on free ports, killed at the end. With
    `keys` (a course's cluster-keys folder) it speaks TLS, as `minigrad-course cluster-keys`
    says to start it; without, plain TCP."""

    def __init__(self, where: Path, keys: Path | None = None, **scheduler_env):
        # a short folder: a worker's forkserver socket lives in its TMPDIR, and a socket's
        # path is limited to about 100 bytes (pytest's tmp_path can be longer)
        self.homes = Path(tempfile.mkdtemp(prefix="mgdask-"))
        self.where, self.workers, self.processes, self.keys = where, {}, [], keys
        port = _free_port()
        self.address = f"{'tls' if keys else 'tcp'}://127.0.0.1:{port}"
        env = {f"DASK_DISTRIBUTED__SCHEDULER__{k.upper()}": v for k, v in scheduler_env.items()}
        tls = ["--protocol", "tls", *_tls(keys, "scheduler.pem")] if keys else []
        self._start("scheduler", [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard", *tls], where, env)  # fmt: skip

    def add_worker(
        self,
        name: str,
        *args: str,
        extra_path="",
        keys: Path | None | str = "the cluster's",
        cert: str = "worker.pem",
        env: dict | None = None,
    ):
        home = self.homes / name
        (home / "tmp").mkdir(parents=True)
        env = {"TMPDIR": str(home / "tmp"), "PYTHONPATH": os.pathsep.join(
            p for p in (str(REPO), extra_path) if p), **(env or {})}  # fmt: skip
        keys = self.keys if keys == "the cluster's" else keys
        command = [DASK, "worker", self.address, "--name", name, "--nthreads", "1",
                   "--host", "127.0.0.1", "--no-dashboard", *_tls(keys, cert), *args]  # fmt: skip
        self.workers[name] = self._start(name, command, home, env)
        return home

    def client(self, **kwargs):
        from distributed import Client

        from coursekit.classroom.grading.cluster_keys import security

        return Client(self.address, timeout=60,
                      security=security(self.keys) if self.keys else None, **kwargs)  # fmt: skip

    def wait_for(self, names, timeout=120) -> dict[str, dict]:
        """name -> the scheduler's facts of that worker (address, pid...), once all are in."""
        deadline = time.monotonic() + timeout
        with self.client() as client:
            while time.monotonic() < deadline:
                info = client.scheduler_info(n_workers=-1)["workers"]
                found = {w["name"]: {**w, "address": a} for a, w in info.items()}
                if set(found) == set(names):
                    return found
                time.sleep(0.3)
        raise AssertionError(f"workers {names} did not connect; see logs in {self.where}")

    def kill(self, name: str) -> None:
        _kill_tree(self.workers[name].pid)

    def close(self) -> None:
        for process in reversed(self.processes):
            _kill_tree(process.pid)
            process.wait()
        shutil.rmtree(self.homes, ignore_errors=True)

    def _start(self, name, command, cwd, env):
        log = open(self.where / f"{name}.log", "w")  # noqa: SIM115 (closed with the process)
        process = subprocess.Popen([str(c) for c in command], cwd=cwd, stdout=log,
                                   stderr=subprocess.STDOUT, env={**os.environ, **env})  # fmt: skip
        log.close()
        self.processes.append(process)
        return process


def _tls(keys: Path | None, cert: str) -> list[str]:
    """A Dask command's TLS options, as `minigrad-course cluster-keys` prints them."""
    return ["--tls-ca-file", str(keys / "ca.pem"), "--tls-cert", str(keys / cert)] if keys else []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kill_tree(pid: int) -> None:
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return
    for process in reversed(tree):
        try:
            process.kill()
        except psutil.Error:
            pass


@pytest.fixture
def cluster(tmp_path):
    made = []

    def start(keys: Path | None, **scheduler_env) -> Cluster:
        where = tmp_path / f"cluster{len(made)}"
        where.mkdir()
        made.append(Cluster(where, keys, **scheduler_env))
        return made[-1]

    yield start
    for c in made:
        c.close()


def keys_of(course: Path) -> Path:
    """The course's cluster keys, made as an instructor makes them."""
    run("cluster-keys", "-C", course)
    return course / "cluster-keys"


def results(course: Path) -> dict[str, dict]:
    return {r["student_id"]: json.loads(r["result_json"]) for r in runs(sqlite_url(course))}


# --- the same class, graded here and on two workers --------------------------------------------
@pytest.fixture(scope="module")
def leaf_class(tmp_path_factory):
    """A small sealed class on the real leaf_nodes assignment: a correct and a buggy answer."""
    from coursekit.classroom.setup import demo

    root = tmp_path_factory.mktemp("leaf")
    shutil.copytree(REPO / "solutions" / "leaf_nodes", root / "solutions" / "leaf_nodes")
    (root / "roster.csv").write_text(ROSTER)
    course = root / "course"
    run("init", course, "--solutions", root / "solutions", "--cpu-only", "--roster",
        root / "roster.csv")  # fmt: skip
    run("cluster-keys", "-C", course)
    released = course / "release" / "leaf_nodes" / "leaf_nodes.ipynb"
    for student, kind in [("ada", "correct"), ("ben", "bug")]:
        name, content = demo.submission(released, kind)
        folder = course / "submitted" / student / "leaf_nodes"
        folder.mkdir(parents=True)
        (folder / name).write_bytes(content)
    local = root / "local"
    shutil.copytree(course, local)
    run("grade", "-C", local, "-j", "2")
    return course, local


@SCORES
def test_two_workers_grade_as_the_local_run_does(leaf_class, cluster, tmp_path):
    from coursekit.sealed.sandbox import layers

    template, local = leaf_class
    course = tmp_path / "course"
    shutil.copytree(template, course)
    c = cluster(course / "cluster-keys")
    homes = [c.add_worker("w1"), c.add_worker("w2")]
    workers = c.wait_for(["w1", "w2"])
    assert all(w["nanny"] for w in workers.values())  # Dask's default: each under its nanny
    run("grade", "-C", course, "--scheduler", c.address)

    assert gradebook_scores(sqlite_url(course)) == gradebook_scores(sqlite_url(local))
    here, there = results(local), results(course)
    assert sorted(there) == ["ada", "ben"]
    assert len(runs(sqlite_url(course))) == 2  # each stored once
    for student, result in there.items():
        cells = [(c["cell"], c["score"], c["status"], c["message"]) for c in result["cells"]]
        assert cells == [(c["cell"], c["score"], c["status"], c["message"])
                         for c in here[student]["cells"]]  # fmt: skip
        assert result["worker"]["address"] in {w["address"] for w in workers.values()}
        assert result["worker"]["sealing"] == layers()  # the layers local grading has
        graded = course / "autograded" / student / "leaf_nodes" / "leaf_nodes.ipynb"
        assert graded.is_file()
    assert not any(n.startswith("SEALED RUN DEGRADED") for r in there.values() for n in r["notes"])
    # the workers wrote only in their own folders, and left no grading folder there
    for home in homes:
        assert not list((home / "tmp").glob("minigrad-grade-*"))
    assert sorted(p.name for p in (course / ".pipeline" / "logs").iterdir()) == sorted(
        p.name for p in (local / ".pipeline" / "logs").iterdir()
    )


@SCORES
def test_a_parcel_carries_bytes_and_no_instructor_path(leaf_class, tmp_path):
    import pickle

    from coursekit.classroom.course import Course
    from coursekit.classroom.grading.cluster import make_parcel
    from coursekit.classroom.grading.grade_one import Job
    from coursekit.classroom.grading.supervisor import Limits
    from coursekit.classroom.grading.template_gradebook import build_template

    template, _ = leaf_class
    course = Course.at(template)
    db = build_template(course, tmp_path / "template.db")
    job = Job(str(course.root), "ada", "leaf_nodes", 7, str(tmp_path / "job-ada"), str(db))
    parcel = make_parcel(course, job, Limits(), "m:f")
    # the course's config is sent as it is (the instructor's code; its exchange path is not
    # used by grading); nothing else names a path of the instructor's machine
    config = parcel["course"].pop("nbgrader_config.py")
    assert config == (course.root / "nbgrader_config.py").read_bytes()
    for path in (tmp_path, course.root):
        assert str(path).encode() not in pickle.dumps(parcel)
    assert set(parcel["course"]) >= {
        "source/leaf_nodes/leaf_nodes.ipynb",
        "release/leaf_nodes/leaf_nodes.ipynb",
        "submitted/ada/leaf_nodes/leaf_nodes.ipynb",
    }
    assert not any(name.startswith("submitted/ben") for name in parcel["course"])


def test_the_gradebook_url_stays_with_the_instructor(tmp_path):
    """`init --db URL`: the URL (it may hold a password) is kept in a file of its own, readable
    by the course's owner only; the course still uses it, and no parcel carries it."""
    import pickle

    from coursekit.classroom.course import GRADEBOOK_URL_FILE, Course
    from coursekit.classroom.grading.cluster import make_parcel
    from coursekit.classroom.grading.grade_one import Job
    from coursekit.classroom.grading.supervisor import Limits
    from coursekit.classroom.grading.template_gradebook import build_template

    url = f"sqlite:///{tmp_path / 'gradebook-s3cret.db'}"
    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only",
        "--db", url)  # fmt: skip
    assert Course.at(course).config().CourseDirectory.db_url == url
    assert (course / GRADEBOOK_URL_FILE).stat().st_mode & 0o777 == 0o600
    hand_in(course, "ada", answered(course))
    db = build_template(Course.at(course), tmp_path / "template.db")
    job = Job(str(course), "ada", "toy", 7, str(tmp_path / "job"), str(db))
    parcel = make_parcel(Course.at(course), job, Limits(), "m:f")
    assert b"s3cret" not in pickle.dumps(parcel)


def test_a_parcel_gives_the_worker_the_same_job_time_limits_included(tmp_path):
    from dataclasses import replace

    from coursekit.classroom.course import Course
    from coursekit.classroom.grading.cluster import job_from_parcel, make_parcel
    from coursekit.classroom.grading.grade_one import Job
    from coursekit.classroom.grading.supervisor import Limits
    from coursekit.classroom.grading.time_limits import SealedTimes

    for name in ("nbgrader_config.py", "source/toy/toy.ipynb", "submitted/ada/toy/toy.ipynb"):
        (tmp_path / "course" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "course" / name).write_text("{}")
    course = Course.at(tmp_path / "course")
    (tmp_path / "template.db").write_bytes(b"")
    work = tmp_path / "jobs" / "0-ada-toy"
    limits = SealedTimes(3, 2, 40)
    sent = Job(str(course.root), "ada", "toy", 7, str(work), str(tmp_path / "template.db"), 30,
               ("an appeal",), limits)  # fmt: skip
    spec = make_parcel(course, sent, Limits(), "m:f")["job"]
    there, template = tmp_path / "worker" / "course", tmp_path / "worker" / "template.db"
    got = job_from_parcel(spec, there, template)
    expected = replace(sent, course_root=str(there), template_db=str(template),
                       work_dir=str(there / ".pipeline" / "jobs" / work.name))  # fmt: skip
    assert got == expected


# --- faults -----------------------------------------------------------------------------------
def slow_toy_class(tmp_path, seconds: int, cpu_only: bool):
    """The toy course with three students whose answers take `seconds` each, so that a kill
    lands mid-job: (course, students)."""
    course = tmp_path / "course"
    extra = ["--cpu-only"] if cpu_only else []
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), *extra)
    students = ["s1", "s2", "s3"]
    slow = answered(course)
    slow.cells[2].source = f"import time\ntime.sleep({seconds})\n" + slow.cells[2].source
    for student in students:
        hand_in(course, student, slow)
    return course, students


@FAULTS
def test_a_worker_killed_mid_run_loses_no_submission(cluster, tmp_path):

    course, students = slow_toy_class(tmp_path, seconds=5, cpu_only=True)
    c = cluster(keys_of(course))
    victim_home = c.add_worker("victim")
    c.add_worker("survivor")
    workers = c.wait_for(["victim", "survivor"])
    grading = subprocess.Popen(
        [sys.executable, "-m", "coursekit.cli", "grade", "-C", str(course), "--scheduler",
         c.address], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    with c.client() as client:
        deadline = time.monotonic() + 120
        while not client.processing(workers["victim"]["address"]).get(workers["victim"]["address"]):
            assert time.monotonic() < deadline, "the victim never got a job"
            assert grading.poll() is None, grading.stderr.read()
            time.sleep(0.2)
        time.sleep(2)  # inside the job: its kernel is sleeping
    c.kill("victim")
    _, stderr = grading.communicate(timeout=300)
    assert grading.returncode == 0, stderr
    stored = runs(sqlite_url(course))
    assert sorted(r["student_id"] for r in stored) == students  # each stored exactly once
    full = {(s, "toy"): TOY for s in students}
    assert gradebook_scores(sqlite_url(course)) == full, [r["result_json"] for r in stored]
    survivor = workers["survivor"]["address"]
    assert {r["worker"]["address"] for r in results(course).values()} == {survivor}
    _assert_no_process_left_in(victim_home)  # its grading processes died with it


KILLER = '''
import os, signal, time

import psutil

from coursekit.classroom.grading.grade_one import grade_submission


def grade(job):
    """A grader that, for one student, kills the Dask worker it runs under."""
    if job.student == "crasher":
        worker = psutil.Process().parent()  # a fresh interpreter, the nanny's worker's child
        os.kill(worker.pid, signal.SIGKILL)
        time.sleep(60)
    return grade_submission(job)
'''


@FAULTS
def test_a_submission_that_kills_its_workers_is_its_own_problem(cluster, tmp_path):
    from coursekit.classroom.course import Course
    from coursekit.classroom.grading.grade import grade_class

    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    for student in ("crasher", "good"):
        hand_in(course, student, answered(course))
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "killer.py").write_text(KILLER)
    # Dask gives up on a task after allowed-failures deaths; nannies restart killed workers
    c = cluster(keys_of(course), allowed_failures="1", worker_saturation="1.0")
    for name in ("w1", "w2"):
        c.add_worker(name, extra_path=str(hooks))
    c.wait_for(["w1", "w2"])
    grade_class(Course.at(course), grader="killer:grade", scheduler=c.address)
    assert gradebook_scores(sqlite_url(course)) == {
        ("good", "toy"): TOY,
        ("crasher", "toy"): {"test_add": 0, "test_mul": 0},
    }
    crasher = results(course)["crasher"]
    assert crasher["status"] == "not graded"
    assert any("died while grading it" in note for note in crasher["notes"]), crasher["notes"]
    assert len(runs(sqlite_url(course))) == 2


@FAULTS
def test_a_cluster_without_workers_is_refused_with_what_to_do(cluster, tmp_path, monkeypatch):
    from coursekit.classroom.course import Course
    from coursekit.classroom.grading import cluster as dask_backend
    from coursekit.classroom.grading.grade import grade_class

    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    hand_in(course, "good", answered(course))
    monkeypatch.setattr(dask_backend, "CONNECT_S", 3)
    c = cluster(keys_of(course))
    c.client().close()  # the scheduler is up (3 s is for the workers, not for its start)
    with pytest.raises(SystemExit, match="no Dask worker is connected"):
        grade_class(Course.at(course), scheduler=c.address)
    assert runs(sqlite_url(course)) == []


# --- GPU routing -------------------------------------------------------------------------------
@SCORES
def test_cuda_cells_go_to_a_gpu_worker_or_say_there_is_none(cluster, tmp_path):
    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"))  # CUDA cell kept
    hand_in(course, "ada", answered(course))
    hand_in(course, "ben", answered(course))
    c = cluster(keys_of(course))
    c.add_worker("cpu")
    c.add_worker("gpu", "--resources", "GPU=1")
    workers = c.wait_for(["cpu", "gpu"])
    run("grade", "-C", course, "--scheduler", c.address)
    ran_on = {s: r["worker"]["address"] for s, r in results(course).items()}
    assert ran_on == {"ada": workers["gpu"]["address"], "ben": workers["gpu"]["address"]}

    c.kill("gpu")
    c.wait_for(["cpu"])
    run("grade", "-C", course, "--scheduler", c.address, "--student", "ada")
    result = results(course)["ada"]
    assert result["worker"]["address"] == workers["cpu"]["address"]
    cuda = [cell for cell in result["cells"] if cell["cell"] == "test_cuda_toy"]
    assert [(x["score"], x["status"], x["message"]) for x in cuda] == [
        (0.0, "not run", "not run: no GPU worker")
    ]
    scores = gradebook_scores(sqlite_url(course))
    assert scores[("ada", "toy")] == {**TOY, "test_cuda_toy": 0}


GRADE_WITH_GRACE = """
import sys

from coursekit.classroom.grading import cluster
from coursekit.classroom.course import Course
from coursekit.classroom.grading.grade import grade_class

cluster.GPU_GRACE_S = float(sys.argv[3])  # a GPU worker gone this long is gone for good
grade_class(Course.at(sys.argv[1]), scheduler=sys.argv[2])
"""


@FAULTS
def test_gpu_jobs_go_to_cpu_workers_when_the_gpu_worker_leaves_for_good(cluster, tmp_path):

    course, students = slow_toy_class(tmp_path, seconds=3, cpu_only=False)  # CUDA cell kept
    c = cluster(keys_of(course))
    c.add_worker("cpu")
    gpu_home = c.add_worker("gpu", "--resources", "GPU=1")
    workers = c.wait_for(["cpu", "gpu"])
    gpu = workers["gpu"]["address"]
    # in a process of its own: without the fallback it waits for a GPU worker for ever
    grading = subprocess.Popen(
        [sys.executable, "-c", GRADE_WITH_GRACE, str(course), c.address, "3"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)},
    )  # fmt: skip
    try:
        with c.client() as client:
            deadline = time.monotonic() + 120
            while not client.processing(gpu).get(gpu):
                assert time.monotonic() < deadline, "the GPU worker never got a job"
                assert grading.poll() is None, grading.stderr.read()
                time.sleep(0.2)
            time.sleep(1)  # inside the job
        c.kill("gpu")  # for good: the class's GPU jobs now have no worker to go to
        _, stderr = grading.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail("`grade` still waits for the GPU worker that left")
    finally:
        if grading.poll() is None:  # still ours (not reaped): a hung `grade`
            _kill_tree(grading.pid)
            grading.wait()
    assert grading.returncode == 0, stderr
    said = "no GPU worker for 3 s: 3 submissions graded on CPU workers, their CUDA cells not run"
    assert stderr.count(said) == 1, stderr
    stored = runs(sqlite_url(course))
    assert sorted(r["student_id"] for r in stored) == students  # each stored exactly once
    for student, result in results(course).items():
        assert result["worker"]["address"] == workers["cpu"]["address"], student
        cuda = [(x["score"], x["status"], x["message"]) for x in result["cells"]
                if x["cell"] == "test_cuda_toy"]  # fmt: skip
        assert cuda == [(0.0, "not run", "not run: no GPU worker")], student
    scores = gradebook_scores(sqlite_url(course))
    assert scores == {(s, "toy"): {**TOY, "test_cuda_toy": 0} for s in students}
    _assert_no_process_left_in(gpu_home)  # its grading processes died with it


@SCORES
def test_a_file_name_from_a_parcel_or_a_reply_stays_inside_its_folder(tmp_path):
    from coursekit.classroom.grading.cluster import _write_inside

    inside = tmp_path / "inside"
    assert _write_inside(inside, "a/b.ipynb", b"x").read_bytes() == b"x"
    for name in ("../escaped", str(tmp_path / "absolute"), "a/../../escaped", ""):
        with pytest.raises(ValueError, match="not inside the folder"):
            _write_inside(inside, name, b"x")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b.ipynb", "inside"]
