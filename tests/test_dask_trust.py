"""Only trusted workers grade (issue 30): the cluster speaks TLS with the course's keys, a
worker's reply is signed JSON bytes checked on the instructor's side, and nothing a worker
controls is unpickled there. The hostile workers here are real `dask worker` processes with a
--preload that replaces the grading task; every cluster is this test's, on 127.0.0.1."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
from test_dask_grading import TOY, keys_of, results
from test_dask_grading import cluster as cluster  # noqa: F401 (a fixture)
from test_pipeline import answered, gradebook_scores, hand_in, run, runs, sqlite_url, toy_solutions

TRUST = pytest.mark.xdist_group("dask_trust")


def toy_course(tmp_path: Path, students: dict[str, bool]) -> Path:
    """The toy course, `students` handing in an answered (True) or untouched (False) notebook."""
    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    released = (course / "release" / "toy" / "toy.ipynb").read_text()
    for student, answers in students.items():
        hand_in(course, student, answered(course) if answers else released)
    return course


# --- the reply: signed JSON, checked ----------------------------------------------------------
SUBMISSION = {"name": "0000-ada--toy", "student": "ada", "assignment": "toy", "seed": 7}
CELLS = [("toy", "test_add", 2.0), ("toy", "test_mul", 1.0)]


def body(**changes) -> dict:
    cells = [{"notebook": nb, "cell": cell, "score": 0.0, "max_score": points,
              "needs_manual_grade": False, "status": "failed", "message": "wrong"}
             for nb, cell, points in CELLS]  # fmt: skip
    result = {"student": "ada", "assignment": "toy", "seed": 7, "status": "graded", "notes": [],
              "timestamp": None, "autograded_dir": None, "cells": cells, "comments": [],
              "notebooks": [{"notebook": "toy", "late_penalty": None}], "scenarios": [],
              "seeds_seen": [7], "duration_s": 1.5}  # fmt: skip
    made = {"version": 1, "run": "run-1", "submission": dict(SUBMISSION), "result": result,
            "problem": "", "graded": {"toy.ipynb": "e30="}, "log": "",
            "worker": {"address": "tls://w:1", "host": "w",
                       "sealing": {"uid": "active"}}}  # fmt: skip
    for path, value in changes.items():
        *parents, last = path.split(".")
        target = made
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[int(last) if isinstance(target, list) else last] = value
    return made


def read(reply, secret=b"k" * 32, run="run-1", submission=SUBMISSION):
    from coursekit.classroom.grading import cluster_reply

    return cluster_reply.read(reply, run, submission, secret, CELLS)


def test_a_signed_reply_for_this_run_and_submission_counts():
    from coursekit.classroom.grading.cluster_reply import sign

    checked = read(sign(body(), b"k" * 32))
    assert [c.score for c in checked.result.cells] == [0.0, 0.0]
    assert checked.worker.address == "tls://w:1"


class _Payload:
    def __reduce__(self):
        return (print, ("unpickled",))


@pytest.mark.parametrize(
    "reply, refused",
    [
        (pickle.dumps(_Payload()), "not JSON"),
        (_Payload(), "not JSON bytes but a _Payload"),
        (json.dumps({"body": body(), "signature": None}).encode(), "not signed"),
        ("signed with another key", "a wrong signature"),
        ("scores raised after signing", "a wrong signature"),
        ("signed for ben", "signed for another submission"),
        ("signed in another run", "signed for another grading run"),
        ("full marks and more", "a score of 5.0 for test_add"),
        ("a cell left out", "not the assignment's grade cells"),
        ("an unknown field", "not a result: extra: Extra inputs are not permitted"),
        ("a score as text", "not a result: result.cells.0.score"),
        ("ada's result for ben", "a result for another submission"),
    ],
)
def test_a_reply_that_is_not_a_signed_result_for_this_submission_is_refused(reply, refused):
    from coursekit.classroom.grading.cluster_reply import Refused, sign

    secret = b"k" * 32
    if reply == "signed with another key":
        reply = sign(body(), b"x" * 32)
    elif reply == "scores raised after signing":
        envelope = json.loads(sign(body(), secret))
        envelope["body"]["result"]["cells"][0]["score"] = 2.0
        reply = json.dumps(envelope).encode()
    elif reply == "signed for ben":
        reply = sign(body(**{"submission.student": "ben", "result.student": "ben"}), secret)
    elif reply == "signed in another run":
        reply = sign(body(run="run-0"), secret)
    elif reply == "full marks and more":
        reply = sign(body(**{"result.cells.0.score": 5.0}), secret)
    elif reply == "a cell left out":
        made = body()
        made["result"]["cells"].pop()
        reply = sign(made, secret)
    elif reply == "an unknown field":
        reply = sign(body(extra="x"), secret)
    elif reply == "a score as text":
        reply = sign(body(**{"result.cells.0.score": "2"}), secret)
    elif reply == "ada's result for ben":
        ben = {**SUBMISSION, "student": "ben"}
        reply = sign(body(**{"submission.student": "ben"}), secret)
        with pytest.raises(Refused, match=refused):
            read(reply, submission=ben)
        return
    with pytest.raises(Refused, match=refused):
        read(reply, secret)


def test_the_run_secret_comes_from_the_workers_key_and_the_run(tmp_path):
    from coursekit.classroom.grading.cluster_keys import make_keys, results_secret, run_secret

    keys = make_keys(tmp_path / "keys")
    assert keys.stat().st_mode & 0o777 == 0o700
    assert sorted(p.name for p in keys.iterdir()) == [
        "ca.pem", "instructor.pem", "scheduler.pem", "worker.pem"
    ]  # fmt: skip
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in keys.iterdir())
    worker = results_secret((keys / "worker.pem").read_bytes())
    assert worker != results_secret((keys / "scheduler.pem").read_bytes())
    assert run_secret(worker, "a") != run_secret(worker, "b")
    with pytest.raises(SystemExit, match="already holds keys"):
        make_keys(keys)


def test_dask_unpickles_only_plain_types_and_exceptions_from_the_cluster():
    import tblib.pickling_support
    from distributed import KilledWorker

    from coursekit.classroom.grading.cluster import RefusedPickle, plain_loads

    for plain in (b"x", {"a": [1, 2.0]}, ValueError("no"), KilledWorker("k", "w", 3), bytes):
        loaded = plain_loads(pickle.dumps(plain))
        assert type(loaded) is type(plain) and repr(loaded) == repr(plain)
    try:
        raise KilledWorker("k", "w", 3)
    except KilledWorker as error:  # as a worker sends an error: with tblib, and its traceback
        tblib.pickling_support.install(error)
        with_traceback = pickle.dumps(error)
        without = pickle.dumps(error.with_traceback(None))
        said = repr(error)
    assert repr(plain_loads(without)) == said
    with pytest.raises(RefusedPickle, match="unpickle_traceback"):
        plain_loads(with_traceback)  # Dask then says the error without it
    for hostile in (_Payload(), os.system, Path("/x"), RuntimeError):
        with pytest.raises(RefusedPickle, match="refused to unpickle"):
            plain_loads(pickle.dumps(hostile if hostile is not RuntimeError else _Evil()))


class _Evil(Exception):
    def __reduce__(self):
        return (exec, ("raise SystemExit('ran')",))


# --- a plain TCP scheduler --------------------------------------------------------------------
def test_a_plain_tcp_scheduler_is_refused_without_insecure(tmp_path):
    from coursekit.classroom.course import Course
    from coursekit.classroom.grading.grade import grade_class

    course = toy_course(tmp_path, {"ada": True})
    for address in ("tcp://127.0.0.1:9", "127.0.0.1:9"):
        with pytest.raises(SystemExit, match="refusing the plain tcp:// scheduler") as refusal:
            grade_class(Course.at(course), scheduler=address)
        said = str(refusal.value)
        assert "minigrad-course cluster-keys" in said and "--insecure" in said
    with pytest.raises(SystemExit, match="no cluster keys in") as refusal:
        grade_class(Course.at(course), scheduler="tls://127.0.0.1:9")
    assert "make them with `minigrad-course cluster-keys -C COURSE`" in str(refusal.value)
    assert runs(sqlite_url(course)) == []


@pytest.mark.slow
@TRUST
def test_insecure_grades_on_plain_tcp_and_says_so(cluster, tmp_path):
    from coursekit.classroom.grading.cluster import INSECURE_NOTE

    course = toy_course(tmp_path, {"ada": True})
    c = cluster(None)
    c.add_worker("w1")
    c.wait_for(["w1"])
    run("grade", "-C", course, "--scheduler", c.address, "--insecure")
    assert gradebook_scores(sqlite_url(course)) == {("ada", "toy"): TOY}
    assert INSECURE_NOTE in results(course)["ada"]["notes"]


# --- who may join -----------------------------------------------------------------------------
@pytest.mark.slow
@TRUST
def test_a_worker_without_the_course_keys_cannot_join(cluster, tmp_path):
    from distributed import Client

    from coursekit.classroom.grading.cluster_keys import make_keys, security

    course = toy_course(tmp_path, {})
    c = cluster(keys_of(course))
    other = make_keys(tmp_path / "other-keys")  # a cluster's keys, not this one's
    c.add_worker("trusted")
    # each gives up after 20 s without a scheduler
    c.add_worker("foreign-keys", "--death-timeout", "20", keys=other)
    c.add_worker("no-keys", "--death-timeout", "20", keys=None)
    strangers = [c.workers["foreign-keys"], c.workers["no-keys"]]
    c.wait_for(["trusted"])
    for stranger in strangers:
        assert stranger.wait(timeout=180) != 0  # it never registered, and gave up
    assert list(c.wait_for(["trusted"])) == ["trusted"]
    for name in ("foreign-keys", "no-keys"):
        log = (c.where / f"{name}.log").read_text()
        assert "Registered to" not in log, log
    # nor does a client (a `grade`) with another cluster's keys
    with pytest.raises(OSError):
        Client(c.address, timeout=5, security=security(other))


# --- what a worker sends back ------------------------------------------------------------------
FORGER = '''
"""A hostile worker's preload: it grades nothing honestly."""
import importlib
import json

