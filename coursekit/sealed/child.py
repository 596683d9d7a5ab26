"""The sealed child: runs the student's answer cells and the scenarios inside the sandbox.

It is started by sandbox.Sandbox with only the observing side of the autograder, NumPy and
the run's staged minigrad importable (torch is not there to import). It reads one JSON
request on stdin:

    {"cells": [{"id": ..., "kind": "given" | "answer", "source": ...}, ...],
     "scenarios": [scenario ids], "seed": int, "device": "cpu", "cell_s": s, "scenario_s": s,
     "bind": {"assignment": "leaf_nodes", "functions": ["read_grad"]}}   # optional

executes the cells in order in one namespace (a notebook's globals), then takes the engine:
with "bind", minigrad with the namespace's functions of that list bound into its seams (the
staged minigrad's stubs for them, its reference bytecode for every other graded function);
without, the engine the namespace defines (autograder.engine_from). It runs each scenario
in a process forked from that state (so each sees the engine as freshly defined, and a crash
ends one scenario only), but on CUDA: a process forked after CUDA started cannot use it, and
the cells may have started it, so a CUDA run observes its scenarios here, one after another,
each with the engine's once-only warnings forgotten as a fresh process has them (CUDA starts
once and CuPy compiles each kernel once, too). It writes JSON lines
to the result pipe: one {"cells": [...], "engine_names": [...]} line, then one
{"scenario": id, "result": {...}} line per scenario as it completes (a run stopped by the
wall clock keeps what it finished), then {"done": true}.

Nothing here is trusted by the parent: the student's code shares this process and may change
any of it. The parent only accepts observations that match PyTorch's on values drawn from the
seed it chose, so whatever this process writes earns only what a correct engine earns.
"""

import builtins
import json
import linecache
import os
import re
import sys
import traceback

from autograder.engine import ENGINE_NAMES, engine_from, unimportable_copy
from autograder.graph_diff import prepare
from autograder.observe import ScenarioTimeout, _time_limit, has_name
from autograder.observe_child import answer
from autograder.scenarios import known_needs, load_catalogue

_MAGIC = re.compile(r"^([ \t]*)([%!].*)$", re.M)
_MESSAGE_LIMIT = 2000
_TRACEBACK_FRAMES = 8


# keyctl(2) numbers by machine; the kernel's keyrings outlive a process (a uid's user keyring
# lasts while any process of that uid runs, its persistent keyring for days after)
_KEYCTL = {"x86_64": 250, "aarch64": 219}
_KEYCTL_JOIN_SESSION_KEYRING, _KEYCTL_CLEAR, _KEYCTL_GET_PERSISTENT = 1, 7, 22
_USER_KEYRING, _USER_SESSION_KEYRING, _PROCESS_KEYRING = -4, -5, -2


def forget_keyrings() -> bool:
    """Empty the sandbox uid's user and persistent keyrings and start a new session keyring,
    before any student code runs: a uid slot serves one sealed run after another, so a key
    left there by one submission's run would otherwise reach the next one's. False where the kernel
    has no keyrings to clear (another OS, or keyctl refused)."""
    import ctypes
    import platform

    number = _KEYCTL.get(platform.machine())
    if number is None:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    rings = [_USER_KEYRING, _USER_SESSION_KEYRING]
    # reached through this process's keyring; none where the kernel has no persistent keyrings
    persistent = libc.syscall(number, _KEYCTL_GET_PERSISTENT, ctypes.c_int(-1),
                              ctypes.c_int(_PROCESS_KEYRING))  # fmt: skip
    if persistent > 0:
        rings.append(persistent)
    cleared = [libc.syscall(number, _KEYCTL_CLEAR, ctypes.c_int(k)) == 0 for k in rings]
    joined = libc.syscall(number, _KEYCTL_JOIN_SESSION_KEYRING, None) >= 0
    return all(cleared) and joined


def main(result_fd: int) -> None:
    request = json.loads(sys.stdin.buffer.read())
    sys.stdin.close()
    load_catalogue()
    known_needs(request.get("needs", {}))
    if "groups" in request:
        run_groups(request)
        return
    forget_keyrings()
    run_group(request, os.fdopen(result_fd, "wb", buffering=0))


def run_group(request: dict, channel) -> None:
    """The cells, then the request's scenarios on the engine they make (or bind)."""
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    cells = [run_cell(namespace, cell, request["cell_s"]) for cell in request["cells"]]
    if request.get("bind"):
        engine, bind_report = bound_engine(namespace, request["bind"])
        cells.append(bind_report)
    else:
        engine = engine_from(namespace)
    present = [name for name in ENGINE_NAMES if has_name(engine, name)]
    prepare()  # once, not in every scenario's child
    _send(channel, {"cells": cells, "engine_names": present})
    fork = request["device"] != "cuda"  # see the module's docstring
    if not fork:
        warm_up_cuda()
    for scenario_id in request["scenarios"]:
        if not fork:
            forget_once_only_warnings()
        try:
            result = answer(
                engine,
                {"scenario": scenario_id, "module": None, "seed": request["seed"],
                 "device": request["device"], "time_limit": request["scenario_s"]},
                fork=fork,
            )  # fmt: skip
        except OSError as exc:  # no process left to fork (the student's have them all)
            result = {"status": "error", "observations": [],
                      "error": {"type": "Process", "message": f"not run: {exc}"}}  # fmt: skip
        _send(channel, {"scenario": scenario_id, "result": result})
    _send(channel, {"done": True})


