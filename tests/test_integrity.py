"""Grading integrity (issue 7): untrusted submissions earn no credit they did not earn.

Each threat has a sample submission, made here from the leaf_nodes assignment (its released
stub or its reference answer, with the threat added). Each test first shows what the same
submission does to plain in-kernel grading, where it does something: the notebook's cells and
the hidden tests run in one IPython shell, in the submission's order, test cells restored
from the source and each test cell scored from its outputs by nbgrader's own determine_grade
(what `nbgrader autograde` does in its kernel). Then the sealed run grades it: no false
credit, a note saying what happened, and the next student of the class still graded fully.

The assignment is cut down to keep the tests short: test cells L3, L8 and the CUDA cell, each
with only its hidden part (the visible asserts are a student's aid). Threats that would harm
this machine outside a sandbox (memory, processes, disk) are never run in-kernel.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.report import NOT_RUN_NO_GPU
from coursekit import sealed
from coursekit.exercises.cells import without_markers
from coursekit.sealed.nbgrader_steps import seal_outputs, write_scores
from coursekit.sealed.sandbox import Sandbox, layers

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "solutions" / "leaf_nodes" / "leaf_nodes.ipynb"
RELEASE = REPO / "exercises" / "leaf_nodes" / "leaf_nodes.ipynb"
KEPT_TESTS = ("test_L3", "test_L8", "test_cuda_leaf_nodes")
CPU_POINTS = {"test_L3": 5.0, "test_L8": 8.0}
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", re.S)
VISIBLE_CHECK = re.compile(
    r"^from coursekit.exercises.grading import check_rule$|^check_rule\(.*$", re.M
)
LIMITS = sealed.Limits(wall_s=40, cell_s=3, scenario_s=3, memory_bytes=512 << 20, processes=16)
SEED = 20240611
SECRET = "SECRET-7f3a"  # planted in the instructor's files of the fake course

pytestmark = pytest.mark.xdist_group("integrity")


def layer_active(name: str) -> bool:
    return layers()[name] == "active"


needs_namespace = pytest.mark.skipif(
    not layer_active("namespace"), reason=f"LAYER MISSING: {layers()['namespace']}"
)
needs_uid = pytest.mark.skipif(not layer_active("uid"), reason=f"LAYER MISSING: {layers()['uid']}")


# -- the assignment and its submissions ---------------------------------------------------------


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _cut(nb: dict, test_source) -> dict:
    """nb with only KEPT_TESTS as test cells, each cell's source given by test_source(cell)."""
    nb = copy.deepcopy(nb)
    kept = []
    for cell in nb["cells"]:
        meta = _meta(cell)
        if meta.get("grade") and not meta.get("solution"):
            if meta["grade_id"] not in KEPT_TESTS:
                continue
            cell["source"] = test_source(cell)
        kept.append(cell)
    nb["cells"] = kept
    return nb


def _text(cell) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


SOURCE_NB = _cut(json.loads(SOURCE.read_text()), lambda c: HIDDEN.search(_text(c)).group(0))
# what the CUDA cell is worth: the weights of its scenarios, as the exercise kit wrote them
(CUDA_POINTS,) = [
    _meta(c)["points"]
    for c in SOURCE_NB["cells"]
    if _meta(c).get("grade_id") == "test_cuda_leaf_nodes"
]
RELEASE_NB = _cut(json.loads(RELEASE.read_text()), _text)
SOLUTIONS = {
    _meta(c)["grade_id"]: without_markers(_text(c))
    for c in SOURCE_NB["cells"]
    if _meta(c).get("solution")
}
STUBS = {_meta(c)["grade_id"]: _text(c) for c in RELEASE_NB["cells"] if _meta(c).get("solution")}
FIRST, SECOND, LAST = "answer_read_grad", "answer_accumulate_grad", "answer_set_grad"
assert {FIRST, SECOND, LAST} <= set(SOLUTIONS), list(SOLUTIONS)


def submission(answers=None, before=None, after=None) -> dict:
    """The released notebook answered with `answers` (default: the reference answer), with
    code added at the start of an answer cell (before) or at its end (after)."""
    answers = dict(SOLUTIONS if answers is None else answers)
    for extra, place in ((before or {}, "before"), (after or {}, "after")):
        for grade_id, code in extra.items():
            parts = [code, answers[grade_id]] if place == "before" else [answers[grade_id], code]
            answers[grade_id] = "\n".join(parts)
    nb = copy.deepcopy(RELEASE_NB)
    for cell in nb["cells"]:
        grade_id = _meta(cell).get("grade_id")
        if grade_id in answers:
            cell["source"] = answers[grade_id]
    return nb


@pytest.fixture(scope="module")
def contract(tmp_path_factory):
    path = tmp_path_factory.mktemp("source") / "leaf_nodes.ipynb"
    path.write_text(json.dumps(SOURCE_NB))
    return sealed.Contract.from_notebook(path)


def write(nb: dict, folder: Path, name: str = "leaf_nodes.ipynb") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(nb))
    return path


def grade(contract, nb_or_path, **kw):
    kw.setdefault("seed", SEED)
    kw.setdefault("limits", LIMITS)
    return sealed.grade_notebook(contract, nb_or_path, **kw)


def points(result) -> dict[str, float]:
    return {grade_id: cell.points for grade_id, cell in result.cells.items()}


def everything(result) -> str:
    """All a student or instructor is shown of a sealed result."""
    return result.to_json()


FULL_CPU = {**CPU_POINTS, "test_cuda_leaf_nodes": 0.0}
ZERO = {"test_L3": 0.0, "test_L8": 0.0, "test_cuda_leaf_nodes": 0.0}
# Each test cell grades only the functions of its rules: an attack in read_grad's cell (L3)
# costs L3; accumulate_grad, answered right, still earns L8 (and the reverse).
ONLY_L8 = {**ZERO, "test_L8": CPU_POINTS["test_L8"]}
ONLY_L3 = {**ZERO, "test_L3": CPU_POINTS["test_L3"]}


def assert_no_false_credit(result, expected=None):
    assert points(result) == (ZERO if expected is None else expected)
    assert result.cells["test_cuda_leaf_nodes"].verdict == NOT_RUN_NO_GPU


def assert_next_student_graded(contract, tmp_path):
    """The student after the cheat, in the same class: full CPU marks."""
    honest = grade(contract, write(submission(), tmp_path / "honest"))
    assert points(honest) == FULL_CPU, everything(honest)
    assert not [n for n in honest.notes if "DEGRADED" not in n]


# -- plain in-kernel grading, for comparison --------------------------------------------------

