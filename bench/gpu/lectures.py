"""The lectures' GPU cells, executed: each lecture that has one runs top to bottom (a cell
needs the ones above it), in its own process, the lectures side by side.

A GPU cell is a code cell whose source names CUDA or a GPU. On a GPU it "ran" when it raised
nothing and printed no "skipped" line (the lectures' cells print one where they leave their
GPU part out); "skipped" and "error" are failures there. A warning a cell prints is noted
unless the cell is tagged warning-expected (tools/notebooks.py's rule for the lecture tests).

Through a Jupyter kernel (tools/notebooks.py, as the lecture tests run them) where nbclient,
nbformat and ipykernel exist; else bench.gpu.cells runs the code cells' source in order in a
fresh interpreter, and each result says which ("runner").
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.gpu.cells import source_of
from bench.gpu.environment import present

ROOT = Path(__file__).resolve().parents[2]
GPU_CELL = re.compile(r"cuda|\bGPU\b", re.IGNORECASE)
SKIPPED = re.compile(r"\bskipped\b", re.IGNORECASE)
EXPECTED_WARNING_TAG = "warning-expected"
NOTEBOOK_TIMEOUT_S = 300  # a lecture without a kernel; a kernel's limit is per cell
KERNEL_PACKAGES = ("nbclient", "nbformat", "ipykernel")


def gpu_cells(nb: dict) -> list[int]:
    return [
        i
        for i, cell in enumerate(nb.get("cells", []))
        if cell.get("cell_type") == "code" and GPU_CELL.search(source_of(cell))
    ]


def lectures() -> list[Path]:
    """The lecture notebooks that have a GPU cell."""
    from coursekit.content import folder

    found = []
    for path in sorted(folder("lectures").glob("*.ipynb")):
        if gpu_cells(json.loads(path.read_text(encoding="utf-8"))):
            found.append(path)
    return found


def choose_runner(runner: str = "auto") -> str:
    if runner != "auto":
        return runner
    return "kernel" if all(present(p) for p in KERNEL_PACKAGES) else "plain"


def run(paths=None, runner: str = "auto", timeout_s: float = NOTEBOOK_TIMEOUT_S) -> dict:
    """{"counts": {...}, "lectures": {name: {...}}, "runner": ...}; a lecture still running
    after timeout_s is stopped, and says so."""
    runner = choose_runner(runner)
    paths = lectures() if paths is None else [Path(p) for p in paths]
    execute = _kernel_cells if runner == "kernel" else _plain_cells
    with ThreadPoolExecutor(max_workers=max(len(paths), 1)) as pool:
        runs = dict(zip(paths, pool.map(lambda p: execute(p, timeout_s), paths), strict=True))
    report, counts = {}, {"ran": 0, "skipped": 0, "error": 0, "not run": 0, "warned": 0}
    for path, (cells, problem) in runs.items():
        nb = json.loads(path.read_text(encoding="utf-8"))
        by_index = {c["index"]: c for c in cells}
        first_error = next((c for c in cells if c["status"] == "error"), None)
        gpu = []
        for index in gpu_cells(nb):
            cell = by_index.get(index, {"status": "not run", "stdout": "", "stderr": ""})
            status = cell["status"]
            if status in ("ran", "went on") and SKIPPED.search(cell["stdout"]):
                status = "skipped"
            elif status == "went on":
                status = "ran"
            tags = nb["cells"][index].get("metadata", {}).get("tags", [])
            warned = "Warning" in cell["stderr"] and EXPECTED_WARNING_TAG not in tags
            counts[status] += 1
            counts["warned"] += warned
            shown = {stream: cell[stream][-600:] for stream in ("stdout", "stderr")}
            gpu.append({"index": index, "status": status, "warned": warned, **shown})
        report[path.name] = {
            "problem": problem,
            "code_cells": len(cells),
            "first_error": first_error and {k: first_error[k] for k in ("index", "error")},
            "gpu_cells": gpu,
        }
    counts["total"] = sum(len(r["gpu_cells"]) for r in report.values())
    return {"status": "ran", "runner": _RUNNERS[runner], "counts": counts, "lectures": report}


_RUNNERS = {
    "kernel": "Jupyter kernel (nbclient), as the lecture tests run them",
    "plain": "no Jupyter kernel here: the code cells' source in order in a fresh interpreter "
    "(bench.gpu.cells), no rich display",
}


def _course_on_path() -> dict:
    """This process's environment with the source tree first on the path: a GPU machine runs
    the check from the source, with nothing installed."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


def _plain_cells(path: Path, timeout_s: float) -> tuple[list[dict], str]:
    env = _course_on_path()
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "cells.json"
        try:
            done = subprocess.run(
                [sys.executable, "-m", "bench.gpu.cells", str(path), str(result)],
                cwd=path.parent, env=env, capture_output=True, text=True,
                timeout=timeout_s,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return [], f"stopped after {timeout_s:.0f} s"
        if not result.is_file():
            tail = (done.stderr.strip().splitlines() or [""])[-1][:300]
            return [], f"the cell runner ended without a result (exit {done.returncode}): {tail}"
        return json.loads(result.read_text(encoding="utf-8")), ""


def _kernel_cells(path: Path, timeout_s: float) -> tuple[list[dict], str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("notebook_tools", ROOT / "tools" / "notebooks.py")
    tools = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tools)
    try:
        nb = tools.execute(path, timeout=timeout_s, allow_errors=True, env=_course_on_path())
    except Exception as exc:  # the kernel did not start, or a cell ran past its time
        return [], f"{type(exc).__name__}: {str(exc)[:300]}"
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        errors = [o for o in outputs if o.get("output_type") == "error"]
        stream = {"stdout": "", "stderr": ""}
        for o in outputs:
            if o.get("output_type") == "stream":
                stream[o.get("name", "stdout")] += o.get("text", "")
        error = f"{errors[0].get('ename')}: {errors[0].get('evalue')}" if errors else ""
        status = "error" if errors else "ran" if cell.get("execution_count") else "not run"
        cells.append({"index": index, "status": status, "error": error, **stream})
    return cells, ""
