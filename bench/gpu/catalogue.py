"""The catalogue's CUDA scenarios: an engine (minigrad) against live PyTorch on one device.

The comparison is the checker's own (autograder.observe and autograder.compare, as check()
runs them), made twice: as it is, and with every text blanked on both sides (exception and
warning messages, tensors' reprs). A scenario that differs only in texts is "text only":
failed when PyTorch is the catalogue's 2.13, reported and counted apart otherwise (texts
change between releases; values, gradients, flags, grad_fn names and devices do not).
"""

from __future__ import annotations

import copy

SHOWN_DIFFERENCES = 3


def run(engine, device: str, seed: int, rules=None) -> dict:
    """{"counts", "scenarios", ...} for every scenario that exists on CUDA (of `rules`, when
    given), run on `device` ("cpu" is the dry run: those only on CUDA are left out)."""
    import torch

    from autograder.check import REFERENCE_TIME_LIMIT_S, REFERENCE_VERSION
    from autograder.compare import compare
    from autograder.observe import observe
    from autograder.scenarios import select

    chosen = select(rules=rules, device="cuda")
    left_out = [sc.id for sc in chosen if device not in sc.devices]
    chosen = [sc for sc in chosen if device in sc.devices]
    ids = [sc.id for sc in chosen]
    reference = observe(torch, ids, seed=seed, device=device, time_limit=REFERENCE_TIME_LIMIT_S)
    observed = observe(engine, ids, seed=seed, device=device)
    strict = compare(reference, observed)
    textless = compare(without_texts(reference), without_texts(observed))
    texts_strict = torch.__version__.startswith(REFERENCE_VERSION)
    scenarios = []
    for sc in chosen:
        if not strict[sc.id]:
            status = "passed"
        elif textless[sc.id]:
            status = "failed"
        else:
            status = "failed" if texts_strict else "text only"
        scenarios.append(
            {
                "id": sc.id,
                "rules": list(sc.rules),
                "status": status,
                "engine_status": observed["scenarios"][sc.id]["status"],
                "differences": [d["summary"] for d in strict[sc.id][:SHOWN_DIFFERENCES]],
                "more_differences": max(len(strict[sc.id]) - SHOWN_DIFFERENCES, 0),
            }
        )
    counts = {
        s: sum(r["status"] == s for r in scenarios) for s in ("passed", "text only", "failed")
    }
    return {
        "status": "ran",
        "device": device,
        "seed": seed,
        "engine": getattr(engine, "__name__", "?"),
        "reference": torch.__version__,
        "texts_strict": texts_strict,
        "counts": {**counts, "total": len(scenarios)},
        "left_out": left_out,
        "scenarios": scenarios,
    }


def without_texts(run: dict) -> dict:
    """A copy of observe()'s result with every text blanked: exception and warning messages
    (types and categories kept) and tensors' reprs."""
    run = copy.deepcopy(run)
    for result in run["scenarios"].values():
        for observation in result.get("observations", []):
            if observation.get("raised"):
                observation["raised"]["message"] = ""
            for warning in observation.get("warnings", []):
                warning["message"] = ""
            _blank_reprs(observation.get("value"))
    return run


def _blank_reprs(value) -> None:
    if isinstance(value, dict):
        if isinstance(value.get("tensor"), dict):
            value["tensor"]["repr"] = None
        for inner in value.values():
            _blank_reprs(inner)
    elif isinstance(value, list):
        for inner in value:
            _blank_reprs(inner)
