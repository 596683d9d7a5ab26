"""minigrad's parity suite: every catalogue scenario run with T=torch and T=minigrad on the same
seed, every observation compared (values, flags, grad_fn names, versions, errors, warnings,
memory sharing). One test per scenario, so a failure names the scenario; the seed is fixed
unless PARITY_SEED is set (the failure message gives it, for a rerun)."""

import os
from pathlib import Path

import pytest
import torch

import minigrad
from autograder import compare, observe
from autograder.rules import RULES
from autograder.scenarios import select

pytestmark = pytest.mark.xdist_group("parity")  # one worker observes the catalogue once

SEED = int(os.environ.get("PARITY_SEED", "1729"))
REPO = Path(__file__).resolve().parent.parent
CPU_IDS = [sc.id for sc in select(device="cpu")]
CUDA_IDS = [sc.id for sc in select(device="cuda")]


def _gpu_on_both() -> bool:
    return torch.cuda.is_available() and minigrad.cuda.is_available()


@pytest.fixture(scope="module")
def cpu_differences():
    reference = observe(torch, CPU_IDS, seed=SEED, device="cpu")
    observed = observe(minigrad, CPU_IDS, seed=SEED, device="cpu")
    return compare(reference, observed)


@pytest.fixture(scope="module")
def cuda_differences():
    reference = observe(torch, CUDA_IDS, seed=SEED, device="cuda")
    observed = observe(minigrad, CUDA_IDS, seed=SEED, device="cuda")
    return compare(reference, observed)


def _explain(diffs) -> str:
    return f"seed {SEED}:\n" + "\n".join(d["summary"] for d in diffs)


@pytest.mark.parametrize("scenario_id", CPU_IDS)
def test_minigrad_matches_torch_on_cpu(scenario_id, cpu_differences):
    diffs = cpu_differences[scenario_id]
    assert not diffs, _explain(diffs)


@pytest.mark.cuda
@pytest.mark.skipif(not _gpu_on_both(), reason="no GPU seen by both torch and minigrad")
@pytest.mark.parametrize("scenario_id", CUDA_IDS)
def test_minigrad_matches_torch_on_cuda(scenario_id, cuda_differences):
    diffs = cuda_differences[scenario_id]
    assert not diffs, _explain(diffs)


def test_every_rule_is_covered_by_a_scenario():
    covered = {rule for sc in select() for rule in sc.rules}
    uncovered = [rule for rule in RULES if rule not in covered]
    assert uncovered == [], f"rule ids no scenario covers: {uncovered}"
