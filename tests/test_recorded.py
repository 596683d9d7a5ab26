"""PyTorch 2.13's recorded observations: what check() compares with where PyTorch is not
installed (or is another release), so that minigrad's checks need only NumPy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from autograder import recorded
from autograder.compare import compare
from autograder.observe import observe
from autograder.scenarios import select

CHECKOUT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.parametrize("seed", [recorded.SEEDS[0], recorded.SEEDS[-1]])
def test_the_recording_matches_live_pytorch(seed):
    """Every CPU scenario is recorded, and live PyTorch observes nothing else (rerun
    `make record` after changing the catalogue: this test says so by failing)."""
    ids = [sc.id for sc in select(device="cpu")]
    assert torch.__version__.startswith("2.13")
    assert set(recorded.load()["seeds"][seed]["scenarios"]) == set(ids)
    live = observe(torch, ids, seed=seed, device="cpu", time_limit=120)
    differences = compare(live, recorded.observations(ids, seed, "cpu"))
    assert {sid: d for sid, d in differences.items() if d} == {}


WITHOUT_TORCH = """
import json, sys
sys.modules["torch"] = None  # `import torch` raises ImportError, as where it is not installed
import autograder, minigrad
from autograder.recorded import NoRecording
from minigrad import seams

right = autograder.check(minigrad, topics=["leaf"], seed=2024)
seams.leaf_nodes.read_grad = lambda tensor: tensor._grad  # also on non-leaves: L3 broken
wrong = autograder.check(minigrad, rules=["L3"], seed=2024)
try:
    autograder.check(minigrad, rules=["L3"], seed=99)
    other_seed = "checked"
except NoRecording as exc:
    other_seed = str(exc)
print(json.dumps({
    "right": [right.passed, right.reference, right.notes, len(right.results)],
    "wrong": [wrong.passed, sorted(r for r, v in wrong.by_rule.items() if v["failed"])],
    "fresh": autograder.check(minigrad, rules=["L4"]).seed,
    "other_seed": other_seed,
}))
"""


def test_check_without_pytorch_compares_with_the_recording(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    out = subprocess.run([sys.executable, "-c", WITHOUT_TORCH], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.splitlines()[-1])
    passed, reference, notes, count = seen["right"]
    assert passed and count > 10
    assert reference.endswith("(recorded)") and reference.startswith("2.13")
    assert any("recorded observations (no torch installed)" in n for n in notes)
    assert seen["wrong"][0] is False and "L3" in seen["wrong"][1]
    assert seen["fresh"] in recorded.SEEDS  # a fresh seed is one that was recorded
    assert "seed 99 is not recorded (recorded seeds: 1, 2," in seen["other_seed"]


def test_a_cuda_check_without_pytorch_is_not_run(tmp_path):
    probe = (
        "import sys\nsys.modules['torch'] = None\nimport autograder, minigrad\n"
        "r = autograder.check(minigrad, rules=['V1'], device='cuda', seed=1)\n"
        "print(r.passed, {x.status for x in r.results})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path,
                         capture_output=True, text=True)  # fmt: skip
    assert out.stdout.strip() == "False {'not run'}", out.stderr[-2000:]