# A fork server: it imports what a grading kernel imports once, then runs each submission in
# a forked child (a fresh kernel: monkeypatches do not outlive one submission).
IN_KERNEL = r"""
import io, json, os, re, signal, sys, time
import nbformat, torch
import autograder.check, coursekit.exercises.grading
from IPython.core.interactiveshell import InteractiveShell
from nbgrader.utils import determine_grade

meta = lambda c: c.get("metadata", {}).get("nbgrader", {})
ansi = re.compile(r"\x1b\[[0-9;]*m")
OUT = []

class Kernel(InteractiveShell):
    def _showtraceback(self, etype, evalue, stb):  # what ipykernel sends as an error output
        OUT.append({"output_type": "error", "ename": etype.__name__, "evalue": str(evalue),
                    "traceback": stb})

class Stream(io.TextIOBase):
    def __init__(self, name):
        self.name = name
    def write(self, text):
        OUT.append({"output_type": "stream", "name": self.name, "text": text})
        return len(text)

def text(outputs):
    return ansi.sub("", "".join(o.get("text", "") + "\n".join(o.get("traceback", []))
                                for o in outputs))

def grade(submitted_path, source_path):
    submitted, source = (json.load(open(p)) for p in (submitted_path, source_path))
    tests = {meta(c)["grade_id"]: c for c in source["cells"]
             if meta(c).get("grade") and not meta(c).get("solution")}
    shell = Kernel.instance()
    sys.stdout, sys.stderr = Stream("stdout"), Stream("stderr")
    graded, texts = {}, {"all": ""}
    for cell in submitted["cells"]:
        if cell["cell_type"] != "code":
            continue
        grade_id = meta(cell).get("grade_id")
        if grade_id in tests:  # nbgrader's OverwriteCells: test cells come from the source
            cell = tests[grade_id]
        OUT.clear()
        source = cell["source"]
        shell.run_cell("".join(source) if isinstance(source, list) else source)
        if grade_id in tests:
            graded[grade_id] = determine_grade(nbformat.from_dict({**cell, "outputs": OUT}))[0]
            texts[grade_id] = text(OUT)
        texts["all"] += text(OUT)
    return {"points": graded, "texts": texts}

for line in sys.stdin:
    request = json.loads(line)
    answer = request["answer"]
    pid = os.fork()
    if pid == 0:
        os.chdir(request["cwd"])
        os.environ["NBGRADER_EXECUTION"] = "autograde"  # as nbgrader's kernel has it
        result = grade(request["submitted"], request["source"])
        with open(answer, "w") as f:
            json.dump(result, f)
        os._exit(0)
    deadline = time.monotonic() + request["timeout"]
    while not os.waitpid(pid, os.WNOHANG)[0]:
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        time.sleep(0.05)
    print(json.dumps(answer), flush=True)
"""


@pytest.fixture(scope="module")
def kernel_server():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = subprocess.Popen(
        [sys.executable, "-c", IN_KERNEL], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip
    yield server
    server.stdin.close()
    server.wait(timeout=30)


@pytest.fixture
def in_kernel(kernel_server, tmp_path):
    """in_kernel(nb) -> {"points": {grade_id: points}, "texts": {...}} of plain in-kernel
    grading of a notebook (a dict, or a path), or {"stopped": why} when it did not finish."""

    def run(nb, source=None, timeout: float = 60, cwd=None) -> dict:
        folder = tmp_path / "in_kernel"
        sub = nb if isinstance(nb, Path) else write(nb, folder, "submitted.ipynb")
        src = write(source or SOURCE_NB, folder, "source.ipynb")
        answer = folder / "answer.json"
        request = {"submitted": str(sub), "source": str(src), "answer": str(answer),
                   "cwd": str(cwd or folder), "timeout": timeout}  # fmt: skip
        kernel_server.stdin.write(json.dumps(request) + "\n")
        kernel_server.stdin.flush()
        kernel_server.stdout.readline()
        if not answer.exists():
            return {"stopped": "the grading kernel died or hung"}
        return json.loads(answer.read_text())

    return run


# -- the sandbox's layers themselves ------------------------------------------------------------


def probe(source: str, limits=LIMITS) -> dict:
    """Run one cell in the sandbox; the cell reports by raising RuntimeError(json)."""
    with Sandbox(limits) as box:
        outcome = box.run({"cells": [{"id": "probe", "kind": "answer", "source": source}],
                           "scenarios": [], "seed": 0, "device": "cpu", "cell_s": 5,
                           "scenario_s": 1})  # fmt: skip
    (report,) = outcome.messages[0]["cells"]
    return json.loads(report["error"]["message"])


@needs_namespace
def test_the_child_sees_no_torch_no_minigrad_no_course_and_a_minimal_environment():
    found = probe(
        "import json, os, importlib\n"
        "out = {'env': sorted(os.environ), 'uid': os.getuid(), 'root': sorted(os.listdir('/'))}\n"
        "for name in ('torch', 'minigrad', 'IPython', 'nbgrader', 'autograder.check',\n"
        "             'coursekit.exercises', 'numpy'):\n"
        "    try:\n"
        "        importlib.import_module(name); out[name] = 'imported'\n"
        "    except ImportError as exc:\n"
        "        out[name] = type(exc).__name__\n"
        f"for path in ({str(REPO)!r}, {str(SOURCE)!r}, '/root', '/home', '/work', '/etc/passwd'):\n"
        "    out[path] = os.path.exists(path)\n"
        "raise RuntimeError(json.dumps(out))"
    )
    assert found["torch"] == found["minigrad"] == "ModuleNotFoundError"
    assert found["IPython"] == found["nbgrader"] == "ModuleNotFoundError"
    assert found["autograder.check"] == found["coursekit.exercises"] == "ModuleNotFoundError"
    assert found["numpy"] == "imported"
    assert not any(found[p] for p in (str(REPO), str(SOURCE), "/root", "/home", "/work"))
    assert not found["/etc/passwd"]
    assert not [k for k in found["env"] if "NBGRADER" in k or "JUPYTER" in k]
    assert set(found["root"]) <= {"bin", "dev", "etc", "lib", "lib64", "opt", "proc", "tmp", "usr"}
    if layer_active("uid"):
        assert found["uid"] != 0


KEY_PROBE = """
import ctypes, json, platform
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
found = {}
# KEYCTL_GET_PERSISTENT (22): the uid's persistent keyring, which outlives all its processes
# for days (linked into this process's keyring to reach it)
persistent = libc.syscall(keyctl, 22, ctypes.c_int(-1), ctypes.c_int(-2))
rings = [("user", -4), ("user_session", -5), ("session", -3)]
for name, ring in rings + ([("persistent", persistent)] if persistent > 0 else []):
    # KEYCTL_SEARCH (10): the key a previous run left, or -1 (not there)
    found[name] = libc.syscall(keyctl, 10, ctypes.c_int(ring), b"user", b"left-by-a-run", 0)
    added = libc.syscall(add_key, b"user", b"left-by-a-run", b"secret", 6, ctypes.c_int(ring))
    found[name + "_added"] = added > 0
raise RuntimeError(json.dumps(found))
"""


@needs_uid
def test_a_key_left_in_the_kernel_keyrings_never_reaches_the_next_run():
    """Sealed runs share a uid slot one after another: the keyrings that outlive a process
    (the uid's user keyrings) are emptied before the next student's code runs."""
    first = probe(KEY_PROBE)
    assert first["user_added"] and first["user_session_added"]  # the probe can leave keys
    second = probe(KEY_PROBE)
    assert second["user"] == second["user_session"] == second["session"] == -1, second
    assert second.get("persistent", -1) == -1, second  # absent where the kernel has none


@needs_uid
def test_a_process_left_by_a_killed_run_is_killed_before_its_slot_serves_again():
    """A sealed run killed with its grader can leave processes of its slot's uid; the slot
    kills them all before the next run (here: a uid no account has, made for this test)."""
    from coursekit.sealed.sandbox import _kill_all_of

    uid = next(u for u in range(2_000_000_000, 2_000_001_000) if not _uid_in_use(u))
    leftover = subprocess.Popen(
        ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "sleep", "60"],
        start_new_session=True,
    )
    try:
        _wait_until_it_runs_as(leftover.pid, uid)  # else the kill may come before its setuid
        _kill_all_of(uid, uid)
        assert leftover.wait(timeout=10) == -9
    finally:
        leftover.kill()
        leftover.wait()