from coursekit.classroom.grading import cluster

from coursekit.classroom.grading import cluster_keys

from coursekit.classroom.grading import cluster_reply

serialize = importlib.import_module("distributed.protocol.serialize")  # not its function

CODE = "import os\\nif not os.environ.get('HOSTILE_WORKER'): open({marker!r}, 'w').write('run')"


class Payload:
    def __reduce__(self):  # unpickled, it runs CODE
        return (exec, (CODE,))


class PayloadError(Exception):
    def __reduce__(self):
        return (exec, (CODE,))


# Dask may import a preload twice: the originals are kept where a second import finds them
_serialize = serialize.__dict__.setdefault("unpatched", serialize.serialize)
honest = cluster.__dict__.setdefault("unpatched", cluster.grade_parcel)


def _pickled(x, serializers=None, *args, **kwargs):
    """Whatever the instructor asks for, a Payload goes back pickled."""
    if isinstance(x, Payload):
        serializers = ("pickle",)
    return _serialize(x, serializers, *args, **kwargs)


serialize.serialize = _pickled


def forged(parcel):
    student = parcel["job"]["student"]
    if student == "pickled":
        return Payload()
    if student == "raising":
        raise PayloadError("no result")
    body = json.loads(honest(parcel))["body"]
    for cell in body["result"]["cells"]:
        cell["score"], cell["status"], cell["message"] = cell["max_score"], "passed", ""
    secret = cluster_keys.worker_secret()  # the key it holds: not the workers'
    return cluster_reply.sign(body, cluster_keys.run_secret(secret, parcel["run"]))


