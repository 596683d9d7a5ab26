"""The benchmark harness works and refuses wrong results. Tiny sizes; no timing is asserted.

PyTorch stands in for minigrad where a test needs a second autograd engine, so these tests
do not depend on minigrad's progress; a real `python -m bench` run uses minigrad itself.
"""

import json
import sys
import types

import nbformat
import numpy as np
import pytest
import torch

from bench import catalogue, chain, deep_chain, mlp, notebooks
from bench.engines import Minigrad
from bench.results import Row, add_ratios, format_table, write_json
from bench.suite import run_all
from bench.timing import Timing, measure
from bench.verify import Mismatch, assert_close

NO_MINIGRAD = Minigrad(None, "not available (test)")
TORCH_AS_MINIGRAD = Minigrad(torch, "")


def by_engine(rows):
    return {row.engine: row for row in rows}


def corrupt_result(monkeypatch, module, name, spoil):
    """Replaces module.name (a prepare-function factory) by one whose job results are spoiled."""
    right = getattr(module, name)

    def wrong(*args):
        prepare = right(*args)
        return lambda: (lambda job: lambda: spoil(job()))(prepare())

    monkeypatch.setattr(module, name, wrong)


# --- timing and verification primitives -----------------------------------------------------


def test_measure_takes_turns_and_checks_each_engines_first_result_once():
    order, checked = [], []

    def prepare(name):
        results = iter(range(100))
        return lambda: lambda: order.append(name) or (name, next(results))

    prepares = {"a": prepare("a"), "b": prepare("b")}
    check = lambda name, result: checked.append(result)
    timings = measure(prepares, check, min_runs=3, budget_s=0)
    assert checked == [("a", 0), ("b", 0)]  # the warm-up results
    assert order == ["a", "b"] * 4  # warm-up, then three rounds taking turns
    assert [len(t.times_s) for t in timings.values()] == [3, 3]
    assert [len(t.cpu_s) for t in timings.values()] == [3, 3]
    assert timings["a"].best_s <= timings["a"].median_s


def test_measure_without_warm_up_checks_the_first_timed_run():
    results, checked = iter(range(100)), []
    timings = measure(
        {"a": lambda: lambda: next(results)},
        lambda name, result: checked.append(result),
        min_runs=2,
        budget_s=0,
        warmup=False,
    )
    assert checked == [0] and len(timings["a"].times_s) == 2


def test_assert_close_accepts_rounding_and_refuses_a_wrong_value_dtype_shape_or_none():
    reference = np.array([1.0, -2.0, 4.0], dtype=np.float32)
    assert_close("ok", reference, reference * np.float32(1 + 1e-6), rtol=1e-5)
    wrong = [
        reference * 2,
        reference.astype(np.float64),
        reference[:2],
        None,
        np.array([np.nan, -2.0, 4.0], dtype=np.float32),
    ]
    for result in wrong:
        with pytest.raises(Mismatch):
            assert_close("wrong", reference, result, rtol=1e-5)


def test_ratios_divide_best_times_within_one_case():
    rows = [
        Row("b", "c", "torch", Timing([1.0, 3.0])),
        Row("b", "c", "numpy", Timing([0.5])),
        Row("b", "c", "minigrad", Timing([2.0, 2.5])),
        Row("b", "other case", "minigrad", Timing([9.0])),
    ]
    add_ratios(rows)
    assert (rows[2].vs_torch, rows[2].vs_numpy) == (2.0, 4.0)
    assert rows[3].vs_torch is None


def test_table_and_json_show_every_row(tmp_path):
    rows = [
        Row("chain", "tiny", "torch", Timing([0.002, 0.003])),
        Row("chain", "tiny", "x", note="why"),
    ]
    table = format_table(rows)
    assert "2 ms" in table and "2.5 ms" in table and "why" in table
    long_note = "first line\n" + "x" * 300
    assert "first line xxx" in format_table([Row("b", "c", "e", note=long_note)])
    assert max(map(len, format_table([Row("b", "c", "e", note=long_note)]).splitlines())) < 200
    data = json.loads(write_json(rows, {"commit": "abc"}, tmp_path / "r.json").read_text())
    assert data["commit"] == "abc"
    assert data["rows"][0]["best_s"] == 0.002 and data["rows"][1]["note"] == "why"