def _wait_until_it_runs_as(pid: int, uid: int) -> None:
    import psutil

    deadline = time.monotonic() + 30
    while psutil.Process(pid).uids().real != uid:
        assert time.monotonic() < deadline, f"process {pid} never ran as uid {uid}"
        time.sleep(0.01)


def _uid_in_use(uid: int) -> bool:
    import pwd

    import psutil

    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return any(p.info["uids"] and uid in p.info["uids"] for p in psutil.process_iter(["uids"]))


@needs_uid
def test_limits_hold_for_harmless_loads():
    """Process, file-size and memory limits, tried with loads that stop on their own."""
    found = probe(
        "import json, os, time\n"
        "out = {}\n"
        "children = []\n"
        "try:\n"
        "    for _ in range(64):\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        "            time.sleep(1); os._exit(0)\n"
        "        children.append(pid)\n"
        "except OSError as exc:\n"
        "    out['fork'] = type(exc).__name__\n"
        "out['forked'] = len(children)\n"
        "for pid in children: os.waitpid(pid, 0)\n"
        "try:\n"
        "    open('/tmp/big', 'wb').write(b'x' * (6 << 20))\n"
        "except OSError as exc:\n"
        "    out['fsize'] = exc.errno\n"
        "try:\n"
        "    block = bytearray(1 << 30)\n"
        "except MemoryError:\n"
        "    out['memory'] = 'MemoryError'\n"
        "raise RuntimeError(json.dumps(out))"
    )
    assert found["fork"] == "BlockingIOError" and found["forked"] < LIMITS.processes
    assert found["fsize"] == 27  # EFBIG: RLIMIT_FSIZE
    assert found["memory"] == "MemoryError"


def test_reference_answer_full_marks_and_stub_zero(contract, tmp_path):
    honest = grade(contract, write(submission(), tmp_path / "a"))
    assert points(honest) == FULL_CPU
    assert honest.cells["test_cuda_leaf_nodes"].feedback == NOT_RUN_NO_GPU
    stub = grade(contract, write(submission(STUBS), tmp_path / "b"))
    assert_no_false_credit(stub)
    assert "NotImplementedError" in stub.cells["test_L3"].feedback


ASSIGNMENTS = sorted(p.name for p in (REPO / "solutions").iterdir() if p.is_dir())


def _source_with_test_meta(meta_of_first_test) -> dict:
    nb = copy.deepcopy(SOURCE_NB)
    first = next(c for c in nb["cells"] if _meta(c).get("grade") and not _meta(c).get("solution"))
    first["metadata"].pop("minigrad", None)
    if meta_of_first_test is not None:
        first["metadata"]["minigrad"] = meta_of_first_test
    return nb


def test_the_contract_reads_each_test_cells_check_from_metadata_never_its_code():
    plain = sealed.Contract.from_json(copy.deepcopy(SOURCE_NB), "leaf_nodes")
    assert plain.tests[0].checks == (
        sealed.contract.Check(("L3",), ("leaf",), "cpu", "leaf_nodes"),
    )
    # The hidden code still says grade(globals(), "leaf_nodes", ["L3"]); without metadata it is
    # not read, so the instructor hears that the cell cannot be graded sealed.
    with pytest.raises(sealed.ContractError, match="states no check in its metadata"):
        sealed.Contract.from_json(_source_with_test_meta(None), "leaf_nodes")
    bad = [
        {"checks": [{"topic": "leaf", "rules": ["L99"]}]},
        {"checks": [{"topic": "nowhere", "rules": ["L1"]}]},
        {"checks": [{"topic": "leaf", "rules": ["L1"], "device": "tpu"}]},
        {"checks": [{"topic": "leaf", "rules": ["L1"], "extra": 1}]},
        {"checks": ["leaf"]},
    ]
    for meta in bad:
        with pytest.raises(sealed.ContractError, match="malformed"):
            sealed.Contract.from_json(_source_with_test_meta(meta), "leaf_nodes")
    other = {"checks": [{"topics": ["leaf", "numpy"], "rules": ["L3", "D1"], "device": "cuda"}]}
    stated = sealed.Contract.from_json(_source_with_test_meta(other), "leaf_nodes")
    assert stated.tests[0].checks == (
        sealed.contract.Check(("L3", "D1"), ("leaf", "numpy"), "cuda"),
    )


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_assignment_grades_sealed_reference_full_cpu_marks_stub_zero(name):
    """The sealed environment (NumPy, no IPython) suffices for every assignment."""
    contract = sealed.Contract.from_notebook(REPO / "solutions" / name / f"{name}.ipynb")
    reference = grade(contract, REPO / "solutions" / name / f"{name}.ipynb")
    for grade_id, cell in reference.cells.items():
        expected = 0.0 if "cuda" in grade_id else cell.max_points
        assert cell.points == expected, cell.feedback
    assert not [n for n in reference.notes if "DEGRADED" not in n]
    stub = grade(contract, REPO / "exercises" / name / f"{name}.ipynb")
    assert stub.score == 0


