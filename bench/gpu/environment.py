"""What this machine has: versions, whether PyTorch and minigrad see a GPU, and (on a GPU)
whether CUDA starts under the sealed run's address-space limit and inside its sandbox."""

from __future__ import annotations

import importlib.util
import platform
import shutil
import subprocess
import sys

# what the parts use beyond Python, NumPy and PyTorch, and which part needs it
OPTIONAL = {
    "cupy": "minigrad on CUDA",
    "nbclient": "lectures through a Jupyter kernel (else their cells run without one)",
    "ipykernel": "lectures through a Jupyter kernel (else their cells run without one)",
    "nbformat": "lectures through a Jupyter kernel (else their cells run without one)",
}
# CUDA reserves far more address space than it uses, so a sealed GPU run's child is held by
# RLIMIT_DATA (Limits.gpu_memory_bytes, 4 GiB) rather than the CPU runs' RLIMIT_AS (1 GiB):
# whether CuPy starts under each
PROBE_LIMITS = (
    ("data", 1 << 30, "RLIMIT_DATA 1 GiB"),
    ("data", 4 << 30, "RLIMIT_DATA 4 GiB"),
    ("as", 1 << 30, "RLIMIT_AS 1 GiB"),
    ("as", 4 << 30, "RLIMIT_AS 4 GiB"),
    ("as", 64 << 30, "RLIMIT_AS 64 GiB"),
)
PROBE_CODE = "import cupy; print(float((cupy.arange(3, dtype=cupy.float32) * 2).sum()))"
# the same computation as a cell of a sealed CUDA run (its layers, staged packages and limits)
SANDBOX_PROBE_CELL = (
    "import cupy\n"
    "assert float((cupy.arange(3, dtype=cupy.float32) * 2).sum()) == 6.0\n"
    "import minigrad\n"
    "assert minigrad.cuda.is_available(), 'minigrad sees no GPU in the sandbox'\n"
)


def present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def describe() -> dict:
    """Versions and GPU visibility, for the JSON and for deciding what to run."""
    import numpy
    import torch

    import minigrad
    from autograder.check import REFERENCE_VERSION, is_reference_release

    torch_gpu = bool(torch.cuda.is_available())
    minigrad_gpu = bool(minigrad.cuda.is_available())
    env = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": numpy.__version__,
        "torch": torch.__version__,
        "torch_cuda_build": torch.version.cuda,
        "cupy": _cupy_version(),
        "torch_sees_gpu": torch_gpu,
        "minigrad_sees_gpu": minigrad_gpu,
        "gpu": torch.cuda.get_device_name(0) if torch_gpu else None,
        "reference_version": REFERENCE_VERSION,
        "texts_strict": is_reference_release(torch.__version__),
        "missing": {name: why for name, why in OPTIONAL.items() if not present(name)},
    }
    return env


def no_gpu_reason(env: dict) -> str:
    """Why CUDA cannot be checked here ("" when it can)."""
    if env["torch_sees_gpu"] and env["minigrad_sees_gpu"]:
        return ""
    why = f"torch.cuda.is_available() {env['torch_sees_gpu']}"
    why += f", minigrad.cuda.is_available() {env['minigrad_sees_gpu']}"
    if env["cupy"] is None:
        why += " (cupy missing)"
    return why


def _cupy_version() -> str | None:
    if not present("cupy"):
        return None
    try:
        import cupy

        return cupy.__version__
    except Exception as exc:  # installed but broken: say how
        return f"unusable ({type(exc).__name__}: {exc})"


def address_space_probes(timeout_s: float = 60) -> dict:
    """Whether CuPy computes in a fresh interpreter under each limit of PROBE_LIMITS (the
    sealed GPU child's is coursekit.sealed.Limits.gpu_memory_bytes as RLIMIT_DATA)."""
    if not shutil.which("prlimit"):
        return {"status": "not run: prlimit (util-linux) missing"}
    runs = {
        label: subprocess.Popen(
            ["prlimit", f"--{kind}={limit}", "--", sys.executable, "-c", PROBE_CODE],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kind, limit, label in PROBE_LIMITS
    }
    results = {}
    for label, proc in runs.items():
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        ok = proc.returncode == 0 and out.strip() == "6.0"
        tail = (err.strip().splitlines() or [""])[-1][:300]
        results[label] = "computes" if ok else f"fails (exit {proc.returncode}): {tail}"
    return {"status": "ran", "cupy_under_limits": results}


def sandbox_probe(cell: str = SANDBOX_PROBE_CELL) -> dict:
    """Whether CuPy computes, and minigrad sees the GPU, inside the sealed sandbox as a CUDA
    run has it: every hidden CUDA cell needs that; where it fails, its error says why."""
    from coursekit.sealed import layers
    from coursekit.sealed.sandbox import Limits, Sandbox, staged_engine

    request = {"cells": [{"id": "probe", "kind": "given", "source": cell}], "seed": 0,
               "device": "cuda", "scenarios": [], "needs": {}, "cell_s": 60,
               "scenario_s": Limits.scenario_s}  # fmt: skip
    with Sandbox(Limits(), gpu=True, engine=staged_engine("devices", ())) as box:
        outcome = box.run(request)
    reports = [m for m in outcome.messages if isinstance(m.get("cells"), list)]
    cell_report = (
        next((c for c in reports[0]["cells"] if c.get("id") == "probe"), {}) if reports else {}
    )
    result = {"layers": dict(layers())}
    if cell_report.get("status") == "ok":
        return {**result, "status": "computes"}
    error = cell_report.get("error") or {}
    said = f"{error.get('type', '')}: {error.get('message', '')}".strip(": ")
    said = said or outcome.problem or outcome.stderr_tail[-300:] or "no report from the sandbox"
    return {**result, "status": f"fails: {said[:500]}"}
