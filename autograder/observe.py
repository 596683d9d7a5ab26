"""Run catalogue scenarios on one engine and return plain JSON-able observations.

This module never imports torch: it runs whatever engine it is given, so it can run in a
sandboxed process while the comparison with PyTorch happens in the trusted parent.

Isolation inside a run: an exception, a RecursionError, or a pure-Python loop that outlives the
per-scenario time limit ends that scenario only; the run goes on with the next one. Scenarios
marked `fresh_process` (once-only warnings) run in a new interpreter when the engine can be
imported there by its module name; otherwise in this process, which the result notes.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.machinery
import json
import os
import signal
import sys
import threading
import time
import traceback
import warnings
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from autograder.recorder import Recorder, normalise_text, waiting_for
from autograder.scenarios import Scenario, select

if TYPE_CHECKING:
    import subprocess

CAN_FORK = hasattr(os, "fork")

TIME_LIMIT_S = 10.0  # per scenario; the whole CPU catalogue takes a few seconds
_IMPORT_ALLOWANCE_S = 60.0  # a fresh interpreter has to import the engine first


class ScenarioTimeout(BaseException):
    """Raised inside a scenario that ran past its time limit (a BaseException, so an engine's
    `except Exception` cannot swallow it)."""


def scenario_rng(seed: int, scenario_id: str) -> np.random.Generator:
    """One generator per (seed, scenario): a scenario sees the same values in any selection."""
    return np.random.default_rng([int(seed), zlib.crc32(scenario_id.encode())])


def library_names(engine) -> tuple[str, ...]:
    name = getattr(engine, "__name__", "") or ""
    return (name.split(".")[0],) if name else ()


def has_name(engine, dotted: str) -> bool:
    obj = engine
    for part in dotted.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:
            return False
    return True


def observe(
    engine, scenario_ids=None, seed: int = 0, device: str = "cpu", time_limit=TIME_LIMIT_S
) -> dict:
    """Observations of the chosen scenarios (all when scenario_ids is None) on `engine`."""
    chosen = select(ids=scenario_ids)
    name = _importable_name(engine)
    fresh = [sc for sc in chosen if sc.fresh_process and name]
    fresh_ids = {sc.id for sc in fresh}
    # the fresh-process side starts first: it imports the engine while this process works
    pending = _request_fresh(name, fresh, seed, device, time_limit) if fresh else None
    results = {}
    for sc in chosen:
        if sc.id in fresh_ids:
            continue
        results[sc.id] = observe_scenario(engine, sc, seed, device, time_limit)
        if sc.fresh_process:
            results[sc.id]["isolation"] = "this process (engine not importable by name)"
    if pending:
        results.update(_collect_fresh(pending, fresh, time_limit))
    return {
        "engine": getattr(engine, "__name__", type(engine).__name__),
        "seed": int(seed),
        "device": device,
        "scenarios": {sc.id: results[sc.id] for sc in chosen},
    }


def observe_scenario(engine, sc: Scenario, seed: int, device: str, time_limit=TIME_LIMIT_S) -> dict:
    """Run one scenario in this process. status: ok, error, timeout, not_implemented or
    waiting (the engine said a part it needs is not built yet: `waiting_for` names it)."""
    missing = [name for name in sc.needs if not has_name(engine, name)]
    if missing:
        return {"status": "not_implemented", "missing": missing, "observations": []}
    libnames = library_names(engine)
    record = Recorder(device=device, libnames=libnames)
    result = {"status": "ok", "observations": record.observations}
    started = time.perf_counter()
    try:
        # warnings outside record.* calls are not observations: keep them off the user's screen
        with warnings.catch_warnings(), _time_limit(time_limit):
            warnings.simplefilter("ignore")
            sc.fn(engine, record, scenario_rng(seed, sc.id))
    except ScenarioTimeout:
        result["status"] = "timeout"
        result["error"] = {"type": "Timeout", "message": f"stopped after {time_limit:g} s"}
    except KeyboardInterrupt:
        raise
    except AttributeError as exc:
        missing = _missing_engine_name(engine, exc)
        result["status"] = "not_implemented" if missing else "error"
        if missing:
            result["missing"] = [missing]
        else:
            result["error"] = _error(exc, sc, libnames)
    except BaseException as exc:  # noqa: BLE001  (SystemExit from engine code included)
        part = waiting_for(exc)
        result["status"] = "waiting" if part else "error"
        result["error"] = _error(exc, sc, libnames)
        if part:
            result["waiting_for"] = part
    finally:
        _restore_grad_mode(engine)
    result["seconds"] = round(time.perf_counter() - started, 4)
    return result


def _missing_engine_name(engine, exc: AttributeError) -> str | None:
    """'nn.Parameter' when exc says the engine (or its submodule nn) lacks Parameter."""
    holders = {id(engine): ""}
    for sub in ("nn", "nn.functional", "optim", "autograd", "cuda"):
        obj = engine
        for part in sub.split("."):
            obj = getattr(obj, part, None)
        if obj is not None:
            holders[id(obj)] = sub + "."
    prefix = holders.get(id(getattr(exc, "obj", None)))
    return None if prefix is None or not exc.name else prefix + exc.name


def _error(exc: BaseException, sc: Scenario, libnames) -> dict:
    return {
        "type": type(exc).__name__,
        "message": normalise_text(_short(exc), libnames),
        "where": _where(exc, sc),
    }


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 2000 else text[:2000] + " ..."


def _where(exc: BaseException, sc: Scenario) -> str | None:
    """The scenario line that was running when exc escaped ('file:line: code')."""
    source = sc.source_file
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == source]
    if not frames:
        return None
    frame = frames[-1]
    return f"{Path(frame.filename).name}:{frame.lineno}: {(frame.line or '').strip()}"


def _restore_grad_mode(engine) -> None:
    """A scenario stopped inside set_grad_enabled(False) must not leak it into the next one."""
    try:
        if not engine.is_grad_enabled():
            engine.set_grad_enabled(True)
    except Exception:
        pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Raise ScenarioTimeout in the running code after `seconds`.

    In the main thread a SIGALRM timer interrupts pure-Python loops between bytecodes; in other
    threads (signals only reach the main one) a trace function checks the clock at every line.
    """
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):

        def on_alarm(signum, frame):
            raise ScenarioTimeout

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    deadline = time.monotonic() + seconds

    def tracer(frame, event, arg):
        if time.monotonic() > deadline:
            raise ScenarioTimeout
        return tracer

    previous_trace = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous_trace)


