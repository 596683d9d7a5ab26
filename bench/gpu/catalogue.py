"""The catalogue's CUDA scenarios: an engine (minigrad) against live PyTorch on one device.

The comparison is the checker's own (autograder.observe and autograder.compare, as check()
runs them), made twice: as it is, and with every text blanked on both sides
(autograder.compare.without_texts). A scenario that differs only in texts is "text only":
failed when PyTorch is the catalogue's 2.13, reported and counted apart otherwise (texts
change between releases).

On CUDA with another release than 2.13, behaviour can change between releases too (an
exception's type, a flag, a clamp by NaN). So the scenarios that also exist on the CPU are
run there as well, on the same PyTorch: a scenario whose every CUDA difference (texts
blanked, devices read as the CPU) shows on the CPU too is "as on cpu", this release's
difference from 2.13 (the test suite holds minigrad to 2.13 on the CPU), not CUDA's.
"""

from __future__ import annotations

import re

SHOWN_DIFFERENCES = 3
STATUSES = ("passed", "text only", "as on cpu", "failed")
_CUDA_WORDS = re.compile(r"cuda(?::\d+)?")


def run(engine, device: str, seed: int, rules=None) -> dict:
    """{"counts", "scenarios", ...} for every scenario that exists on CUDA (of `rules`, when
    given), run on `device` ("cpu" is the dry run: those only on CUDA are left out)."""
    import torch

    from autograder.check import is_reference_release
    from autograder.scenarios import select

    chosen = select(rules=rules, device="cuda")
    left_out = [sc.id for sc in chosen if device not in sc.devices]
    chosen = [sc for sc in chosen if device in sc.devices]
    strict, textless = _differences(engine, [sc.id for sc in chosen], seed, device)
    texts_strict = is_reference_release(torch.__version__)
    on_cpu = {}
    if device != "cpu" and not texts_strict:  # the control: this release on the CPU
        differing = [sc.id for sc in chosen if textless[sc.id] and "cpu" in sc.devices]
        on_cpu = _differences(engine, differing, seed, "cpu")[1] if differing else {}
    scenarios = []
    for sc in chosen:
        status = classify(strict[sc.id], textless[sc.id], on_cpu.get(sc.id), texts_strict)
        scenarios.append(
            {
                "id": sc.id,
                "rules": list(sc.rules),
                "status": status,
                "differences": [d["summary"] for d in strict[sc.id][:SHOWN_DIFFERENCES]],
                "more_differences": max(len(strict[sc.id]) - SHOWN_DIFFERENCES, 0),
            }
        )
    counts = {s: sum(r["status"] == s for r in scenarios) for s in STATUSES}
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


def classify(strict: list, textless: list, on_cpu: list | None, texts_strict: bool) -> str:
    """One scenario's status from its differences on CUDA (`strict`; `textless`: texts
    blanked) and, where the control ran, on the CPU with texts blanked (`on_cpu`)."""
    if not strict:
        return "passed"
    if not textless:
        return "failed" if texts_strict else "text only"
    seen_on_cpu = {d["summary"] for d in on_cpu or ()}
    cuda_only = [d for d in textless if _CUDA_WORDS.sub("cpu", d["summary"]) not in seen_on_cpu]
    return "as on cpu" if on_cpu and not texts_strict and not cuda_only else "failed"


def _differences(engine, ids: list[str], seed: int, device: str) -> tuple[dict, dict]:
    """compare()'s differences per scenario of `ids` on `device`: as they are, and with every
    text blanked."""
    import torch

    from autograder.check import REFERENCE_TIME_LIMIT_S
    from autograder.compare import compare, without_texts
    from autograder.observe import observe

    reference = observe(torch, ids, seed=seed, device=device, time_limit=REFERENCE_TIME_LIMIT_S)
    observed = observe(engine, ids, seed=seed, device=device)
    return compare(reference, observed), compare(without_texts(reference), without_texts(observed))
