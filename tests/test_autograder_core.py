"""The autograder's core: registry, recorder, observe (isolation), compare, report, check."""

import contextlib
import copy
import json
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest
import torch

import autograder
from autograder import NULL_ENGINE, check, compare, engine_from, observe
from autograder.check import ReferenceVersionWarning
from autograder.compare import repr_close
from autograder.observe import observe_scenario
from autograder.recorder import Recorder, normalise_text
from autograder.report import NOT_RUN_NO_GPU, Report, ScenarioResult
from autograder.rules import RULES
from autograder.scenarios import REGISTRY, load_catalogue, scenario, select

SEED = 20251122


@contextlib.contextmanager
def temporary_scenarios():
    """Scenarios registered inside the block are removed from the catalogue afterwards."""
    load_catalogue()  # the catalogue itself must not count as registered inside the block
    before = set(REGISTRY)
    try:
        yield
    finally:
        for sid in set(REGISTRY) - before:
            del REGISTRY[sid]


# -- the whole catalogue against the reference and against nothing ------------------------


def test_torch_passes_the_whole_catalogue_against_itself():
    report = check(torch, seed=SEED)
    assert report.passed, str(report)
    assert report.score == 1.0
    assert len(report.results) == len(select(device="cpu"))
    assert report.diagnoses == []


def test_null_engine_scores_zero_and_every_scenario_says_not_implemented():
    report = check(NULL_ENGINE, seed=SEED)
    assert report.score == 0.0 and not report.passed
    assert len(report.failures) == len(select(device="cpu"))
    for failure in report.failures:
        assert any("not implemented: " in d["engine"] for d in failure.differences), failure.id


def test_every_scenario_draws_its_observed_values_from_the_seed():
    """A scenario whose observations do not change with the seed is built from constants."""
    ids = [sc.id for sc in select(device="cpu")]
    first = observe(torch, ids, seed=1)["scenarios"]
    second = observe(torch, ids, seed=2)["scenarios"]
    constant = [sid for sid in ids if first[sid]["observations"] == second[sid]["observations"]]
    assert constant == [], f"scenarios observing the same values for every seed: {constant}"


