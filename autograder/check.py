"""check(engine): observe PyTorch and the engine on the same seed, compare, report."""

from __future__ import annotations

import secrets
import warnings

from autograder import recorded
from autograder.compare import compare
from autograder.graph_diff import compared
from autograder.observe import TIME_LIMIT_S, observe
from autograder.report import NOT_RUN_NO_GPU, Report, ScenarioResult
from autograder.scenarios import TOPICS, select

REFERENCE_VERSION = "2.13"


def is_reference_release(torch_version: str) -> bool:
    """Whether a PyTorch version is the catalogue's release (whose texts minigrad copies)."""
    return torch_version.startswith(REFERENCE_VERSION)


# PyTorch is trusted and never loops; its first calls import lazily (optim.SGD pulls in its
# compiler), which on a loaded grader can outlast the engine's limit and fail a scenario.
REFERENCE_TIME_LIMIT_S = 120.0


class ReferenceVersionWarning(UserWarning):
    """The installed PyTorch is not the version the catalogue is written against."""


def check(engine, rules=None, topics=None, device="cpu", seed=None, time_limit=TIME_LIMIT_S):
    """Grade `engine` against PyTorch 2.13 on the selected scenarios; returns a Report.

    seed None draws a fresh seed (recorded in the report so a regrade reproduces it).
    device="cuda" runs the scenarios that exist on CUDA where both PyTorch and the engine see a
    GPU; elsewhere each is reported "not run: no GPU on the grader" and counts as not passed.
    A scenario that stops where the engine says a part is not built yet (an exception with a
    `waiting_for` attribute, see recorder.waiting_for), having matched PyTorch until then, is
    reported "waiting" for that part: not passed either.

    The reference is live PyTorch 2.13 where it is installed. Elsewhere (no PyTorch, or
    another release) CPU checks compare with PyTorch 2.13's recorded observations
    (autograder.recorded) on one of the recorded seeds, and the report says so.
    """
    _validate(rules, topics, device)
    torch = _installed_torch()
    live = torch is not None and is_reference_release(torch.__version__)
    use_recording = not live and device == "cpu" and recorded.available()
    notes = []
    if torch is None and device == "cpu" and not use_recording:
        raise ModuleNotFoundError(_NO_REFERENCE)
    if use_recording:
        installed = f"torch {torch.__version__} is installed" if torch else "no torch installed"
        notes.append(
            f"compared with PyTorch {REFERENCE_VERSION}'s recorded observations ({installed})"
        )
        if seed is None:
            seed = secrets.choice(recorded.SEEDS)
    elif torch is not None and not live:
        note = (
            f"the reference is PyTorch {REFERENCE_VERSION} but torch {torch.__version__} is "
            "installed: error texts and grad_fn names change between releases, so differences "
            "may be PyTorch's, not your engine's"
        )
        warnings.warn(note, ReferenceVersionWarning, stacklevel=2)
        notes.append(note)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    chosen = select(rules=rules, topics=topics, device=device)
    engine_name = getattr(engine, "__name__", type(engine).__name__)

    if device == "cuda" and not (torch and torch.cuda.is_available() and _engine_sees_gpu(engine)):
        results = [_result(sc, "not run", note=NOT_RUN_NO_GPU) for sc in chosen]
    else:
        ids = [sc.id for sc in chosen]
        if use_recording:
            reference = recorded.observations(ids, seed, device)
        else:
            reference_limit = max(time_limit, REFERENCE_TIME_LIMIT_S)
            reference = observe(torch, ids, seed=seed, device=device, time_limit=reference_limit)
        observed = observe(engine, ids, seed=seed, device=device, time_limit=time_limit)
        differences = compare(reference, observed)
        results = []
        for sc in chosen:
            diffs = differences[sc.id]
            run = observed["scenarios"][sc.id]
            isolation = run.get("isolation", "")
            note = f"observed in {isolation}" if isolation.startswith("this process") else ""
            if run["status"] == "waiting" and len(diffs) == 1:  # matched up to where it stopped
                note = run["error"]["message"]
                results.append(_result(sc, "waiting", note=note, waiting_for=run["waiting_for"]))
            else:
                result = _result(sc, "failed" if diffs else "passed", diffs, note)
                result.graph = compared(reference["scenarios"][sc.id], run, diffs)
                results.append(result)
    version = recorded.load()["torch"] + " (recorded)" if use_recording else _version(torch)
    return Report(
        engine=engine_name,
        device=device,
        seed=seed,
        reference=version,
        results=results,
        notes=notes,
    )


_NO_REFERENCE = (
    f"checking needs PyTorch {REFERENCE_VERSION} (pip install torch=={REFERENCE_VERSION}.0); "
    "this copy has no recorded observations to compare with instead"
)


def _version(torch) -> str:
    return torch.__version__ if torch is not None else "(not installed)"


def _installed_torch():
    """The trusted side, where installed: only check() ever imports the reference."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def _result(sc, status, differences=(), note="", waiting_for=""):
    return ScenarioResult(
        id=sc.id,
        rules=sc.rules,
        topic=sc.topic,
        lecture=sc.lecture,
        weight=sc.weight,
        status=status,
        differences=list(differences),
        note=note,
        waiting_for=waiting_for,
    )


def _engine_sees_gpu(engine) -> bool:
    try:
        return bool(engine.cuda.is_available())
    except Exception:
        return False


def _validate(rules, topics, device) -> None:
    from autograder.rules import RULES

    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda', not {device!r}")
    for rule in rules or ():
        if rule not in RULES:
            raise ValueError(f"unknown rule id {rule!r}")
    for topic in topics or ():
        if topic not in TOPICS:
            raise ValueError(f"unknown topic {topic!r}; expected one of {TOPICS}")