def test_no_precomputed_answer_fits_every_graded_scenario_changes_with_the_seed():
    """A submission replaying PyTorch's observations recorded at home (where torch is
    installed) would need them for the seed the grader draws: none repeats across seeds."""
    import torch

    import autograder

    for name in ASSIGNMENTS:
        contract = sealed.Contract.from_notebook(REPO / "solutions" / name / f"{name}.ipynb")
        ids = sorted({sid for t in contract.tests for c in t.checks for sid in c.scenario_ids()
                      if t.device == "cpu"})  # fmt: skip
        one, two = (autograder.observe(torch, ids, seed=s)["scenarios"] for s in (1, 2))
        fixed = [sid for sid in ids if one[sid]["observations"] == two[sid]["observations"]]
        assert not fixed, f"{name}: scenarios whose observations ignore the seed: {fixed}"


def test_a_fresh_seed_is_drawn_and_recorded(contract, tmp_path):
    path = write(submission(), tmp_path / "a")
    first, second = grade(contract, path, seed=None), grade(contract, path, seed=None)
    assert first.seed != second.seed
    again = grade(contract, path, seed=first.seed)
    assert again.seed == first.seed and points(again) == points(first) == FULL_CPU


# -- the threats ---------------------------------------------------------------------------------

PATCH_EVERYTHING = """
import builtins, numpy
builtins.abs = lambda x: 0
numpy.allclose = lambda *a, **k: True
try:
    import torch
    torch.allclose = lambda *a, **k: True
    torch.Tensor.__eq__ = lambda self, other: True
except ImportError:
    pass
try:
    import importlib
    checking = importlib.import_module("autograder.check")
    checking.compare = lambda ref, eng: {sid: [] for sid in ref["scenarios"]}
    importlib.import_module("autograder.compare").compare_scenario = lambda *a, **k: []
except ImportError:
    pass
"""


def test_1_monkeypatching_builtins_numpy_torch_and_the_autograder(contract, tmp_path, in_kernel):
    cheat = submission(STUBS, before={FIRST: PATCH_EVERYTHING})
    plain = in_kernel(cheat)
    assert plain["points"] == {**CPU_POINTS, "test_cuda_leaf_nodes": 0.0}  # fooled
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result)
    assert "NotImplementedError" in result.cells["test_L8"].feedback
    assert_next_student_graded(contract, tmp_path)


BLANK_LATER_CELLS = """
try:
    get_ipython().input_transformers_cleanup.append(lambda lines: ["pass\\n"])
except NameError:
    pass
"""
HIDE_FAILURES = """
try:
    get_ipython().showtraceback = lambda *args, **kwargs: None
except NameError:
    pass
"""


@pytest.mark.parametrize("hook", [BLANK_LATER_CELLS, HIDE_FAILURES], ids=["input", "traceback"])
def test_2_ipython_input_transformers_and_error_display_hooks(contract, tmp_path, hook, in_kernel):
    cheat = submission(STUBS, before={FIRST: hook})
    plain = in_kernel(cheat)
    assert plain["points"]["test_L8"] == 8.0 and plain["points"]["test_L3"] == 5.0  # fooled
    if hook is BLANK_LATER_CELLS:  # even the CUDA cell passes: it never ran
        assert plain["points"]["test_cuda_leaf_nodes"] == CUDA_POINTS
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result)
    assert_next_student_graded(contract, tmp_path)


ALWAYS_EQUAL = """
class Yes:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __bool__(self): return True
    def tolist(self): return self
    def __getattr__(self, name): return self
    def __call__(self, *args, **kwargs): return self
"""
WRONG_GRADS = """
def accumulate_grad(tensor, grad, version=None, retained=False):
    if tensor._grad is None:
        tensor._grad = Yes()  # no gradient at all, but equal to every expected one
"""


def test_3_objects_whose_comparisons_always_succeed(contract, tmp_path, in_kernel):
    cheat = submission(before={SECOND: ALWAYS_EQUAL}, after={SECOND: WRONG_GRADS})
    # the hand-written asserts of L8's visible test are fooled by Yes(); its visible check
    # (check_rule: the scenarios against PyTorch) is not
    release = json.loads(RELEASE.read_text())
    asserts_only = _cut(release, lambda c: VISIBLE_CHECK.sub("", HIDDEN.sub("", _text(c))))
    assert in_kernel(cheat, source=asserts_only)["points"]["test_L8"] == 8.0  # fooled
    visible = _cut(release, lambda c: HIDDEN.sub("", _text(c)))
    assert in_kernel(cheat, source=visible)["points"]["test_L8"] == 0.0
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result, ONLY_L3)  # read_grad was answered right
    assert "[leaf.gradients_accumulate] failed" in result.cells["test_L8"].feedback
    assert_next_student_graded(contract, tmp_path)


def _fake_course(root: Path) -> dict[str, Path]:
    """An instructor's course: solutions, a gradebook, another student's submission."""
    files = {
        "source": root / "source" / "leaf_nodes" / "leaf_nodes.ipynb",
        "gradebook": root / "gradebook.db",
        "other": root / "submitted" / "bob" / "leaf_nodes" / "leaf_nodes.ipynb",
    }
    files["source"].parent.mkdir(parents=True)
    files["source"].write_text(json.dumps(SOURCE_NB).replace("BEGIN SOLUTION", SECRET))
    files["other"].parent.mkdir(parents=True)
    files["other"].write_text(json.dumps({"bob": SECRET}))
    with sqlite3.connect(files["gradebook"]) as db:
        db.execute("create table grade (student text, score real)")
        db.execute("insert into grade values ('alice', 0), ('bob', 8)")
    return files


def _digest(files) -> dict[str, str]:
    return {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in files.items()}


def _reader(files, relative_root: str) -> str:
    paths = (
        [str(p) for p in files.values()]
        + [f"{relative_root}/{p.relative_to(files['gradebook'].parent)}" for p in files.values()]
        + [str(SOURCE), str(REPO / "coursekit" / "exercises" / "parts" / "leaf_nodes.py")]
    )
    return f"""
import sqlite3
found = []
for path in {paths!r}:
    try:
        found.append(open(path, errors="replace").read()[:3000])
    except OSError:
        pass
for path in {[str(files["gradebook"]), f"{relative_root}/gradebook.db"]!r}:
    try:
        with sqlite3.connect(path) as db:
            db.execute("update grade set score = 100 where student = 'alice'")
    except Exception:
        pass
for path in {[str(files["other"])]!r}:
    try:
        open(path, "a").write("overwritten")
    except OSError:
        pass
if found:
    raise RuntimeError("LEAKED " + " ".join(found))
"""