def test_run_all_reports_wrong_results_and_errors_and_goes_on():
    def wrong(minigrad):
        raise Mismatch("chain x.grad differs")

    def broken(minigrad):
        raise RuntimeError("boom")

    benchmarks = {"wrong": wrong, "broken": broken, "fine": lambda m: [Row("fine", "c", "e")]}
    rows, failed = run_all(["wrong", "broken", "fine"], NO_MINIGRAD, benchmarks)
    assert failed
    assert [r.note.split(":")[0] for r in rows] == ["WRONG RESULT", "ERROR", ""]


# --- chain ----------------------------------------------------------------------------------


def test_chain_times_every_engine_and_marks_minigrad_missing():
    rows = by_engine(chain.run(NO_MINIGRAD, steps=5, size=3, budget_s=0))
    assert rows["torch"].timing and rows["numpy"].timing
    assert rows["minigrad"].timing is None and "not available" in rows["minigrad"].note
    assert rows["numpy"].vs_torch is not None


def test_chain_with_a_second_autograd_engine_gets_ratios_and_a_target():
    rows = by_engine(chain.run(TORCH_AS_MINIGRAD, steps=5, size=3, budget_s=0))
    assert rows["minigrad"].vs_torch is not None and rows["minigrad"].target_met is not None


def test_chain_check_catches_a_wrong_numpy_gradient(monkeypatch):
    corrupt_result(monkeypatch, chain, "numpy_chain", lambda r: (r[0], r[1] * 1.01))
    with pytest.raises(Mismatch, match="numpy x.grad"):
        chain.run(NO_MINIGRAD, steps=5, size=3, budget_s=0)


def test_chain_check_catches_an_engine_with_a_wrong_forward():
    shifted = types.SimpleNamespace(tensor=lambda data, **kw: torch.tensor(data + 1, **kw))
    with pytest.raises(Mismatch, match="minigrad y"):
        chain.run(Minigrad(shifted, ""), steps=5, size=3, budget_s=0)


# --- mlp ------------------------------------------------------------------------------------

TINY_MLP = dict(steps=2, batch=4, layers=(8, 6, 5, 3), budget_s=0)


def test_mlp_numpy_bound_matches_torch_and_minigrad_stand_in():
    rows = by_engine(mlp.run(TORCH_AS_MINIGRAD, **TINY_MLP))
    assert all(rows[e].timing for e in ("torch", "minigrad", "numpy"))
    assert rows["minigrad"].vs_numpy is not None and rows["minigrad"].target_met is not None


def test_mlp_check_catches_a_wrong_numpy_gradient(monkeypatch):
    def spoil(result):
        losses, params, grads = result
        return losses, params, [grads[0] * 2, *grads[1:]]

    corrupt_result(monkeypatch, mlp, "numpy_training", spoil)
    with pytest.raises(Mismatch, match="numpy w1.grad"):
        mlp.run(NO_MINIGRAD, **TINY_MLP)


def test_mlp_check_catches_an_engine_without_relu():
    functional = types.SimpleNamespace(
        relu=lambda t: t, cross_entropy=torch.nn.functional.cross_entropy
    )
    no_relu = types.SimpleNamespace(
        tensor=torch.tensor, no_grad=torch.no_grad, nn=types.SimpleNamespace(functional=functional)
    )
    with pytest.raises(Mismatch, match="minigrad losses"):
        mlp.run(Minigrad(no_relu, ""), **TINY_MLP)


# --- deep chain -----------------------------------------------------------------------------


def test_deep_chain_reports_time_per_node_and_the_spread():
    rows = deep_chain.run(TORCH_AS_MINIGRAD, sizes=(10, 100), budget_s=0)
    timed = [r for r in rows if r.timing]
    assert len(timed) == 4 and all("ns/node" in r.note for r in timed)
    spread = by_engine(r for r in rows if r.case == "per-node spread")
    assert spread["minigrad"].target_met is not None and not spread["torch"].target