def test_observe_never_imports_torch():
    code = (
        "import sys, autograder, minigrad\n"
        "autograder.observe(minigrad, seed=3)\n"
        "assert 'torch' not in sys.modules, 'observe imported torch'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=_repo_root())


def _repo_root():
    from pathlib import Path

    return str(Path(autograder.__file__).resolve().parent.parent)


# -- isolation -------------------------------------------------------------------------------


def _looping_tensor(*args, **kwargs):
    while True:
        pass


def _recursing_tensor(*args, **kwargs):
    return _recursing_tensor(*args, **kwargs)


def test_a_looping_or_recursing_engine_fails_alone_and_the_run_goes_on():
    with temporary_scenarios():

        @scenario(id="core.uses_tensor", rules=["L1"], topic="basics", lecture="x")
        def uses_tensor(T, record, rng):
            record.tensor("t", T.tensor(rng.uniform(size=2).tolist()))

        @scenario(id="core.uses_zeros", rules=["L1"], topic="basics", lecture="x")
        def uses_zeros(T, record, rng):
            record.tensor("z", T.zeros(int(rng.integers(1, 4))))

        ids = ["core.uses_tensor", "core.uses_zeros"]
        for bad, status, kind in (
            (_looping_tensor, "timeout", "Timeout"),
            (_recursing_tensor, "error", "RecursionError"),
        ):
            engine = types.SimpleNamespace(__name__="bad", tensor=bad, zeros=torch.zeros)
            result = observe(engine, ids, seed=SEED, time_limit=0.5)["scenarios"]
            assert result["core.uses_tensor"]["status"] == status
            assert result["core.uses_tensor"]["error"]["type"] == kind
            assert result["core.uses_zeros"]["status"] == "ok"  # the run went on
            reference = observe(torch, ids, seed=SEED)
            diffs = compare(reference, {"scenarios": result})
            assert diffs["core.uses_tensor"] and not diffs["core.uses_zeros"]


def test_a_scenario_stopped_inside_set_grad_enabled_false_does_not_leak_it():
    with temporary_scenarios():

        @scenario(id="core.stops_with_grad_disabled", rules=["L9"], topic="leaf", lecture="x")
        def stops_with_grad_disabled(T, record, rng):
            T.set_grad_enabled(False)
            raise RuntimeError("stopped")

        result = observe_scenario(torch, REGISTRY["core.stops_with_grad_disabled"], 0, "cpu")
        assert result["status"] == "error"
        assert torch.is_grad_enabled()


# -- scenario registry ---------------------------------------------------------------------


def test_scenario_rejects_unknown_rules_topics_and_duplicate_ids():
    with temporary_scenarios():
        with pytest.raises(ValueError):
            scenario(id="core.bad_rule", rules=["L99"], topic="leaf", lecture="x")
        with pytest.raises(ValueError):
            scenario(id="core.bad_topic", rules=["L1"], topic="misc", lecture="x")
        scenario(id="core.once", rules=["L1"], topic="leaf", lecture="x")(lambda T, r, g: None)
        with pytest.raises(ValueError):
            scenario(id="core.once", rules=["L1"], topic="leaf", lecture="x")(lambda T, r, g: 0)


def test_needs_lists_the_engine_names_a_scenario_uses():
    sc = REGISTRY["leaf.eta_self_assignment_loses_the_leaf"]
    assert set(sc.needs) == {"nn.Parameter", "tensor"}


# -- recorder --------------------------------------------------------------------------------


def test_normalise_text_drops_the_triggered_tail_and_library_names():
    text = "bad [minigrad.FloatTensor [3]] first. (Triggered internally at /x/y.cpp:12.)"
    assert normalise_text(text, ("minigrad",)) == "bad [torch.FloatTensor [3]] first."
    assert normalise_text("minigrad::autograd::AccumulateGrad") == "torch::autograd::AccumulateGrad"
    assert normalise_text("mygrad.Size([2])", ("mygrad",)) == "torch.Size([2])"


def test_recorder_snapshots_calls_warnings_and_sharing():
    record = Recorder("cpu", ("torch",))
    a = torch.tensor([1.5, 2.5], requires_grad=True)
    record.tensor("a", a)
    b = record.call("b", lambda: a * 2)
    record.grad("b.grad", b)
    record.call("a.numpy()", lambda: a.numpy())
    record.shares("detach", a, a.detach())
    record.shares("clone", a, a.clone())
    record.same("same", a, a)
    obs = {o["label"]: o for o in record.observations}
    json.dumps(record.observations)  # plain data
    snap = obs["b"]["value"]["tensor"]
    assert snap["grad_fn"] == "MulBackward0" and snap["is_leaf"] is False
    assert snap["repr"] == "tensor([3., 5.], grad_fn=<MulBackward0>)"
    assert obs["b.grad"]["warnings"][0]["category"] == "UserWarning"
    assert "Triggered internally" not in obs["b.grad"]["warnings"][0]["message"]
    assert obs["a.numpy()"]["raised"]["type"] == "RuntimeError"
    assert obs["detach"]["value"] is True and obs["clone"]["value"] is False
    assert obs["same"]["value"] is True
    with pytest.raises(ValueError):
        record.value("a", 1)  # labels are unique


def test_recorder_tells_sharing_without_untyped_storage():
    class Plain:
        """A tensor-like object exposing only what an engine without storages would."""

        def __init__(self, array):
            self.array, self.shape, self.requires_grad, self.device = array, array.shape, 0, "cpu"

        def detach(self):
            return self

        def numpy(self):
            return self.array

    arr = np.arange(6.0)
    record = Recorder()
    record.shares("view", Plain(arr[2:]), arr)
    record.shares("copy", Plain(arr.copy()), arr)
    assert [o["value"] for o in record.observations] == [True, False]


# -- compare -----------------------------------------------------------------------------------


def _observations(fill) -> dict:
    record = Recorder("cpu", ("torch",))
    fill(record)
    return {
        "device": "cpu",
        "scenarios": {"s": {"status": "ok", "observations": record.observations}},
    }


def _reference() -> dict:
    def fill(record):
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        record.tensor("t", a * 3)
        record.call("raises", lambda: a.numpy())
        record.call("warns", lambda: torch.tensor(a))
        record.shares("shares", a, a.detach())
        record.value("value", 0.5)
        record.call("type only", lambda: a.numpy(), check_message=False)

    return _observations(fill)


def _changed(path, value):
    obs = copy.deepcopy(_reference())
    target = obs["scenarios"]["s"]["observations"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return obs


def _fields(diffs):
    return [d["field"] for d in diffs["s"]]


def test_compare_finds_nothing_between_identical_observations():
    assert compare(_reference(), _reference()) == {"s": []}


@pytest.mark.parametrize(
    "path, value, field",
    [
        ((0, "value", "tensor", "values"), [3.0, 6.001], "values"),
        ((0, "value", "tensor", "dtype"), "float64", "dtype"),
        ((0, "value", "tensor", "shape"), [2, 1], "shape"),
        ((0, "value", "tensor", "device"), "cuda", "device"),
        ((0, "value", "tensor", "requires_grad"), False, "requires_grad"),
        ((0, "value", "tensor", "is_leaf"), True, "is_leaf"),
        ((0, "value", "tensor", "grad_fn"), "MulBackward1", "grad_fn"),
        ((0, "value", "tensor", "retains_grad"), True, "retains_grad"),
        ((0, "value", "tensor", "version"), 1, "version"),
        ((0, "value", "tensor", "repr"), "tensor([3., 6.])", "repr"),
        ((1, "raised", "message"), "other text", "exception"),
        ((1, "raised", "type"), "ValueError", "exception"),
        ((1, "raised"), None, "outcome"),
        ((2, "warnings"), [], "warnings"),
        ((3, "value"), False, "value"),
        ((4, "value"), 0.6, "value"),
        ((4, "value"), 1, "value"),  # an int where PyTorch gave a float
        ((5, "raised", "type"), "TypeError", "exception"),
    ],
)
def test_compare_detects_each_kind_of_difference(path, value, field):
    diffs = compare(_reference(), _changed(path, value))
    assert field in _fields(diffs), diffs
    assert all(d["summary"].count("PyTorch") == 1 for d in diffs["s"])


def test_compare_tolerates_float32_rounding_and_ignores_messages_when_asked():
    close = _changed((0, "value", "tensor", "values"), [3.0 + 1e-6, 6.0])
    assert compare(_reference(), close) == {"s": []}
    other_message = _changed((5, "raised", "message"), "any text")
    assert compare(_reference(), other_message) == {"s": []}


def test_float64_tolerance_is_tighter_than_float32():
    from autograder.compare import values_close

    assert values_close([1.0], [1.0 + 5e-7], "float32")
    assert not values_close([1.0], [1.0 + 5e-7], "float64")
    assert not values_close([1, 2], [1, 3], "int64")


def test_repr_close_allows_one_unit_in_the_last_printed_digit_only():
    assert repr_close("tensor([0.1235, 2.0000])", "tensor([0.1234, 2.0000])", "float32")
    assert not repr_close("tensor([0.1235, 2.0000])", "tensor([0.1233, 2.0000])", "float32")
    assert not repr_close("tensor([1, 2])", "tensor([1, 3])", "int64")


def test_compare_reports_engine_statuses():
    reference = _reference()
    missing = {"scenarios": {"s": {"status": "not_implemented", "missing": ["tensor"]}}}
    assert "not implemented: tensor" in compare(reference, missing)["s"][0]["engine"]
    crashed = copy.deepcopy(reference)
    crashed["scenarios"]["s"]["observations"] = crashed["scenarios"]["s"]["observations"][:2]
    crashed["scenarios"]["s"].update(status="error", error={"type": "KeyError", "message": "k"})
    diffs = compare(reference, crashed)["s"]
    assert [d["field"] for d in diffs] == ["scenario run"]
    assert "KeyError" in diffs[0]["engine"]
    assert compare(reference, {"scenarios": {}})["s"][0]["engine"] == "not observed"
    broken_reference = copy.deepcopy(reference)
    broken_reference["scenarios"]["s"]["status"] = "error"
    broken_reference["scenarios"]["s"]["error"] = {"type": "X", "message": "scenario bug"}
    assert compare(broken_reference, reference)["s"][0]["field"] == "reference run"


def test_a_missing_tensor_method_is_named_as_not_implemented():
    reference = _reference()
    missing = {"type": "AttributeError", "message": "'Tensor' object has no attribute 'numpy'"}
    engine = _changed((1, "raised"), missing)
    (diff,) = compare(reference, engine)["s"]
    assert "not implemented: Tensor.numpy" in diff["engine"]


# -- report and check --------------------------------------------------------------------------


def _report_with_one_failure() -> Report:
    diff = {
        "label": "c.grad",
        "field": "warnings",
        "reference": "UserWarning: The .grad attribute ...",
        "engine": "no warning",
        "summary": "c.grad: warnings: PyTorch ...; your engine no warning",
    }
    results = [
        ScenarioResult("leaf.a", ("L3",), "leaf", "course/02.ipynb#why", 2, "failed", [diff]),
        ScenarioResult("leaf.b", ("L3", "L4"), "leaf", "course/02.ipynb#retain", 1, "passed"),
    ]
    return Report("mine", "cpu", 77, "2.13.0", results)


def test_report_scores_and_groups_by_rule():
    report = _report_with_one_failure()
    assert not report.passed
    assert report.score == pytest.approx(1 / 3)
    assert [f.id for f in report.failures] == ["leaf.a"]
    assert report.by_rule == {
        "L3": {"passed": 1, "total": 2, "failed": ["leaf.a"]},
        "L4": {"passed": 1, "total": 1, "failed": []},
    }


@pytest.mark.parametrize("render", [str, lambda r: r._repr_html_()])
def test_report_text_and_html_carry_the_feedback(render):
    text = render(_report_with_one_failure())
    for piece in ("leaf.a", "c.grad", "UserWarning: The .grad attribute", "no warning",
                  RULES["L3"][:40], "seed=77", "PyTorch"):  # fmt: skip
        assert piece in text, piece
    # the section to reread, by its anchor where no lecture of that name is found to read the
    # heading from (the student-facing heading text is tested in test_feedback_text.py)
    assert "why" in text.lower().partition("reread")[2], text


@pytest.mark.parametrize("render", [str, lambda r: r._repr_html_()])
def test_a_failure_shows_its_first_three_differences_and_counts_the_rest(render):
    diffs = [
        {"label": f"step {n}", "field": "value", "reference": f"ref{n}", "engine": f"eng{n}"}
        for n in range(1, 6)
    ]
    failed = ScenarioResult("leaf.a", ("L3",), "leaf", "course/02.ipynb#why", 1, "failed", diffs)
    text = render(Report("mine", "cpu", 77, "2.13.0", [failed]))
    assert all(f"ref{n}" in text and f"eng{n}" in text for n in (1, 2, 3))
    assert "ref4" not in text and "eng5" not in text
    assert "and 2 more" in text


def test_an_exception_without_a_message_reads_as_its_type_alone():
    reference = _reference()
    engine = _changed((1, "raised"), {"type": "NotImplementedError", "message": ""})
    (diff,) = compare(reference, engine)["s"]
    assert diff["engine"] == "raised NotImplementedError"


def test_check_records_a_fresh_seed_and_reuses_a_given_one():
    one = check(torch, topics=["basics"])
    two = check(torch, topics=["basics"])
    assert isinstance(one.seed, int) and one.seed != two.seed
    assert check(torch, topics=["basics"], seed=5).seed == 5


def test_check_filters_by_rule_and_topic_and_rejects_unknown_ones():
    report = check(torch, rules=["L4"], seed=1)
    assert report.results and all("L4" in r.rules for r in report.results)
    assert {r.topic for r in check(torch, topics=["numpy"], seed=1).results} == {"numpy"}
    with pytest.raises(ValueError):
        check(torch, rules=["Z1"])
    with pytest.raises(ValueError):
        check(torch, topics=["nope"])


def test_cuda_without_a_gpu_is_not_run_and_not_passed(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    report = check(torch, device="cuda", seed=1)
    assert report.results and not report.passed and report.score == 0.0
    assert all(r.status == "not run" and r.note == NOT_RUN_NO_GPU for r in report.results)
    assert NOT_RUN_NO_GPU in str(report)
    assert {r.id for r in report.results} == {sc.id for sc in select(device="cuda")}


def test_another_torch_version_is_compared_through_the_recording(monkeypatch):
    """Another PyTorch release: the CPU check compares with 2.13's recorded observations and
    says so; where nothing is recorded (no recording shipped), it warns loudly instead."""
    from autograder import recorded

    monkeypatch.setattr(torch, "__version__", "2.99.0")
    report = check(torch, topics=["basics"], seed=1)
    assert report.reference.endswith("(recorded)")
    assert any("recorded observations (torch 2.99.0 is installed)" in n for n in report.notes)
    assert "NOTE" in str(report) and "2.99.0" in report._repr_html_()
    monkeypatch.setattr(recorded, "available", lambda: False)
    with pytest.warns(ReferenceVersionWarning):
        report = check(torch, topics=["basics"], seed=1)
    assert any("2.99.0" in note for note in report.notes)


def test_engine_from_adapts_a_namespace_and_reports_what_is_missing():
    namespace = {"tensor": torch.tensor, "zeros": torch.zeros, "Parameter": torch.nn.Parameter,
                 "F": torch.nn.functional, "helper": 1}  # fmt: skip
    engine = engine_from(namespace)
    assert engine.tensor is torch.tensor and engine.nn.Parameter is torch.nn.Parameter
    assert engine.nn.functional.relu is torch.nn.functional.relu
    assert not hasattr(engine, "helper") and not hasattr(engine, "ones")
    report = check(engine, rules=["L1"], seed=1)
    messages = " ".join(d["engine"] for f in report.failures for d in f.differences)
    assert "not implemented: ones" in messages


def test_engine_from_a_module_keeps_the_course_subset():
    assert check(engine_from(torch, name="torch_copy"), topics=["leaf"], seed=2).passed


def test_every_scenario_points_to_an_existing_lecture_section():
    from pathlib import Path

    root = Path(_repo_root())
    broken = []
    for sc in select():
        path, _, anchor = sc.lecture.partition("#")
        notebook = root / path
        if not notebook.exists() or f'id=\\"{anchor}\\"' not in notebook.read_text():
            broken.append(f"{sc.id}: {sc.lecture}")
    assert broken == [], "lecture sections that do not exist:\n" + "\n".join(broken)


def test_the_time_limit_also_stops_a_loop_outside_the_main_thread():
    import threading

    with temporary_scenarios():

        @scenario(id="core.loops", rules=["L1"], topic="basics", lecture="x")
        def loops(T, record, rng):
            T.tensor([rng.uniform()])

        engine = types.SimpleNamespace(__name__="bad", tensor=_looping_tensor)
        box = []
        worker = threading.Thread(
            target=lambda: box.append(observe(engine, ["core.loops"], time_limit=0.5))
        )
        worker.start()
        worker.join(30)
        assert box and box[0]["scenarios"]["core.loops"]["status"] == "timeout"


def test_once_only_warnings_are_observed_as_in_a_fresh_process():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        float(torch.tensor(1.5, requires_grad=True))  # PyTorch now never warns again here
    sid = "numpy.python_number_of_a_grad_tensor_warns_once"
    result = observe(torch, [sid], seed=SEED)["scenarios"][sid]
    assert result["isolation"] == "fresh process"
    warned = {o["label"]: bool(o["warnings"]) for o in result["observations"]}
    assert warned["float(a0)"] and not warned["float(a0) again"]