@needs_namespace
def test_4_reading_solutions_gradebook_other_students_and_writing_grades(
    contract, tmp_path, in_kernel
):
    files = _fake_course(tmp_path / "course")
    before = _digest(files)
    kernel_dir = tmp_path / "course" / "autograded" / "alice" / "leaf_nodes"
    kernel_dir.mkdir(parents=True)
    cheat = submission(after={LAST: _reader(files, "../../..")})
    plain = in_kernel(cheat, cwd=kernel_dir)
    assert SECRET in plain["texts"]["all"] and "BEGIN HIDDEN TESTS" in plain["texts"]["all"]
    assert _digest(files) != before  # the gradebook and bob's work were changed
    files = _fake_course(tmp_path / "course2")
    before = _digest(files)
    cheat = submission(after={LAST: _reader(files, "../../..")})
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert SECRET not in everything(result) and "HIDDEN" not in everything(result)
    assert "BEGIN SOLUTION" not in everything(result)
    assert _digest(files) == before
    assert points(result) == FULL_CPU  # nothing found, so the answer ran on: earned marks
    assert_next_student_graded(contract, tmp_path)


FORK_BOMB = """
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
"""
DISK_FILL = """
written = 0
for i in range(10_000):
    for folder in ("/tmp", "/opt/sealed", "/", "/dev/shm"):
        try:
            with open(f"{folder}/fill{i}", "wb") as f:
                f.write(b"x" * (1 << 20))
            written += 1 << 20
        except OSError:
            pass
raise RuntimeError(f"wrote {written} bytes")
"""
THREATS_5 = {
    "loop": ("while True:\n    pass\n", "ran longer than"),
    "memory": ("hog = [bytearray(64 << 20) for _ in range(10_000)]\n", "MemoryError"),
    "fork": (FORK_BOMB, "ran longer than"),
    "output": ("import sys\nwhile True:\n    sys.stdout.write('x' * 1_000_000)\n", "ran longer"),
}


@needs_uid
@pytest.mark.parametrize("kind", list(THREATS_5))
def test_5_loop_memory_fork_bomb_and_huge_output_stop_only_their_author(
    contract, tmp_path, kind, in_kernel
):
    code, note = THREATS_5[kind]
    cheat = submission(before={FIRST: code})
    if kind == "loop":  # harmless in-kernel: the plain grader hangs on it
        assert "stopped" in in_kernel(cheat, timeout=8)
    limits = LIMITS if kind != "fork" else sealed.Limits(**{**vars(LIMITS), "wall_s": 6})
    result = grade(contract, write(cheat, tmp_path / "cheat"), limits=limits)
    # the fork bomb runs again in L8's run too and leaves no process to grade with
    assert_no_false_credit(result, ZERO if kind == "fork" else ONLY_L8)
    assert any(note in n for n in result.notes), result.notes
    if kind == "fork":  # its processes took all the uid's slots: no scenario could start
        assert "Resource temporarily unavailable" in result.cells["test_L8"].feedback
    assert len(everything(result)) < 200_000
    assert_next_student_graded(contract, tmp_path)


@needs_uid
def test_5_filling_the_disk_is_stopped_at_the_sandbox_limits(contract, tmp_path):
    cheat = submission(after={LAST: DISK_FILL})
    with Sandbox(LIMITS) as box:  # what it wrote, as it says (feedback never repeats it)
        outcome = box.run({"cells": [{"id": LAST, "kind": "answer", "source": DISK_FILL}],
                           "scenarios": [], "seed": 0, "device": "cpu", "cell_s": 10,
                           "scenario_s": 1})  # fmt: skip
    (report,) = outcome.messages[0]["cells"]
    written = int(re.search(r"wrote (\d+) bytes", report["error"]["message"]).group(1))
    assert written <= LIMITS.tmp_bytes  # the 8 MiB /tmp, nothing else writable
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert LAST in result.answer_errors
    assert points(result) == FULL_CPU  # the answer itself was right
    assert_next_student_graded(contract, tmp_path)


KILLERS = {
    "exit": "import os\nos._exit(3)\n",
    "segfault": "import ctypes\nctypes.string_at(0)\n",
}


@pytest.mark.parametrize("kind", list(KILLERS))
def test_6_killing_the_process_while_defining(contract, tmp_path, kind, in_kernel):
    cheat = submission(before={FIRST: KILLERS[kind]})
    assert "stopped" in in_kernel(cheat)  # plain: the kernel dies, nothing graded
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result)
    expected = "exit status 3" if kind == "exit" else "SIGSEGV"
    assert any(expected in n for n in result.notes), result.notes
    assert_next_student_graded(contract, tmp_path)


def test_6_killing_the_process_inside_one_scenario_costs_that_scenario_only(contract, tmp_path):
    killer = "def read_grad(tensor):\n    import ctypes\n    ctypes.string_at(0)\n"
    result = grade(contract, write(submission(after={LAST: killer}), tmp_path / "cheat"))
    assert_no_false_credit(result, ONLY_L8)  # L8's run uses the engine's read_grad
    feedback = result.cells["test_L3"].feedback
    assert "[leaf.grad_only_on_leaves_that_require_grad] failed" in feedback  # reads .grad
    assert "fresh process died" in feedback


def _edit(nb: dict, fn) -> dict:
    nb = copy.deepcopy(nb)
    fn(nb["cells"])
    return nb


def _index(cells, grade_id: str) -> int:
    return next(i for i, c in enumerate(cells) if _meta(c).get("grade_id") == grade_id)


def _duplicate_with_wrong_copy_before(cells):
    """The last copy is graded, as running the notebook defines it last."""
    wrong = copy.deepcopy(cells[_index(cells, SECOND)])
    wrong["source"] = STUBS[SECOND]
    cells.insert(_index(cells, SECOND), wrong)


def _delete(cells):
    del cells[_index(cells, SECOND)]


def _retype(cells):
    cells[_index(cells, SECOND)].update(cell_type="markdown")
    cells[_index(cells, SECOND)].pop("outputs", None)
    cells[_index(cells, SECOND)].pop("execution_count", None)


def _answers_last(cells):
    answers = [c for c in cells if _meta(c).get("solution")]
    cells[:] = [c for c in cells if not _meta(c).get("solution")] + answers[::-1]


def _strip_metadata(cells):
    for cell in cells:
        cell["metadata"] = {}


CELL_EDITS = {
    "duplicated": (_duplicate_with_wrong_copy_before, FULL_CPU, "appears 2 times"),
    "deleted": (_delete, ONLY_L3, "missing from the submission"),
    "retyped": (_retype, ONLY_L3, "changed into a markdown cell"),
    "reordered": (_answers_last, FULL_CPU, "reordered"),
    "stripped": (_strip_metadata, FULL_CPU, "lost its nbgrader metadata"),
}


