"""Fresh-process observations: `python -m autograder.observe_child --engine NAME`.

The process imports the engine and the catalogue once, then reads one JSON request per line on
stdin ({"scenario", "module", "seed", "device", "time_limit"}) and answers each with one JSON
line on stdout. Each request runs in a process forked from this clean one, so every scenario
sees the engine as a fresh interpreter would (no once-only warning fired yet) without paying
for the engine's import again. Where fork does not exist the request runs here, and the client
starts one process per scenario instead.
"""

import argparse
import contextlib
import importlib
import json
import os
import signal
import sys
import time

from autograder.graph_diff import prepare
from autograder.observe import observe_scenario
from autograder.scenarios import REGISTRY, load_catalogue

CAN_FORK = hasattr(os, "fork")
_KILL_MARGIN_S = 5.0  # beyond the scenario's own time limit, for code stuck outside Python


def answer(engine, request: dict, fork: bool = True) -> dict:
    """Run one requested scenario (in a forked child where possible, unless `fork` is False)
    and return its result."""
    module = request.get("module")
    if request["scenario"] not in REGISTRY and module and module != "__main__":
        importlib.import_module(module)  # scenarios defined outside the catalogue (tests)
    sc = REGISTRY.get(request["scenario"])
    if sc is None:
        return _failure("error", f"scenario {request['scenario']!r} is not importable here")
    args = (engine, sc, request["seed"], request["device"], request["time_limit"])
    sc.needs  # noqa: B018  (worked out here, where it stays cached, not in each fork)
    if not (CAN_FORK and fork):
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries only the answers
            return observe_scenario(*args)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, write, leave without running the parent's cleanup
        os.close(read_end)
        sys.stdout = sys.stderr  # stdout carries only the server's answers
        try:
            payload = json.dumps(observe_scenario(*args)).encode()
        except BaseException as exc:  # noqa: BLE001
            payload = json.dumps(_failure("error", f"{type(exc).__name__}: {exc}")).encode()
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        os._exit(0)
    os.close(write_end)
    return _collect(pid, read_end, request["time_limit"] + _KILL_MARGIN_S)


def _collect(pid: int, read_end: int, deadline_s: float) -> dict:
    chunks = []
    deadline = time.monotonic() + deadline_s
    os.set_blocking(read_end, False)
    status = None
    while status is None:
        try:
            chunk = os.read(read_end, 1 << 16)
            if chunk:
                chunks.append(chunk)
                continue
        except BlockingIOError:
            pass
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status = code
        elif time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
            return _failure("timeout", f"fresh process stopped after {deadline_s:g} s")
        else:
            time.sleep(0.002)
    os.set_blocking(read_end, True)
    while chunk := os.read(read_end, 1 << 16):
        chunks.append(chunk)
    os.close(read_end)
    if not chunks:
        return _failure("error", f"fresh process died (wait status {status})")
    return json.loads(b"".join(chunks))


def _failure(status: str, message: str) -> dict:
    return {"status": status, "observations": [], "error": {"type": "Process", "message": message}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", required=True)
    args = parser.parse_args(argv)
    engine = importlib.import_module(args.engine)
    load_catalogue()
    prepare()
    for line in sys.stdin:
        if line.strip():
            result = answer(engine, json.loads(line))
            result["isolation"] = "fresh process"
            sys.stdout.write(json.dumps(result) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