def _importable_name(engine) -> str | None:
    """The engine's module name if a fresh interpreter can import it from sys.path (torch,
    minigrad); None for engines built in this process (a notebook's, a patched copy)."""
    name = getattr(engine, "__name__", None)
    if not name or name == "__main__" or sys.modules.get(name) is not engine:
        return None
    top = name.split(".")[0]
    search = [str(Path(__file__).resolve().parent.parent), *sys.path[1:]]  # the child's path
    if importlib.machinery.PathFinder.find_spec(top, search) is None:
        return None
    return name


# One fresh-process server per engine name, kept for this interpreter's lifetime: it imports
# the engine once and forks a clean child per scenario (see observe_child).
_SERVERS: dict[str, subprocess.Popen] = {}


def server_pids() -> set[int]:
    """The fresh-process servers still running: a process that grades job after job keeps
    them, and ends only the other processes a job left behind."""
    return {server.pid for server in _SERVERS.values() if server.poll() is None}


def _start_server(engine_name: str) -> subprocess.Popen:
    import subprocess  # here, not at the top: a sealed run never starts a server (8 ms)
    import tempfile

    package_root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([package_root, *sys.path[1:], env.get("PYTHONPATH", "")])
    errors = tempfile.TemporaryFile()  # read back only to explain a server that died
    server = subprocess.Popen(
        [sys.executable, "-m", "autograder.observe_child", "--engine", engine_name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
        env=env,
    )
    server.errors = errors
    return server


def _close(server: subprocess.Popen) -> None:
    """End a server: closing its stdin ends its request loop."""
    import subprocess

    with contextlib.suppress(OSError, ValueError):
        server.stdin.close()
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    server.stdout.close()
    server.errors.close()


@atexit.register
def _close_servers() -> None:
    while _SERVERS:
        _close(_SERVERS.popitem()[1])


def _request_fresh(engine_name, scenarios, seed, device, time_limit) -> list:
    """Send one request per scenario; returns the server process answering each, in order."""
    servers = []
    for sc in scenarios:
        server = _SERVERS.get(engine_name) if CAN_FORK else None
        if server is None or server.poll() is not None:
            server = _start_server(engine_name)
            if CAN_FORK:
                _SERVERS[engine_name] = server
        request = {"scenario": sc.id, "module": sc.fn.__module__, "seed": int(seed),
                   "device": device, "time_limit": time_limit}  # fmt: skip
        try:
            server.stdin.write(json.dumps(request) + "\n")
            server.stdin.flush()
            if not CAN_FORK:
                server.stdin.close()
        except OSError:
            pass  # a dead server shows up when its answer is read
        servers.append(server)
    return servers


def _collect_fresh(servers: list, scenarios, time_limit) -> dict:
    answers = {}
    deadline = time.monotonic() + _IMPORT_ALLOWANCE_S + len(scenarios) * (time_limit + 5)
    for server, sc in zip(servers, scenarios, strict=True):
        line = _read_line(server, deadline - time.monotonic())
        if line is None:
            server.kill()
            _SERVERS.pop(next((k for k, v in _SERVERS.items() if v is server), None), None)
            answers[sc.id] = _process_failure("error", _server_trouble(server))
            _close(server)
        else:
            answers[sc.id] = json.loads(line)
        if not CAN_FORK:
            _close(server)
    return answers


def _read_line(server: subprocess.Popen, timeout: float) -> str | None:
    """The server's next answer, or None when it died or did not answer in time."""
    box = []
    reader = threading.Thread(target=lambda: box.append(server.stdout.readline()), daemon=True)
    reader.start()
    reader.join(max(timeout, 0.1))
    if not box or not box[0].strip():
        return None
    return box[0]


def _server_trouble(server: subprocess.Popen) -> str:
    try:
        server.errors.seek(0)
        tail = server.errors.read().decode(errors="replace").strip().splitlines()[-3:]
    except (OSError, ValueError):
        tail = []
    return f"fresh-process server stopped answering: {tail}"


def _process_failure(status: str, message: str) -> dict:
    return {"status": status, "observations": [], "error": {"type": "Process", "message": message}}