@pytest.mark.parametrize("kind", list(CELL_EDITS))
def test_7_duplicated_deleted_retyped_reordered_cells_and_stripped_metadata(
    contract, tmp_path, kind, in_kernel
):
    edit, expected, note = CELL_EDITS[kind]
    broken = _edit(submission(), edit)
    if kind in ("reordered", "stripped"):  # plain grading misgrades these: no credit at all
        plain = in_kernel(broken)
        assert not any(plain.get("points", {}).values())
    result = grade(contract, write(broken, tmp_path / "broken"))
    assert points(result) == expected
    assert any(note in n for n in result.notes), result.notes
    assert_next_student_graded(contract, tmp_path)


def test_7_the_copy_the_repair_keeps_is_the_copy_graded(contract, tmp_path):
    """The class pipeline repairs a submission before its sealed run: of a duplicated answer
    cell, repair keeps the last copy's metadata and says that copy is graded. The sealed run
    grades that one, not the earlier copy it could still find by its cell id."""
    from coursekit.classroom.grading.repair import repair_submission

    def stub_copy_after(cells):
        right = cells[_index(cells, SECOND)]
        cells.insert(_index(cells, SECOND) + 1, {**copy.deepcopy(right), "source": STUBS[SECOND]})

    write(_edit(submission(), stub_copy_after), tmp_path / "submitted")
    released = {"leaf_nodes": write(RELEASE_NB, tmp_path / "release")}
    repair = repair_submission(tmp_path / "submitted", tmp_path / "repaired", released)
    assert any("the last copy is graded" in n for n in repair.notes), repair.notes
    result = grade(contract, tmp_path / "repaired" / "leaf_nodes.ipynb")
    assert points(result) != FULL_CPU  # the last copy is the stub
    assert not any("appears 2 times" in n for n in result.notes), result.notes


def test_7_renamed_notebook_and_invalid_json(contract, tmp_path, in_kernel):
    renamed = grade(contract, write(submission(), tmp_path / "a", "leaf_nodes (1).ipynb"))
    assert points(renamed) == FULL_CPU
    assert any("leaf_nodes (1).ipynb" in n for n in renamed.notes)
    broken = tmp_path / "b" / "leaf_nodes.ipynb"
    broken.parent.mkdir()
    broken.write_text(json.dumps(submission())[:-200])
    assert "stopped" in in_kernel(broken)  # plain: the grader fails on the file
    result = grade(contract, broken)
    assert points(result) == ZERO
    assert any("could not be read" in n for n in result.notes)
    assert_next_student_graded(contract, tmp_path)


USE_THE_REFERENCE = {
    # PyTorch's own autograd does the work: torch does not exist in the sealed run
    "torch": "import torch\n",
    # the engine's reference answers, imported by name over the stubs
    "minigrad": "from minigrad.seams.leaf_nodes import accumulate_grad, read_grad, "
    "retain_grad, set_grad\n",
}


@needs_namespace
@pytest.mark.parametrize("library", list(USE_THE_REFERENCE))
def test_8_an_answer_that_imports_torch_or_the_reference(contract, tmp_path, library, in_kernel):
    cheat = submission(STUBS, after={LAST: USE_THE_REFERENCE[library]})
    if library == "minigrad":  # in a self-paced copy the reference is there to import
        plain = in_kernel(cheat)
        assert plain["points"]["test_L8"] == 8.0 and plain["points"]["test_L3"] == 5.0
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    # the sealed engine holds stubs for exactly the functions each run grades
    assert_no_false_credit(result)
    if library == "torch":
        assert any("No module named 'torch'" in n for n in result.notes), result.notes
    assert_next_student_graded(contract, tmp_path)


DETECT_THE_GRADER = (
    "import os\n"
    "if os.environ.get('NBGRADER_EXECUTION') or os.path.exists('/opt/sealed'):\n"
    + "\n".join("    " + line for line in PATCH_EVERYTHING.strip().splitlines())
    + "\n"
)


def test_9_code_that_behaves_differently_under_the_grader(contract, tmp_path, in_kernel):
    cheat = submission(STUBS, before={FIRST: DETECT_THE_GRADER})
    plain = in_kernel(cheat)
    assert plain["points"]["test_L8"] == 8.0  # fooled: it knew it was graded
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result)
    assert_next_student_graded(contract, tmp_path)


QUOTE_THE_CALLER = """
def read_grad(tensor):
    import linecache, sys
    frame = sys._getframe()
    while frame is not None:
        print("".join(linecache.getlines(frame.f_code.co_filename)))
        raise_with = "".join(linecache.getlines(frame.f_code.co_filename))
        frame = frame.f_back
    raise RuntimeError(raise_with)
"""


def test_10_hidden_test_source_never_reaches_feedback(contract, tmp_path, in_kernel):
    cheat = submission(after={FIRST: QUOTE_THE_CALLER})
    plain = in_kernel(cheat)
    assert "BEGIN HIDDEN TESTS" in plain["texts"]["test_L3"]  # leaked, quoted by the student
    assert 'grade(globals(), "leaf_nodes"' in plain["texts"]["test_L3"]  # and by the traceback
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result, ONLY_L8)
    graded = seal_outputs(nbformat.from_dict(copy.deepcopy(SOURCE_NB)), result)
    outputs = json.dumps([c.get("outputs", []) for c in graded.cells])
    for text in (everything(result), outputs):
        assert "HIDDEN TESTS" not in text and "grade(globals()" not in text
    assert "RuntimeError" in result.cells["test_L3"].feedback  # the student still sees why


PASS_WHAT_DID_NOT_RUN = """
try:
    import importlib
    _check = importlib.import_module("autograder.check")
    _original = _check._result
    _check._result = lambda sc, status, *a, **k: _original(
        sc, "passed" if status == "not run" else status, *a, **k)
except ImportError:
    pass
class _FakeCuda:
    @staticmethod
    def is_available():
        return True
cuda_is_available = _FakeCuda.is_available
"""


def test_11_a_cuda_check_without_a_gpu_is_never_a_pass(contract, tmp_path, in_kernel):
    cheat = submission(before={FIRST: PASS_WHAT_DID_NOT_RUN})
    plain = in_kernel(cheat)
    assert plain["points"]["test_cuda_leaf_nodes"] == CUDA_POINTS  # fooled
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert points(result) == FULL_CPU
    assert result.cells["test_cuda_leaf_nodes"].status == "not run"
    assert result.cells["test_cuda_leaf_nodes"].verdict == NOT_RUN_NO_GPU
    assert_next_student_graded(contract, tmp_path)


# -- through nbgrader -------------------------------------------------------------------------