cluster.grade_parcel = forged
'''


@pytest.mark.slow
@TRUST
def test_a_forged_or_pickled_result_is_refused_and_graded_here(cluster, tmp_path, capfd):
    """A worker that holds a certificate of the cluster (the scheduler's, say) but not the
    workers' key: its full marks, its pickled result and its pickled error all count for
    nothing; each submission is graded on the instructor's machine, and the refusal said."""
    from coursekit.classroom.course import Course
    from coursekit.classroom.grading.grade import grade_class

    students = ["forged", "pickled", "raising"]
    course = toy_course(tmp_path, dict.fromkeys(students, False))  # untouched: 0 points
    marker = tmp_path / "code-from-a-worker-ran-here"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "forger.py").write_text(FORGER.replace("{marker!r}", repr(str(marker))))
    c = cluster(keys_of(course))
    c.add_worker("hostile", "--preload", str(hooks / "forger.py"), cert="scheduler.pem",
                 env={"HOSTILE_WORKER": "1"})  # fmt: skip
    c.wait_for(["hostile"])
    grade_class(Course.at(course), scheduler=c.address)
    assert not marker.exists(), "code a worker sent ran in `grade`"
    assert gradebook_scores(sqlite_url(course)) == {
        (s, "toy"): {"test_add": 0.0, "test_mul": 0.0} for s in students
    }
    assert len(runs(sqlite_url(course))) == 3  # each stored once
    said = capfd.readouterr().err
    reasons = {
        "forged": "a wrong signature",
        "pickled": "an error instead of a result",
        "raising": "an error instead of a result",
    }
    for student, result in results(course).items():
        assert "worker" not in result  # graded here
        note = [n for n in result["notes"] if n.startswith("graded on the instructor's machine")]
        assert len(note) == 1 and reasons[student] in note[0], result["notes"]
        assert f"for {student}/toy: {reasons[student]}" in said, said


def test_a_reply_carries_each_failed_cells_diagnoses_typed():
    """The likely mistakes a worker's grading found reach the class report; a malformed one
    refuses the reply like any other field."""
    from coursekit.classroom.grading.cluster_reply import Refused, sign

    found = {"bug": "grads_overwritten", "rule": "L8", "text": "backward() replaces .grad",
             "confidence": 0.93, "scenario": "leaf.x", "evidence": "a.grad: ..."}  # fmt: skip
    checked = read(sign(body(**{"result.cells.0.diagnoses": [found]}), b"k" * 32))
    assert checked.result.model_dump()["cells"][0]["diagnoses"] == [{**found, "also": []}]
    assert checked.result.model_dump()["cells"][1]["diagnoses"] == []
    with pytest.raises(Refused, match="diagnoses"):
        read(sign(body(**{"result.cells.0.diagnoses": [{**found, "confidence": "high"}]}),
                  b"k" * 32))  # fmt: skip