def test_deep_chain_reference_is_the_repeated_float32_product():
    value = np.float32(1)
    for _ in range(300):
        value = value * np.float32(deep_chain.FACTOR)
    assert deep_chain.exact(300)["x.grad"] == value != np.float32(1)


def test_deep_chain_check_catches_one_skipped_node(monkeypatch):
    right = deep_chain.engine_chain
    monkeypatch.setattr(deep_chain, "engine_chain", lambda T, nodes: right(T, nodes - 1))
    with pytest.raises(Mismatch, match="torch"):
        deep_chain.run(NO_MINIGRAD, sizes=(100,), budget_s=0)


# --- catalogue ------------------------------------------------------------------------------


def test_catalogue_is_skipped_with_the_reason_when_the_autograder_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "autograder", None)
    (row,) = catalogue.run(TORCH_AS_MINIGRAD)
    assert row.timing is None and row.note.startswith("skipped: autograder not importable")


def test_catalogue_times_check_and_observe_and_describes_their_results(monkeypatch):
    report = types.SimpleNamespace(results=[1, 2, 3], score=2 / 3, passed=False, failures=[3])
    observations = {"scenarios": {"a": {}, "b": {"isolation": "fresh process"}}}
    fake = types.ModuleType("autograder")
    fake.check = lambda engine: report
    fake.observe = lambda engine: observations
    monkeypatch.setitem(sys.modules, "autograder", fake)
    rows = {(r.case, r.engine): r for r in catalogue.run(NO_MINIGRAD, budget_s=0)}
    checked, observed = rows["check(engine), cpu", "torch"], rows["observe(engine), cpu", "torch"]
    assert checked.timing and checked.note == "3 scenarios, score 0.667, 1 failed"
    assert observed.timing and observed.note == "2 scenarios, 1 of them in fresh processes"
    missing = rows["check(engine), cpu", "minigrad"]
    assert missing.timing is None and missing.target_met is None


# --- notebooks ------------------------------------------------------------------------------


def write_notebook(path, source):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nbformat.write(notebook, path)


def test_notebooks_are_timed_one_by_one_and_failures_named(tmp_path):
    write_notebook(tmp_path / "a_clean.ipynb", "x = 1 + 1")
    write_notebook(tmp_path / "b_broken.ipynb", "raise ValueError('planted')")
    clean, broken, total = notebooks.run(tmp_path)
    assert clean.note == "ran clean" and clean.timing
    assert broken.note == "FAILED: CellExecutionError: ValueError: planted"
    assert total.timing.best_s == pytest.approx(clean.timing.best_s + broken.timing.best_s)
    assert total.target_met is None  # a course that does not run through has no total


def test_notebooks_are_skipped_with_the_reason_when_there_are_none(tmp_path):
    (row,) = notebooks.run(tmp_path)
    assert row.timing is None and row.note.startswith("skipped: no notebooks")


def test_deep_chain_forward_backward_times_both_and_states_the_target():
    rows = deep_chain.run_forward_backward(TORCH_AS_MINIGRAD, sizes=(10, 100), budget_s=0)
    timed = [r for r in rows if r.timing]
    assert len(timed) == 4 and all("ns/node" in r.note for r in timed)
    assert all(r.case.startswith("forward+backward") for r in timed)
    (target,) = [r for r in rows if r.case == "per-node vs torch"]
    assert target.target_met is not None and "PyTorch at" in target.note


def test_deep_chain_forward_backward_without_minigrad_leaves_the_target_open():
    rows = deep_chain.run_forward_backward(NO_MINIGRAD, sizes=(10,), budget_s=0)
    (target,) = [r for r in rows if r.case == "per-node vs torch"]
    assert target.target_met is None


def test_deep_chain_forward_backward_check_catches_one_skipped_node(monkeypatch):
    right = deep_chain.engine_forward_backward
    monkeypatch.setattr(deep_chain, "engine_forward_backward", lambda T, n: right(T, n - 1))
    with pytest.raises(Mismatch, match="torch"):
        deep_chain.run_forward_backward(NO_MINIGRAD, sizes=(100,), budget_s=0)