def test_write_scores_overrides_the_in_kernel_scores_in_nbgraders_gradebook(
    contract, tmp_path, monkeypatch
):
    from nbgrader.api import Gradebook

    # nbgrader runs `alembic` by name to create a gradebook
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    no_warning = "def read_grad(tensor):\n    return tensor._grad\n"  # an L3 bug only
    result = grade(contract, write(submission(after={LAST: no_warning}), tmp_path / "a"))
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gb:
        gb.add_assignment("leaf_nodes")
        gb.add_notebook("leaf_nodes", "leaf_nodes")
        for test in contract.tests:
            gb.add_grade_cell(test.grade_id, "leaf_nodes", "leaf_nodes", max_score=test.points,
                              cell_type="code")  # fmt: skip
        gb.add_student("alice")
        gb.add_submission("leaf_nodes", "alice")
        for test in contract.tests:  # what a fooled in-kernel run recorded: full marks
            gb.find_grade(
                test.grade_id, "leaf_nodes", "leaf_nodes", "alice"
            ).auto_score = test.points
        gb.db.commit()
        write_scores(gb, "leaf_nodes", "alice", result)
    with Gradebook(url) as gb:
        scores = {
            g.name: g.score for g in gb.find_submission_notebook("leaf_nodes", "leaf_nodes",
                                                                  "alice").grades
        }  # fmt: skip
    assert scores == {"test_L8": 8.0, "test_L3": 0.0, "test_cuda_leaf_nodes": 0.0}


def test_nbgrader_autograde_with_sealed_execute_grades_a_class_without_a_kernel(
    tmp_path, monkeypatch
):
    """SealedExecute in place of nbgrader's Execute: nbgrader's own autograde records the
    sealed scores in its gradebook, and the graded notebooks carry verdicts, no hidden test."""
    from nbgrader.api import Gradebook
    from nbgrader.apps.api import NbGraderAPI
    from traitlets.config import Config

    from coursekit.sealed.nbgrader_steps import autograde_steps

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    write(SOURCE_NB, tmp_path / "source" / "leaf_nodes")
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    config.Autograde.autograde_preprocessors = autograde_steps()
    config.SealedExecute.seed = SEED
    api = NbGraderAPI(config=config)
    assert api.generate_assignment("leaf_nodes")["success"]
    class_ = {
        "alice": submission(),
        "mallory": submission(STUBS, before={FIRST: PATCH_EVERYTHING + BLANK_LATER_CELLS}),
        "oscar": submission(before={FIRST: KILLERS["exit"]}),
    }
    for student, nb in class_.items():
        write(nb, tmp_path / "submitted" / student / "leaf_nodes")
    outcome = api.autograde("leaf_nodes", "*")
    assert outcome["success"], outcome["log"]
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        scores = {
            student: {
                g.name: g.score
                for g in gb.find_submission_notebook("leaf_nodes", "leaf_nodes", student).grades
            }
            for student in class_
        }
    assert scores == {"alice": FULL_CPU, "mallory": ZERO, "oscar": ZERO}
    for student in class_:
        graded = tmp_path / "autograded" / student / "leaf_nodes" / "leaf_nodes.ipynb"
        outputs = json.dumps(
            [c.get("outputs", []) for c in json.loads(graded.read_text())["cells"]]
        )
        assert "grade(globals()" not in outputs and "HIDDEN TESTS" not in outputs
        assert "seed 20240611" in outputs or student != "alice"


def _stage_in_a_child(sending) -> None:
    from coursekit.sealed import sandbox

    sandbox.staged_root.cache_clear()  # a fresh grading process stages its own
    sending.send(str(sandbox.staged_root()))


def test_a_grading_process_removes_the_folder_it_staged():
    """Grading processes are multiprocessing's children, which leave by os._exit (no atexit):
    each once left a minigrad-sealed-* folder in /tmp."""
    import multiprocessing

    context = multiprocessing.get_context("forkserver")  # as the supervisor starts them
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_stage_in_a_child, args=(sending,))
    child.start()
    staged = Path(receiving.recv())
    child.join(60)
    assert child.exitcode == 0
    assert staged.name.startswith("minigrad-sealed-") and not staged.exists()


# -- round 3 (issue 30): the answer key, what reaches feedback, isolation on a student's word --

READ_THE_STAGED_ENGINE = r"""
import glob, json, marshal, os
def _names(code, found):
    found.update(code.co_names + code.co_varnames)
    for const in code.co_consts:
        if isinstance(const, str):
            found.add(const)
        elif hasattr(const, "co_code"):
            _names(const, found)
    return found
_dump = {}
for _path in glob.glob("/opt/sealed/engine/minigrad/seams/*.pyc"):
    with open(_path, "rb") as _file:
        _code = marshal.loads(_file.read()[16:])
    _dump[os.path.basename(_path)[:-4]] = sorted(_names(_code, set()))
_found = {k: [n for n in v if n in LOOK_FOR] + [len(v)] for k, v in _dump.items()}
raise RuntimeError(json.dumps(_found))
"""


def _code_names(source: str) -> set[str]:
    found, codes = set(), [compile(source, "seam", "exec")]
    while codes:
        code = codes.pop()
        found.update(code.co_names + code.co_varnames)
        found.update(c for c in code.co_consts if isinstance(c, str))
        codes += [c for c in code.co_consts if hasattr(c, "co_code")]
    return found


def _reference_only(assignment: str) -> set[str]:
    """Names and strings of the assignment's reference answers that its stubs lack."""
    from coursekit.edition import seam_source, stubbed

    source = seam_source(assignment)
    return _code_names(source) - _code_names(stubbed(source, assignment))


@needs_namespace
def test_12_an_answer_reading_the_staged_engine_finds_no_later_assignments_answer(
    contract, tmp_path
):
    """The engine a leaf_nodes group runs beside holds the later assignments as the class
    edition has them (stubs, stand-ins); and what the answer raises never reaches feedback."""
    from coursekit.sealed.sandbox import staged_engine
    from minigrad.seams import ASSIGNMENTS as ORDER

    answers = {later: _reference_only(later) for later in ORDER[1:]}
    look_for = f"LOOK_FOR = {sorted(set().union(*answers.values()))!r}\n"
    with Sandbox(LIMITS, engine=staged_engine("leaf_nodes", ("read_grad",))) as box:
        outcome = box.run({"cells": [{"id": "probe", "kind": "answer",
                                      "source": look_for + READ_THE_STAGED_ENGINE}],
                           "scenarios": [], "seed": 0, "device": "cpu", "cell_s": 5,
                           "scenario_s": 1})  # fmt: skip
    (report,) = outcome.messages[0]["cells"]
    dump = json.loads(report["error"]["message"])
    for later in ORDER[1:]:
        *found, names = dump[later]
        assert answers[later] and names > 10, later  # the probe reads the file; there is a key
        assert not answers[later] & set(found), (later, sorted(answers[later] & set(found)))
    # the same answer graded: whatever it read, its feedback quotes none of it
    cheat = submission(after={LAST: "LOOK_FOR = ()\n" + READ_THE_STAGED_ENGINE})
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    graded = seal_outputs(nbformat.from_dict(copy.deepcopy(cheat)), result)
    shown = everything(result) + json.dumps([c.get("outputs", []) for c in graded.cells])
    assert f"answer cell {LAST} raised RuntimeError" in shown
    assert '"detach_numpy": [' not in shown.replace("\\", "")  # what it raised