def run_groups(request: dict) -> None:
    """Several groups in one sandbox: this process has imported what every group needs and
    runs no student code; each group runs in a child of it that first gets namespaces of its
    own (isolation.py), so no group can see, or leave anything for, another one."""
    from coursekit.sealed.isolation import run_isolated

    groups = request["groups"]
    fds = [group["result_fd"] for group in groups]
    control = request["control_fd"]  # to the parent, from this process only
    for index, group in enumerate(groups):
        failed = run_isolated(
            index,
            lambda channel, group=group: _run_isolated_group(request, group, channel),
            group["result_fd"],
            [*fds[index + 1 :], control],
            request["wall_s"],
            request["tmp_bytes"],
        )
        if failed:
            os.write(control, json.dumps({"group": index, "isolation_failed": failed}).encode()
                     + b"\n")  # fmt: skip
    os.close(control)


def _run_isolated_group(request: dict, group: dict, channel) -> None:
    forget_keyrings()
    run_group({**request, "scenarios": group["scenarios"], "bind": group.get("bind")}, channel)


def warm_up_cuda() -> None:
    """Start CUDA, CuPy's kernel compiler and cuBLAS before the first scenario's clock does:
    starting them takes seconds on some machines, which no scenario's time limit should pay."""
    try:
        import cupy

        x = cupy.arange(4, dtype=cupy.float32).reshape(2, 2)
        float(((x * 2) @ x).sum())
    except Exception:  # noqa: BLE001  (no CuPy, no GPU: the scenarios will say so)
        return


def forget_once_only_warnings() -> None:
    try:
        from minigrad import _warnings
    except ImportError:  # a run without minigrad: the engine keeps its own
        return
    _warnings._already.clear()


def bound_engine(namespace: dict, bind: dict):
    """minigrad with the namespace's functions of bind["functions"] in its seams, and a report
    of the binding (a function missing or misshapen is the student's error to read)."""
    import minigrad
    from minigrad import seams

    report = {"id": "bind", "kind": "given", "status": "ok"}
    seams.reset()  # the staged engine, whatever the cells bound
    try:
        seams.use(bind["assignment"], namespace, bind["functions"])
    except Exception as exc:  # noqa: BLE001  (its stubs stay: those scenarios fail, named)
        report.update(status="error", error=_error(exc))
    forget_once_only_warnings()  # as a fresh process has them
    return unimportable_copy(minigrad, "engine"), report


def _send(channel, message: dict) -> None:
    channel.write(json.dumps(message).encode() + b"\n")


def run_cell(namespace: dict, cell: dict, time_limit: float) -> dict:
    """Execute one cell; report ok, or the error (type, message, the cell frames only)."""
    report = {"id": cell["id"], "kind": cell["kind"], "status": "ok"}
    filename = f"<{cell['kind']} cell {cell['id']}>"
    try:
        code, source, note = _compile(cell["source"], filename)
    except SyntaxError as exc:
        report.update(status="error", error=_error(exc))
        return report
    if note:
        report["note"] = note
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        with _time_limit(time_limit):
            exec(code, namespace)
    except ScenarioTimeout:
        report.update(status="timeout", error={"type": "Timeout",
                      "message": f"the cell ran longer than {time_limit:g} s"})  # fmt: skip
    except BaseException as exc:  # noqa: BLE001  (SystemExit and KeyboardInterrupt included)
        report.update(status="error", error=_error(exc))
    return report


def _compile(source: str, filename: str):
    """(code, source, note); IPython line magics and shell escapes mean nothing here, so a
    cell that only compiles without them runs without them."""
    try:
        return compile(source, filename, "exec"), source, ""
    except SyntaxError:
        if not _MAGIC.search(source):
            raise
    source = _MAGIC.sub(r"\1pass  # ignored in the sealed run: \2", source)
    return compile(source, filename, "exec"), source, "IPython magic or shell lines were ignored"


def _error(exc: BaseException) -> dict:
    """Type, message and the traceback's frames in cells (the student's and the given code)."""
    message = str(exc)
    if len(message) > _MESSAGE_LIMIT:
        message = message[:_MESSAGE_LIMIT] + " ..."
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<")]
    lines = traceback.format_list(frames[-_TRACEBACK_FRAMES:])
    return {"type": type(exc).__name__, "message": message, "traceback": "".join(lines)}
