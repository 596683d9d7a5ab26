"""Observations are the engine's alone: a warning that a finaliser gives while the garbage
collector runs inside a recorded call is not observed. Such a finaliser belongs to what earlier
code left behind (the student's cells, a Jupyter kernel's unclosed event loop, an earlier
scenario), and a collection may start at any allocation: recorded, its warning would read as
the engine's, a difference from PyTorch that `check`, side_by_side and the sealed grade would
each see or not by chance (CI once failed on an event loop another test had left).

Each test turns automatic collection off and collects inside the scenario's recorded calls,
so the collection falls exactly where it does harm; the call's own warnings, before and after
the collection, are still observed."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import warnings

from test_autograder_core import temporary_scenarios

import minigrad
from autograder.observe import observe
from autograder.scenarios import scenario
from autograder.side_by_side import compare_engines
from coursekit.sealed import child
from minigrad._device import standin_cuda

# an unclosed resource in a reference cycle: finalised only when the collector runs
LEAVES_GARBAGE = """
import warnings

class Connection:
    def __del__(self):
        warnings.warn("unclosed connection", ResourceWarning)

left = Connection()
left.me = left
del left
"""


def collect() -> None:
    """A call that warns, collects, and warns again."""
    warnings.warn("before", UserWarning, stacklevel=2)
    gc.collect()
    warnings.warn("after", UserWarning, stacklevel=2)


def collects(T, record, rng):
    record.call("a collection during the scenario", collect)
    record.call("another", collect)
    exec(LEAVES_GARBAGE, {})  # for the next scenario, where it runs in the same process


@contextlib.contextmanager
def collection_where_it_hurts():
    """Garbage left, automatic collection off, a scenario that collects inside its record."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        with temporary_scenarios():
            scenario(id="leftovers.collects", rules=["L1"], topic="basics", lecture="x")(collects)
            exec(LEAVES_GARBAGE, {})
            yield "leftovers.collects"
    finally:
        with warnings.catch_warnings():  # the last scenario's leftover stays with this test
            warnings.simplefilter("ignore", ResourceWarning)
            gc.collect()
        if collecting:
            gc.enable()


OWN = [{"category": "UserWarning", "message": "before"},
       {"category": "UserWarning", "message": "after"}]  # fmt: skip


def warnings_seen(result: dict) -> list:
    assert result["status"] == "ok", result
    return [o["warnings"] for o in result["observations"]]


def test_the_sealed_child_observes_no_leftover_of_the_cells_or_an_earlier_scenario(monkeypatch):
    """On "cuda" the child observes its scenarios in its own process, one after another (on
    "cpu" it forks for each, which a test should not do inside a pytest worker)."""
    monkeypatch.setattr(child, "warm_up_cuda", lambda: None)
    said = []
    channel = io.BytesIO()
    channel.write = lambda data: said.append(json.loads(data))
    with collection_where_it_hurts() as sid, standin_cuda():
        request = {"cells": [{"id": "left", "kind": "answer", "source": LEAVES_GARBAGE}],
                   "scenarios": [sid, sid], "seed": 0, "device": "cuda",
                   "cell_s": 5, "scenario_s": 5}  # fmt: skip
        child.run_group(request, channel)
    assert said[0]["cells"][0]["status"] == "ok", said[0]
    results = [m["result"] for m in said if "scenario" in m]
    assert [warnings_seen(r) for r in results] == [[OWN, OWN]] * 2


def test_check_in_a_kernel_observes_no_leftover():
    """autograder.check runs its scenarios in the student's own kernel."""
    with collection_where_it_hurts() as sid:
        runs = [observe(minigrad, [sid])["scenarios"][sid] for _ in range(2)]
    assert [warnings_seen(r) for r in runs] == [[OWN, OWN]] * 2


def test_side_by_side_observes_no_leftover():
    with collection_where_it_hurts():
        comparison = compare_engines(collects)
    assert warnings_seen(comparison.reference) == [OWN, OWN]
    assert warnings_seen(comparison.observed) == [OWN, OWN]
    assert not comparison.differences
