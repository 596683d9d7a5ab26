"""The groups of one sealed run share a sandbox (coursekit/sealed/isolation.py): each must see
only its own engine, and nothing one group leaves (a file, a port in TIME_WAIT, a process, a
capability) may reach the next; a group stopped at the wall-clock limit stops alone."""

from __future__ import annotations

import json

import pytest

from coursekit.sealed import grade as sealed_grade
from coursekit.sealed.isolation import ENGINE, ENGINES
from coursekit.sealed.sandbox import Limits, Outcome, Sandbox, layers

pytestmark = [
    pytest.mark.xdist_group("integrity"),
    pytest.mark.skipif(
        layers()["namespace"] != "active", reason=f"LAYER MISSING: {layers()['namespace']}"
    ),
]

PORT = 47_311  # group 0 leaves it in TIME_WAIT where the network is shared

LOOK_AROUND = f"""
import ctypes, errno, json, os, socket
out = {{"pid": os.getpid(), "engine": sorted(os.listdir({ENGINE!r})),
        "engines": sorted(os.listdir({ENGINES!r})), "proc": sorted(os.listdir("/proc")),
        "left_before": os.path.exists("/tmp/left-by-a-group")}}
open("/tmp/left-by-a-group", "w").close()
try:
    probe = socket.socket()
    probe.bind(("127.0.0.1", {PORT}))
    probe.close()
    out["port"] = "free"
except OSError as exc:
    out["port"] = errno.errorcode.get(exc.errno, str(exc.errno))
try:  # leave the port in TIME_WAIT: the side that closes first keeps it
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", {PORT}))
    server.listen()
    client = socket.create_connection(("127.0.0.1", {PORT}))
    accepted, _ = server.accept()
    accepted.close(); client.close(); server.close()
    out["left_time_wait"] = True
except OSError:
    out["left_time_wait"] = False
libc = ctypes.CDLL(None, use_errno=True)
header = (ctypes.c_uint32 * 2)(0x20080522, 0)
caps = (ctypes.c_uint32 * 6)()
libc.capget(header, caps)
out["capabilities"] = list(caps)
out["mount"] = libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0
out["unmount"] = libc.umount2({ENGINES!r}.encode(), 0) == 0
raise RuntimeError(json.dumps(out))
"""


def run_groups(cells, groups, engines, limits=None):
    request = {"cells": cells, "seed": 0, "device": "cpu", "cell_s": 5, "scenario_s": 1}
    with Sandbox(limits or Limits(wall_s=20), engines=engines) as box:
        return box.run_groups(request, groups)


def reported(outcome) -> dict:
    (report,) = outcome.messages[0]["cells"]
    return json.loads(report["error"]["message"])


def test_each_group_sees_its_own_engine_a_fresh_tmp_network_and_pids_and_no_capability(tmp_path):
    engines = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"engine_{name}").write_text("")
        engines.append(tmp_path / name)
    cell = {"id": "look", "kind": "answer", "source": LOOK_AROUND}
    outcomes = run_groups([cell], [{"scenarios": []}, {"scenarios": []}], engines)
    first, second = (reported(o) for o in outcomes)
    assert not any(o.isolation_failed for o in outcomes), outcomes
    assert (first["engine"], second["engine"]) == (["engine_a"], ["engine_b"])
    assert first["engines"] == second["engines"] == [] == first["proc"]
    assert not second["left_before"]  # the first group's /tmp is gone
    assert second["port"] == "free", (first, second)  # no TIME_WAIT carried over
    assert first["pid"] == second["pid"] == 2  # a PID namespace each, its init above
    for seen in (first, second):
        assert seen["capabilities"] == [0] * 6
        assert not seen["mount"] and not seen["unmount"]


def test_a_group_stopped_at_the_wall_clock_limit_stops_alone(tmp_path):
    cell = {"id": "wait", "kind": "answer",
            "source": "import os, time\nif os.path.isdir('/opt/sealed/engine/slow'):\n"
                      "    time.sleep(60)\nraise RuntimeError('{\"ran\": true}')"}  # fmt: skip
    (tmp_path / "slow" / "slow").mkdir(parents=True)
    (tmp_path / "quick").mkdir()
    outcomes = run_groups(
        [cell], [{"scenarios": []}, {"scenarios": []}], [tmp_path / "slow", tmp_path / "quick"],
        Limits(wall_s=3),
    )  # fmt: skip
    assert outcomes[0].problem == "stopped after the wall-clock limit of 3 s"
    assert not outcomes[1].problem and reported(outcomes[1]) == {"ran": True}


def test_where_groups_cannot_be_isolated_each_gets_a_sandbox_of_its_own(monkeypatch):
    """A kernel that refuses a user namespace inside the sandbox: every group is run again
    alone, and the next runs do not try again."""
    alone = []

    class Refusing(Sandbox):
        def run_groups(self, request, groups):
            return [_outcome(isolation_failed="a user namespace: EPERM") for _ in groups]

        def run(self, request):
            alone.append(request["scenarios"])
            return _outcome()

    monkeypatch.setattr(sealed_grade, "Sandbox", Refusing)
    monkeypatch.setattr(sealed_grade, "_SHARING_REFUSED", [])
    groups = {(): {"x.one"}, ("leaf_nodes", ("read_grad",)): {"x.two"}}
    outcomes = sealed_grade._sealed_runs({}, groups, Limits(), "cpu")
    assert sorted(alone) == [["x.one"], ["x.two"]] and len(outcomes) == 2
    assert sealed_grade._SHARING_REFUSED == ["a user namespace: EPERM"]
    sealed_grade._sealed_runs({}, groups, Limits(), "cpu")
    assert len(alone) == 4  # straight to a sandbox each


def _outcome(isolation_failed: str = "") -> Outcome:
    outcome = Outcome(messages=[{"done": True}], malformed=0, exit_status=0, timed_out=False)
    outcome.isolation_failed = isolation_failed
    return outcome


def test_a_key_one_group_leaves_in_the_kernel_keyrings_never_reaches_the_next():
    from test_integrity import KEY_PROBE

    cell = {"id": "keys", "kind": "answer", "source": KEY_PROBE}
    for _ in range(2):  # within one run, and from one run to the next in the same uid slot
        first, second = (reported(o) for o in run_groups([cell], [{"scenarios": []}] * 2, []))
        assert first["user_added"] and first["user_session_added"]  # the probe can leave keys
        assert second["user"] == second["user_session"] == second["session"] == -1, second
        assert second.get("persistent", -1) == -1, second
