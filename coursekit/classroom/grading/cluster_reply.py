"""What a Dask worker sends back for one submission: JSON bytes, typed, signed.

A worker's reply is never unpickled: it is the bytes of a JSON object,
{"body": {...}, "signature": hex}, read with json.loads and checked against the typed schema
below (pydantic, strict, no unknown field). The signature is an HMAC-SHA256 over the body's
canonical JSON, with the secret of this `grade` run (cluster_keys.run_secret: derived from the
workers' key and the run's nonce); the body names the run and the submission, so a result
cannot be replayed onto another submission or into another run. Beyond the schema, a result
must be about the submission it was sent for (student, assignment, seed) and have exactly
the assignment's grade cells, each scored within its points.

Anything else is refused (Refused, with the reason), and cluster.py grades that submission
again on the instructor's machine.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

VERSION = 1


class Refused(Exception):
    """A worker's reply that does not count: why, in a phrase."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Diagnosis(_Strict):
    """A likely mistake behind a failed cell (autograder/diagnoses.py)."""

    bug: str
    rule: str
    text: str
    confidence: float
    scenario: str
    evidence: str
    also: list[str] = []


class Cell(_Strict):
    notebook: str
    cell: str
    score: float
    max_score: float
    needs_manual_grade: bool
    status: str
    message: str
    reason: str = ""  # why "not run" (verdict_data.REASONS); absent from an older worker's
    diagnoses: list[Diagnosis] = []


class Comment(_Strict):
    notebook: str
    cell: str
    auto_comment: str


class NotebookFacts(_Strict):
    notebook: str
    late_penalty: float | None


class Scenario(_Strict):
    cell: str
    id: str
    passed: bool


class Result(_Strict):
    """grade_one's result, as a worker's grading process makes it."""

    student: str
    assignment: str
    seed: int
    status: Literal["graded", "graded with problems", "not graded"]
    notes: list[str]
    timestamp: str | None
    autograded_dir: str | None
    cells: list[Cell]
    comments: list[Comment]
    notebooks: list[NotebookFacts]
    scenarios: list[Scenario]
    seeds_seen: list[int]
    duration_s: float | None


class Submission(_Strict):
    name: str  # the job's folder name: one per submission in a run
    student: str
    assignment: str
    seed: int


class WorkerFacts(_Strict):
    address: str
    host: str
    sealing: dict[str, str]


class Body(_Strict):
    version: Literal[1]
    run: str
    submission: Submission
    result: Result | None
    problem: str
    graded: dict[str, str]  # file name -> base64
    log: str  # base64
    worker: WorkerFacts


def submission_of(job) -> dict:
    return {"name": job.work_dir.rsplit("/", 1)[-1], "student": job.student,
            "assignment": job.assignment, "seed": job.seed}  # fmt: skip


def canonical(body: dict) -> bytes:
    return json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode()


def sign(body: dict, secret: bytes | None) -> bytes:
    """The worker's reply: the body and its signature (None without a secret), as JSON bytes."""
    signature = hmac.new(secret, canonical(body), hashlib.sha256).hexdigest() if secret else None
    return json.dumps({"body": body, "signature": signature}, allow_nan=False).encode()


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode()


def read(reply, run: str, submission: dict, secret: bytes | None, cells: list[tuple]) -> Body:
    """The reply's body once it is checked; raises Refused. `secret`: this run's (None on an
    --insecure cluster: then nothing is signed); `cells`: (notebook, cell, max_score) of each
    grade cell of the assignment, in order."""
    if not isinstance(reply, bytes):
        raise Refused(f"not JSON bytes but a {type(reply).__name__}")
    try:
        envelope = json.loads(reply)
    except (ValueError, RecursionError):
        raise Refused("not JSON") from None
    if not isinstance(envelope, dict) or set(envelope) != {"body", "signature"}:
        raise Refused("not a reply: a JSON object with a body and a signature is expected")
    body, signature = envelope["body"], envelope["signature"]
    if secret is not None:
        if not isinstance(signature, str) or not isinstance(body, dict):
            raise Refused("not signed")
        try:
            expected = hmac.new(secret, canonical(body), hashlib.sha256).hexdigest()
        except (TypeError, ValueError):
            raise Refused("not canonical JSON") from None
        if not hmac.compare_digest(expected, signature):
            raise Refused("a wrong signature: not from a worker holding this cluster's key")
    try:
        checked = Body.model_validate(body)
    except ValidationError as error:
        raise Refused(f"not a result: {_first(error)}") from None
    if checked.run != run:
        raise Refused("signed for another grading run (a replay)")
    if checked.submission.model_dump() != submission:
        raise Refused("signed for another submission (a replay)")
    for name, data in [*checked.graded.items(), ("log", checked.log)]:
        try:
            base64.b64decode(data, validate=True)
        except binascii.Error:
            raise Refused(f"{name!r} is not base64") from None
    if checked.result is not None:
        _check_result(checked.result, submission, cells)
    return checked


def _check_result(result: Result, submission: dict, cells: list[tuple]) -> None:
    if (result.student, result.assignment, result.seed) != (
        submission["student"], submission["assignment"], submission["seed"]
    ):  # fmt: skip
        raise Refused("a result for another submission")
    found = [(c.notebook, c.cell, c.max_score) for c in result.cells]
    if found != list(cells):
        raise Refused("not the assignment's grade cells and points")
    for cell in result.cells:
        if not (math.isfinite(cell.score) and 0 <= cell.score <= cell.max_score):
            raise Refused(f"a score of {cell.score!r} for {cell.cell} (of {cell.max_score:g})")


def _first(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the body"
    return f"{where}: {first['msg']}"
