"""`make gpu-check` (bench/gpu): without a GPU it says so and writes its JSON; its
comparisons, run on the CPU (the dry run), pass on minigrad and fail on a planted bug."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import minigrad
from bench.gpu import catalogue, lectures, sealed, speed
from bench.timing import measure
from coursekit.exercises.planted import BUGS
from coursekit.planted import Bug, planted_engine

ROOT = Path(__file__).resolve().parent.parent
PARTS = {"catalogue", "bench", "lectures", "sealed"}
SEED = 11


def gpu_here() -> bool:
    import torch

    return torch.cuda.is_available() and minigrad.cuda.is_available()


@pytest.mark.skipif(gpu_here(), reason="a GPU is here: make gpu-check runs everything")
def test_make_gpu_check_without_a_gpu_says_so_and_writes_its_json(tmp_path):
    out = tmp_path / "gpu.json"
    done = subprocess.run(
        ["make", "-s", "gpu-check", f"GPU_CHECK_JSON={out}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("gpu-check: no GPU here (torch.cuda.is_available() False"), last
    data = json.loads(out.read_text())
    assert data["schema"] == "minigrad gpu-check 1"
    assert (data["mode"], data["device"], data["passed"]) == ("no gpu", "cpu", False)
    assert data["summary"] == last
    assert set(data["parts"]) == PARTS
    assert all(p["status"].startswith("not run: no GPU here (") for p in data["parts"].values())
    env = data["environment"]
    assert env["torch_sees_gpu"] is False and env["gpu"] is None
    assert env["reference_version"] == "2.13" and env["texts_strict"] is True
    assert {"python", "numpy", "torch", "cupy", "missing"} <= set(env)


def test_dry_run_passes_minigrad_on_the_cuda_selection_and_fails_a_planted_bug():
    right = catalogue.run(minigrad, "cpu", SEED, rules=["V1"])
    assert right["counts"]["total"] > 0
    assert right["counts"]["passed"] == right["counts"]["total"], right["scenarios"]
    assert right["left_out"], "the scenarios only on CUDA are named, not silently dropped"

    (to_bug,) = [bug for bug in BUGS["devices"] if bug.rule == "V1"]
    wrong = catalogue.run(planted_engine(to_bug, "gpu_check"), "cpu", SEED, rules=["V1"])
    failed = [s for s in wrong["scenarios"] if s["status"] == "failed"]
    assert failed and wrong["counts"]["passed"] < right["counts"]["passed"]
    assert all("V1" in s["rules"] and s["differences"] for s in failed)


# a minigrad whose refusal of an in-place write on a leaf says it in other words
REWORDED = Bug(
    "I3",
    "_messages.py",
    '"a leaf Variable that requires grad is being used in an in-place operation."',
    '"a leaf tensor that requires grad was written in place."',
    "the same error, another text",
)


def test_a_text_difference_fails_on_pytorch_2_13_and_is_reported_apart_on_another(monkeypatch):
    import torch

    engine = planted_engine(REWORDED, "gpu_check_text")
    strict = catalogue.run(engine, "cpu", SEED, rules=["I3"])
    assert strict["texts_strict"] and strict["counts"]["failed"] > 0
    assert strict["counts"]["text only"] == 0

    monkeypatch.setattr(torch, "__version__", "2.11.0+cu128")
    lenient = catalogue.run(engine, "cpu", SEED, rules=["I3"])
    assert not lenient["texts_strict"]
    assert lenient["counts"]["failed"] == 0
    assert lenient["counts"]["text only"] == strict["counts"]["failed"]


def test_without_texts_keeps_types_values_and_flags():
    def run(message, kind, value):
        observation = {"label": "x", "kind": "call", "value": {"tensor": value},
                       "raised": {"type": kind, "message": message},
                       "warnings": [{"category": "UserWarning", "message": message}]}  # fmt: skip
        return {"scenarios": {"s": {"status": "ok", "observations": [observation]}}}

    snapshot = {"repr": "tensor([1.])", "values": [1.0], "grad_fn": None}
    blank = catalogue.without_texts(run("a text", "RuntimeError", snapshot))
    (observation,) = blank["scenarios"]["s"]["observations"]
    assert observation["raised"] == {"type": "RuntimeError", "message": ""}
    assert observation["warnings"] == [{"category": "UserWarning", "message": ""}]
    assert observation["value"]["tensor"] == {"repr": None, "values": [1.0], "grad_fn": None}


GPU_CELLS_NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 4,
    "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# on the GPU"},
        {"cell_type": "code", "metadata": {}, "source": "x = 1"},
        {"cell_type": "code", "metadata": {}, "source": "print('on cuda', x)"},
        {"cell_type": "code", "metadata": {}, "source": "print('GPU cell skipped: no GPU')"},
        {"cell_type": "code", "metadata": {}, "source": "# cuda\nraise ValueError('boom')"},
        {"cell_type": "code", "metadata": {}, "source": "# cuda\nprint(x)"},
    ],
}


@pytest.mark.parametrize("runner", ["plain", "kernel"])
def test_lecture_gpu_cells_ran_skipped_or_failed(tmp_path, runner):
    for cell in GPU_CELLS_NOTEBOOK["cells"]:
        if cell["cell_type"] == "code":
            cell.update(outputs=[], execution_count=None)
    path = tmp_path / "gpu_cells.ipynb"
    path.write_text(json.dumps(GPU_CELLS_NOTEBOOK))
    result = lectures.run([path], runner=runner)
    cells = {c["index"]: c["status"] for c in result["lectures"][path.name]["gpu_cells"]}
    # a kernel (nbclient, errors allowed) runs the cells after an error; the plain run stops
    after_error = "ran" if runner == "kernel" else "not run"
    assert cells == {2: "ran", 3: "skipped", 4: "error", 5: after_error}
    assert result["lectures"][path.name]["first_error"] == {"index": 4, "error": "ValueError: boom"}


@pytest.mark.xdist_group("gpu_check_sealed")
def test_sealed_dry_run_full_marks_for_the_reference_none_for_the_stub_and_the_bug():
    result = sealed.run("cpu", names=["devices"], seed=SEED, workers=2)
    rows = {r["student"]: r for r in result["submissions"]}
    assert set(rows) == {"reference", "stub", "bug_V1"}
    points = {s: r["cells"]["test_cuda_devices"]["points"] for s, r in rows.items()}
    assert points["reference"] == rows["reference"]["cells"]["test_cuda_devices"]["max_points"] > 0
    assert points["stub"] == points["bug_V1"] == 0
    assert "rule V1" in rows["bug_V1"]["cells"]["test_cuda_devices"]["verdict"]
    assert result["counts"] == {"as_expected": 3, "unexpected": 0, "total": 3}


def test_bench_rows_on_a_device_with_a_sync_after_every_timed_run():
    synced = []
    timings = measure({"a": lambda: lambda: 1}, lambda n, r: None, min_runs=3, budget_s=0,
                      sync=lambda: synced.append(1))  # fmt: skip
    assert len(synced) == len(timings["a"].times_s) == 3

    result = speed.run("cpu", budget_s=0, mlp_batch=64, chain_steps=20)
    assert result["errors"] == {}
    assert set(result["ratios"]) == {"mlp", "chain"}
    assert all(np.isfinite(r) and r > 0 for r in result["ratios"].values())
    engines = {(r["benchmark"], r["engine"]) for r in result["rows"]}
    assert {("mlp", "minigrad"), ("mlp", "torch"), ("chain", "minigrad")} <= engines


def test_a_sealed_run_without_a_namespace_can_import_cupy_where_it_is_installed(monkeypatch):
    """Without bubblewrap the child reads packages from the staged site/ folder only: a CUDA
    run there needs CuPy in it (cupy is not installed here: an installed package stands in)."""
    from coursekit.sealed import sandbox

    monkeypatch.setattr(sandbox, "GPU_PACKAGES", ("yaml",))
    sandbox.staged_root.cache_clear()
    try:
        site = sandbox.staged_root() / "site"
        assert (site / "numpy").is_dir() and (site / "yaml").is_dir()
    finally:
        sandbox.staged_root.cache_clear()  # the next run stages the real packages again


def test_on_a_gpu_the_last_line_counts_and_the_exit_status_says_whether_all_passed(
    tmp_path, monkeypatch, capsys
):
    """The GPU side of the plumbing, with the parts' results given (no GPU here)."""
    import copy

    from bench.gpu import __main__ as cli

    env = {"torch_sees_gpu": True, "minigrad_sees_gpu": True, "gpu": "NVIDIA H100",
           "torch": "2.11.0+cu128", "cupy": "13.6.0", "texts_strict": False}  # fmt: skip
    probes = {"status": "ran", "cupy_under_rlimit_as": {"1 GiB": "fails (exit 1): x",
                                                         "4 GiB": "computes"}}  # fmt: skip
    results = {
        "catalogue": {
            "status": "ran",
            "counts": {"passed": 190, "text only": 5, "failed": 0, "total": 195},
        },  # fmt: skip
        "bench": {"status": "ran", "ratios": {"mlp": 1.5, "chain": 2.25}, "errors": {}},
        "lectures": {
            "status": "ran",
            "counts": {"ran": 12, "skipped": 0, "error": 0, "not run": 0, "warned": 0, "total": 12},
        },  # fmt: skip
        "sealed": {"status": "ran", "counts": {"as_expected": 25, "unexpected": 0, "total": 25}},
    }
    monkeypatch.setattr(cli.environment, "describe", lambda: env)
    monkeypatch.setattr(cli.environment, "address_space_probes", lambda: probes)
    monkeypatch.setattr(cli, "run_part", lambda part, *a: copy.deepcopy(results[part]))
    out = tmp_path / "gpu.json"

    assert cli.main(["--json", str(out)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("gpu-check: cuda on NVIDIA H100, torch 2.11.0+cu128")
    for said in ("catalogue 190/195 passed, 5 text only, 0 failed", "mlp 1.50x, chain 2.25x",
                 "lecture GPU cells 12/12 ran", "sealed 25/25 graded as expected",
                 "RLIMIT_AS 1 GiB FAILS, 4 GiB ok"):  # fmt: skip
        assert said in line, said
    data = json.loads(out.read_text())
    assert (data["mode"], data["device"], data["passed"]) == ("gpu", "cuda", True)
    assert list(data["parts"]) == ["catalogue", "bench", "lectures", "sealed"]

    results["sealed"]["counts"] = {"as_expected": 24, "unexpected": 1, "total": 25}
    assert cli.main(["--json", str(out)]) == 1
    assert json.loads(out.read_text())["passed"] is False
