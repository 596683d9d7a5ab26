"""Bench rows on the GPU: bench.mlp at batch 4096 and bench.chain, minigrad (CuPy) against
PyTorch CUDA, each result checked against PyTorch's before anything is timed (bench.timing:
a warm-up run first, then turns), the device synchronised on the clock after every run."""

from __future__ import annotations

from bench import chain, mlp
from bench.engines import load_minigrad
from bench.verify import Mismatch

MLP_BATCH = 4096
CHAIN_STEPS = 2000


def synchronise() -> None:
    """Wait for every queued kernel: PyTorch's, and CuPy's (minigrad's) on its own streams."""
    import torch

    torch.cuda.synchronize()
    try:
        import cupy
    except ImportError:
        return
    cupy.cuda.runtime.deviceSynchronize()


def run(
    device: str, budget_s: float = 2.0, mlp_batch: int = MLP_BATCH, chain_steps: int = CHAIN_STEPS
) -> dict:
    """{"rows": [...], "ratios": {"mlp": minigrad/torch, "chain": ...}}; a wrong result or an
    error stops that benchmark only, and is said in "errors"."""
    minigrad = load_minigrad()
    sync = synchronise if device == "cuda" else None
    benchmarks = {
        "mlp": lambda: mlp.run(
            minigrad, batch=mlp_batch, budget_s=budget_s, device=device, sync=sync
        ),
        "chain": lambda: chain.run(
            minigrad, steps=chain_steps, budget_s=budget_s, device=device, sync=sync
        ),
    }
    rows, ratios, errors = [], {}, {}
    for name, bench in benchmarks.items():
        try:
            found = bench()
        except Mismatch as exc:
            errors[name] = f"WRONG RESULT: {exc}"
            continue
        except Exception as exc:  # one benchmark's failure hides no other
            errors[name] = f"ERROR: {type(exc).__name__}: {exc}"
            continue
        rows += [row.to_json() for row in found]
        ratio = next((r.vs_torch for r in found if r.engine == "minigrad"), None)
        ratios[name] = None if ratio is None else round(ratio, 3)
    return {"status": "ran", "device": device, "rows": rows, "ratios": ratios, "errors": errors}