PRINT_AND_RAISE = """
import sys
import time
print("PRINTED-SECRET" * 1000)
print("PRINTED-SECRET" * 1000, file=sys.stderr)
class CLASS_NAMED_SECRET(Exception):
    pass
def read_grad(tensor):
    raise RuntimeError("ENGINE-SECRET" + "z" * 100000)
raise CLASS_NAMED_SECRET("RAISED-SECRET" + "y" * 200000)
"""


def test_13_what_an_answer_prints_or_raises_reaches_feedback_only_as_a_capped_comparison(
    contract, tmp_path
):
    cheat = submission(after={FIRST: PRINT_AND_RAISE})
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result, ONLY_L8)
    graded = seal_outputs(nbformat.from_dict(copy.deepcopy(cheat)), result)
    outputs = json.dumps([c.get("outputs", []) for c in graded.cells])
    for text in (everything(result), outputs):
        for secret in ("PRINTED-SECRET", "CLASS_NAMED_SECRET", "RAISED-SECRET", "y" * 50):
            assert secret not in text
        assert "z" * 301 not in text  # theirs, in the comparison, cut
    assert "ENGINE-SECRET" in result.cells["test_L3"].feedback  # their side of the comparison
    assert any("a class of its own" in n for n in result.notes), result.notes
    assert_next_student_graded(contract, tmp_path)


SAY_ISOLATION_FAILED = """
import json, os
for _fd in range(3, 64):
    try:
        os.write(_fd, json.dumps({"isolation_failed": "said by the student"}).encode() + b"\\n")
    except OSError:
        pass
"""


@needs_namespace
def test_14_a_group_that_says_isolation_failed_changes_nothing_for_later_submissions(
    contract, tmp_path, monkeypatch
):
    from coursekit.sealed import grade as sealed_grade

    monkeypatch.setattr(sealed_grade, "_SHARING_REFUSED", [])
    alone = []
    monkeypatch.setattr(
        sealed_grade.Sandbox, "run", lambda self, request: alone.append(request) or pytest.fail()
    )
    cheat = submission(after={FIRST: SAY_ISOLATION_FAILED})
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert points(result) == FULL_CPU, everything(result)
    assert sealed_grade._SHARING_REFUSED == [] and not alone


SAY_NOT_BUILT_YET = """
class _Later(Exception):
    waiting_for = "devices"  # as the engine's stubs of a later assignment say it
def read_grad(tensor):
    if tensor._grad is None and tensor.grad_fn is not None and not tensor._retains_grad:
        raise _Later("read_grad() is not built yet")  # the warning it should give: skipped
    return tensor._grad
"""


def test_15_an_answer_that_says_a_later_assignment_is_missing_earns_nothing_by_it(
    contract, tmp_path
):
    """A scenario that stops at a later assignment's stub waits (as Validate has it) only
    where the course's own functions stop there too, after the same observations."""
    cheat = submission(after={FIRST: SAY_NOT_BUILT_YET})
    result = grade(contract, write(cheat, tmp_path / "cheat"))
    assert_no_false_credit(result, ONLY_L8)
    assert_next_student_graded(contract, tmp_path)


HUGE_CELL = "x = 1\n" * 1_000_000


def test_16_one_huge_cell_is_cut_for_display_and_holds_up_no_other_page(tmp_path):
    """An answer cell of 1,000,000 lines: its page shows the first lines and says what was
    cut (highlighting all of it took 12 minutes and 5.6 GB); the class's other pages as
    usual."""
    from test_pipeline import answered, hand_in, run, toy_solutions

    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    for student in ("huge", "good"):
        hand_in(course, student, answered(course))
    run("grade", "-C", course, "-j", "1")
    # the graded copy as a 1,000,000-line answer leaves it (the sealed run grades that fine;
    # the toy class's in-kernel grading would take minutes over it)
    graded = course / "autograded" / "huge" / "toy" / "toy.ipynb"
    nb = nbformat.read(graded, as_version=4)
    nb.cells[2].source = HUGE_CELL + nb.cells[2].source
    nbformat.write(nb, graded)
    run("feedback", "-C", course, "-j", "1")
    huge, good = ((course / "feedback" / s / "toy" / "toy.html").read_text() for s in
                  ("huge", "good"))  # fmt: skip
    assert "this cell cut here for display: 999,002 more lines" in huge
    assert len(huge) < 1_000_000  # the first 1,000 lines
    assert "cut here" not in good and '<span class="nf">add</span>' in good


def test_17_the_report_shows_a_submissions_notes_within_its_budget():
    """A stored run with thousands of long notes (a regrade, another tool's run): the
    report lists the first few, each cut, and says how many more there were."""
    from coursekit.classroom.results.report import NOTE_CHARS, NOTES_PER_SUBMISSION, _shown

    shown = _shown([f"note {i}: " + "n" * 100_000 for i in range(5_000)])
    assert len(shown) == NOTES_PER_SUBMISSION + 1 and shown[-1] == "... and 4990 more notes"
    assert all(len(note) <= NOTE_CHARS + 4 for note in shown) and shown[0].startswith("note 0")


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_where_the_course_order_stops_a_scenario_does_not_depend_on_the_seed(name, monkeypatch):
    """A sealed run works out once, on one seed, where the course's own functions stop at a
    later assignment's stub; a student's run on another seed is held to that."""
    from coursekit.sealed import grade as sealed_grade

    contract = sealed.Contract.from_notebook(REPO / "solutions" / name / f"{name}.ipynb")
    ids = tuple(sorted({sid for t in contract.tests if t.device == "cpu" for c in t.checks
                        for sid in c.scenario_ids()}))  # fmt: skip
    seen = []
    for seed in (sealed_grade.COURSE_ORDER_SEED, 1, SEED):
        monkeypatch.setattr(sealed_grade, "COURSE_ORDER_SEED", seed)
        sealed_grade.course_order_waits.cache_clear()
        seen.append(sealed_grade.course_order_waits(name, ids, "cpu"))
    sealed_grade.course_order_waits.cache_clear()
    assert seen[0] == seen[1] == seen[2]
    assert seen[0] or name != "leaf_nodes"  # the first assignment's checks reach 3 and 5
