"""`make gpu-check` (bench/gpu): without a GPU it says so and writes its JSON; its
comparisons, run on the CPU (the dry run), pass on minigrad and fail on a planted bug."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad
from bench.gpu import catalogue, lectures, sealed, speed
from bench.timing import measure
from coursekit.exercises.planted import BUGS
from coursekit.planted import Bug, planted_engine

ROOT = Path(__file__).resolve().parent.parent
PARTS = {"catalogue", "bench", "lectures", "sealed"}
SEED = 11


def gpu_here() -> bool:
    import torch

    return torch.cuda.is_available() and minigrad.cuda.is_available()


@pytest.mark.skipif(gpu_here(), reason="a GPU is here: make gpu-check runs everything")
def test_make_gpu_check_without_a_gpu_says_so_and_writes_its_json(tmp_path):
    out = tmp_path / "gpu.json"
    done = subprocess.run(
        ["make", "-s", "gpu-check", f"GPU_CHECK_JSON={out}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("gpu-check: no GPU here (torch.cuda.is_available() False"), last
    data = json.loads(out.read_text())
    assert data["schema"] == "minigrad gpu-check 1"
    assert (data["mode"], data["device"], data["passed"]) == ("no gpu", "cpu", False)
    assert data["summary"] == last
    assert set(data["parts"]) == PARTS
    assert all(p["status"].startswith("not run: no GPU here (") for p in data["parts"].values())
    env = data["environment"]
    assert env["torch_sees_gpu"] is False and env["gpu"] is None
    assert env["reference_version"] == "2.13" and env["texts_strict"] is True
    assert {"python", "numpy", "torch", "cupy", "missing"} <= set(env)


# A lent GPU machine has Python, NumPy, PyTorch (with what pip installs beside it) and CuPy:
# no nbformat, no Jupyter, none of the course's other dependencies. This makes the check's own
# interpreter, and the lecture runner it starts, refuse every other import.
ONLY_WHAT_A_LENT_MACHINE_HAS = """
import importlib.abc, sys
ALLOWED = {allowed!r} | set(sys.modules) | set(sys.stdlib_module_names)
class OnlyAllowed(importlib.abc.MetaPathFinder):  # any other module is absent, as if uninstalled
    def __init__(self, finder):
        self.finder = finder
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in ALLOWED or top.startswith("_sysconfigdata"):
            return self.finder.find_spec(name, path, target)
        return None
    def invalidate_caches(self):
        getattr(self.finder, "invalidate_caches", lambda: None)()
sys.meta_path[:] = [OnlyAllowed(f) if hasattr(f, "find_spec") else f for f in sys.meta_path]
"""


def lent_machine_imports() -> set[str]:
    """The import names of NumPy, PyTorch and everything PyTorch requires, and the course."""
    import importlib.metadata as metadata
    import re

    def key(name):
        return re.sub(r"[-_.]+", "-", name).lower()

    wanted, todo = set(), ["torch", "numpy"]
    while todo:
        dist = key(todo.pop())
        if dist in wanted:
            continue
        wanted.add(dist)
        for requirement in metadata.requires(dist) or []:
            if "extra ==" not in requirement:
                todo.append(re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0])
    names = {name for name, dists in metadata.packages_distributions().items()
             if any(key(d) in wanted for d in dists)}  # fmt: skip
    return names | {"minigrad", "autograder", "coursekit", "bench"}


@pytest.mark.xdist_group("gpu_check_sealed")
def test_the_dry_run_needs_only_what_a_lent_gpu_machine_has(tmp_path):
    """Every part runs where only NumPy and PyTorch are installed (an import of nbformat in
    the sealed grade's path once left the sealed part "not run: nbformat missing")."""
    (tmp_path / "sitecustomize.py").write_text(
        ONLY_WHAT_A_LENT_MACHINE_HAS.format(allowed=lent_machine_imports())
    )
    out = tmp_path / "gpu.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "bench.gpu", "--dry-run-on-cpu", "--json", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=400, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(out.read_text())
    assert {"nbformat", "nbclient", "ipykernel"} <= set(data["environment"]["missing"])
    parts = data["parts"]
    assert {name: part["status"] for name, part in parts.items()} == dict.fromkeys(PARTS, "ran")
    assert parts["lectures"]["runner"].startswith("no Jupyter kernel here")
    assert parts["lectures"]["counts"]["error"] == 0, parts["lectures"]
    assert parts["catalogue"]["counts"]["failed"] == 0
    assert parts["sealed"]["counts"]["unexpected"] == 0, parts["sealed"]["submissions"]


def test_dry_run_passes_minigrad_on_the_cuda_selection_and_fails_a_planted_bug():
    right = catalogue.run(minigrad, "cpu", SEED, rules=["V1"])
    assert right["counts"]["total"] > 0
    assert right["counts"]["passed"] == right["counts"]["total"], right["scenarios"]
    assert right["left_out"], "the scenarios only on CUDA are named, not silently dropped"

    (to_bug,) = [bug for bug in BUGS["devices"] if bug.rule == "V1"]
    wrong = catalogue.run(planted_engine(to_bug, "gpu_check"), "cpu", SEED, rules=["V1"])
    failed = [s for s in wrong["scenarios"] if s["status"] == "failed"]
    assert failed and wrong["counts"]["passed"] < right["counts"]["passed"]
    assert all("V1" in s["rules"] and s["differences"] for s in failed)


# a minigrad whose refusal of an in-place write on a leaf says it in other words
REWORDED = Bug(
    "I3",
    "_messages.py",
    '"a leaf Variable that requires grad is being used in an in-place operation."',
    '"a leaf tensor that requires grad was written in place."',
    "the same error, another text",
)


def test_a_text_difference_fails_on_pytorch_2_13_and_is_reported_apart_on_another(monkeypatch):
    import torch

    engine = planted_engine(REWORDED, "gpu_check_text")
    strict = catalogue.run(engine, "cpu", SEED, rules=["I3"])
    assert strict["texts_strict"] and strict["counts"]["failed"] > 0
    assert strict["counts"]["text only"] == 0

    monkeypatch.setattr(torch, "__version__", "2.11.0+cu128")
    lenient = catalogue.run(engine, "cpu", SEED, rules=["I3"])
    assert not lenient["texts_strict"]
    assert lenient["counts"]["failed"] == 0
    assert lenient["counts"]["text only"] == strict["counts"]["failed"]


def test_without_texts_keeps_types_values_and_flags():
    from autograder.compare import without_texts

    def run(message, kind, value):
        observation = {"label": "x", "kind": "call", "value": {"tensor": value},
                       "raised": {"type": kind, "message": message},
                       "warnings": [{"category": "UserWarning", "message": message}]}  # fmt: skip
        return {"scenarios": {"s": {"status": "ok", "observations": [observation]}}}

    # an attribute that raised when read: its type stays, its words go
    snapshot = {"repr": "tensor([1.])", "values": [1.0], "grad_fn": None,
                "is_leaf": {"error": "RuntimeError: Output 0 of Unbind is a view"}}  # fmt: skip
    blank = without_texts(run("a text", "RuntimeError", snapshot))
    (observation,) = blank["scenarios"]["s"]["observations"]
    assert observation["raised"] == {"type": "RuntimeError", "message": ""}
    assert observation["warnings"] == [{"category": "UserWarning", "message": ""}]
    assert observation["value"]["tensor"] == {"repr": None, "values": [1.0], "grad_fn": None,
                                              "is_leaf": {"error": "RuntimeError"}}  # fmt: skip
    assert snapshot["repr"] == "tensor([1.])", "the observations given are left as they were"


def _differences(*summaries):
    return [{"summary": s} for s in summaries]


def test_a_cuda_difference_seen_on_the_cpu_too_is_the_release_not_cuda():
    """With another PyTorch than 2.13, a CUDA scenario whose every behaviour difference the
    same release shows on the CPU (devices read alike) is "as on cpu"; one it does not show
    there, or any difference at all on 2.13, fails."""
    cuda = _differences("x.to(y): value: PyTorch device('cuda:0'); your engine None",
                        "x.clamp(max=nan): values: PyTorch [1.0]; your engine [nan]")  # fmt: skip
    cpu = _differences("x.to(y): value: PyTorch device('cpu'); your engine None",
                       "x.clamp(max=nan): values: PyTorch [1.0]; your engine [nan]")  # fmt: skip
    assert catalogue.classify(cuda, cuda, cpu, texts_strict=False) == "as on cpu"
    assert catalogue.classify(cuda, cuda, cpu[:1], texts_strict=False) == "failed"
    assert catalogue.classify(cuda, cuda, [], texts_strict=False) == "failed"
    assert catalogue.classify(cuda, cuda, None, texts_strict=False) == "failed"
    assert catalogue.classify(cuda, cuda, cpu, texts_strict=True) == "failed"
    assert catalogue.classify(cuda, [], None, texts_strict=False) == "text only"
    assert catalogue.classify(cuda, [], None, texts_strict=True) == "failed"
    assert catalogue.classify([], [], None, texts_strict=True) == "passed"


GPU_CELLS_NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 4,
    "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# on the GPU"},
        {"cell_type": "code", "metadata": {}, "source": "x = 1"},
        {"cell_type": "code", "metadata": {}, "source": "print('on cuda', x)"},
        {"cell_type": "code", "metadata": {}, "source": "print('GPU cell skipped: no GPU')"},
        {"cell_type": "code", "metadata": {}, "source": "# cuda\nraise ValueError('boom')"},
        {"cell_type": "code", "metadata": {}, "source": "# cuda\nprint(x)"},
        # the check runs from the source tree, nothing installed: bench is importable only so
        {"cell_type": "code", "metadata": {}, "source": "import bench.gpu  # for the GPU"},
    ],
}


@pytest.mark.parametrize("runner", ["plain", "kernel"])
def test_lecture_gpu_cells_ran_skipped_or_failed(tmp_path, runner):
    for cell in GPU_CELLS_NOTEBOOK["cells"]:
        if cell["cell_type"] == "code":
            cell.update(outputs=[], execution_count=None)
    path = tmp_path / "gpu_cells.ipynb"
    path.write_text(json.dumps(GPU_CELLS_NOTEBOOK))
    result = lectures.run([path], runner=runner)
    cells = {c["index"]: c["status"] for c in result["lectures"][path.name]["gpu_cells"]}
    # both run the cells after an error (a kernel with errors allowed), as a GPU cell below a
    # failing cell must still be checked
    assert cells == {2: "ran", 3: "skipped", 4: "error", 5: "ran", 6: "ran"}
    assert result["lectures"][path.name]["first_error"] == {"index": 4, "error": "ValueError: boom"}


@pytest.mark.xdist_group("gpu_check_sealed")
def test_sealed_dry_run_full_marks_for_the_reference_none_for_the_stub_and_the_bug():
    result = sealed.run("cpu", names=["devices"], seed=SEED, workers=2)
    rows = {r["student"]: r for r in result["submissions"]}
    assert set(rows) == {"reference", "stub", "bug_V1"}
    points = {s: r["cells"]["test_cuda_devices"]["points"] for s, r in rows.items()}
    assert points["reference"] == rows["reference"]["cells"]["test_cuda_devices"]["max_points"] > 0
    assert points["stub"] == points["bug_V1"] == 0
    assert "rule V1" in rows["bug_V1"]["cells"]["test_cuda_devices"]["verdict"]
    assert result["counts"] == {"as_expected": 3, "as_on_cpu": 0, "unexpected": 0, "total": 3}


@pytest.mark.xdist_group("gpu_check_sealed")
def test_a_cuda_grade_matched_by_the_same_cells_on_the_cpu_is_the_release_not_cuda():
    """The sealed part's control (another PyTorch than 2.13): a submission graded otherwise
    on CUDA is graded again with the cells' checks on the CPU; the same points there count it
    "as on cpu", other points leave it unexpected."""
    notebook, _ = sealed.submissions("devices")["reference"]
    (test,) = sealed.contract_of("devices", "cpu").tests
    jobs = [("devices", "reference", None, notebook, None)]

    def row(points):
        return {"assignment": "devices", "student": "reference", "error": "",
                "as_expected": False, "cells": {test.grade_id: {"points": points}}}  # fmt: skip

    same, other = row(test.points), row(0.0)
    for graded in (same, other):
        sealed._control(graded, jobs, SEED, deadline=None)
    assert same["as_on_cpu"] and same["cpu_points"] == {test.grade_id: test.points}
    assert other["as_on_cpu"] is False


@pytest.mark.xdist_group("gpu_check_sealed")
def test_the_sandbox_probe_says_whether_a_cell_computes_in_a_sealed_cuda_run():
    from bench.gpu.environment import sandbox_probe

    here = sandbox_probe()  # no CuPy here: the probe names what the sandbox lacked
    assert here["status"] == "fails: ModuleNotFoundError: No module named 'cupy'"
    numpy_cell = "import numpy\nassert float((numpy.arange(3) * 2).sum()) == 6.0\nimport minigrad"
    assert sandbox_probe(numpy_cell)["status"] == "computes"
    assert sandbox_probe("import torch")["status"].startswith("fails: ModuleNotFoundError")


def said_in_the_sandbox(cell: str, gpu: bool) -> str:
    """What a given cell, run alone in a sealed child (a CUDA one where `gpu`), said by the
    RuntimeError it ends with."""
    from coursekit.sealed.sandbox import Limits, Sandbox

    request = {"cells": [{"id": "c", "kind": "given", "source": cell}], "seed": 0,
               "device": "cuda" if gpu else "cpu", "scenarios": [], "cell_s": 20,
               "scenario_s": 1}  # fmt: skip
    with Sandbox(Limits(), gpu=gpu) as box:
        (report,) = box.run(request).messages[0]["cells"]
    return report["error"]["message"]


# what CUDA does when it starts (an inaccessible reservation of address space, far larger
# than what it uses), then a real allocation above both runs' memory limits
RESERVE_THEN_ALLOCATE = """
import mmap
said = []
try:
    mmap.mmap(-1, 16 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000, prot=0)
    said.append("reserved")
except OSError:
    said.append("reserve refused")
try:
    block = bytearray(5 << 30)
    said.append("allocated")
except MemoryError:
    said.append("MemoryError")
raise RuntimeError(" ".join(said))
"""


@pytest.mark.xdist_group("gpu_check_sealed")
@pytest.mark.parametrize("gpu", [False, True], ids=["cpu run", "gpu run"])
def test_a_gpu_run_lets_cuda_reserve_address_space_and_still_bounds_memory(gpu):
    from coursekit.sealed import layers

    if layers()["rlimits"] != "active":
        pytest.skip(f"no resource limits here: {layers()['rlimits']}")
    reserved = "reserved" if gpu else "reserve refused"
    assert said_in_the_sandbox(RESERVE_THEN_ALLOCATE, gpu) == f"{reserved} MemoryError"


@pytest.mark.xdist_group("gpu_check_sealed")
def test_a_gpu_run_in_the_namespace_reads_sysfs_as_cuda_needs_and_a_cpu_run_does_not():
    from coursekit.sealed import layers

    if layers()["namespace"] != "active":
        pytest.skip(f"no namespace here: {layers()['namespace']}")
    cell = "import os\nraise RuntimeError(str(os.path.isdir('/sys/module')))"
    assert [said_in_the_sandbox(cell, gpu) for gpu in (False, True)] == ["False", "True"]


@pytest.mark.xdist_group("gpu_check_sealed")
def test_a_sealed_child_keeps_cupys_compiled_kernels_in_memory():
    """CuPy caches compiled kernels under $HOME, the sandbox's 8 MiB /tmp (without the
    namespace, the host's /tmp, shared by every student's run)."""
    cell = "import os\nraise RuntimeError(os.environ.get('CUPY_CACHE_IN_MEMORY', 'unset'))"
    assert said_in_the_sandbox(cell, gpu=True) == "1"


def test_a_sealed_cuda_run_observes_its_scenarios_unforked_each_as_if_fresh(monkeypatch):
    """CUDA cannot be used in a process forked after it started (the student's cells may
    have started it): the sealed child runs CUDA scenarios in its own process, forgetting
    once-only warnings before each, so a scenario that warns once warns again."""
    import io

    from autograder.scenarios import load_catalogue
    from coursekit.sealed import child
    from minigrad._device import standin_cuda

    def forked():
        raise AssertionError("a CUDA scenario was run in a forked process")

    monkeypatch.setattr(os, "fork", forked)
    started = []  # CUDA is started before the first scenario's clock runs
    monkeypatch.setattr(child, "warm_up_cuda", lambda: started.append(len(said_so_far)))
    warns_once = "rebuild.tensor_of_parts_cuts_graph"
    request = {"cells": [], "bind": {"assignment": "rebuilding_tensors", "functions": []},
               "scenarios": [warns_once, warns_once], "seed": SEED, "device": "cuda",
               "cell_s": 5, "scenario_s": 20}  # fmt: skip
    channel = io.BytesIO()
    said_so_far = []
    channel.write = lambda data: said_so_far.append(json.loads(data))
    load_catalogue()
    with standin_cuda():
        child.run_group(request, channel)
    said = said_so_far
    assert started == [1], "warmed up after the cells' report, before any scenario"
    first, again = (m["result"] for m in said if "scenario" in m)
    assert first["status"] == "ok", first
    assert any(o["warnings"] for o in first["observations"])
    assert again["observations"] == first["observations"]


@pytest.mark.parametrize("mode", [0o700, 0o755])
def test_without_the_namespace_a_python_closed_to_other_users_keeps_the_child_as_root(
    request, monkeypatch, mode
):
    """A GPU machine's Python may live under /root: without bubblewrap, a child dropped to a
    sandbox uid could not start it (exit 127, every sealed cell lost)."""
    import shutil
    import tempfile

    from coursekit.sealed import sandbox

    if os.geteuid() != 0:
        pytest.skip("the uid layer needs root")
    # pytest's own temporary folders are closed to other users: one of this test's own, open
    open_folder = Path(tempfile.mkdtemp(prefix="python-home-"))
    open_folder.chmod(0o755)
    request.addfinalizer(lambda: shutil.rmtree(open_folder))
    home = open_folder / "home"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "python3").write_bytes(b"")
    (home / "bin" / "python3").chmod(0o755)
    home.chmod(mode)
    monkeypatch.setattr(sandbox, "_probe_bwrap", lambda is_root: "MISSING: (test)")
    (home / "numpy").mkdir()
    monkeypatch.setattr(sandbox, "_python_home", lambda: (home, home / "bin" / "python3", home))
    monkeypatch.setattr(sandbox, "_package_dirs", lambda name: [home / name])
    sandbox.layers.cache_clear()
    try:
        uid = sandbox.layers()["uid"]
    finally:
        monkeypatch.undo()
        sandbox.layers.cache_clear()
    if mode == 0o700:
        assert uid == f"MISSING: {home} is closed to other users: the child runs as root"
    else:
        assert uid == "active"


@pytest.mark.xdist_group("gpu_check_sealed")
def test_a_gpu_run_in_the_namespace_keeps_the_hosts_driver_library_folders(monkeypatch):
    """GPU containers keep the driver's libraries in folders named by LD_LIBRARY_PATH
    (/usr/local/nvidia/lib64): a CUDA run's child must find libcuda there too."""
    from coursekit.sealed import layers

    if layers()["namespace"] != "active":
        pytest.skip(f"no namespace here: {layers()['namespace']}")
    folder = (
        "/usr/lib/x86_64-linux-gnu" if Path("/usr/lib/x86_64-linux-gnu").is_dir() else "/usr/lib"
    )
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{folder}:/opt/elsewhere:/usr/local/lib/hidden")
    cell = "import os\nraise RuntimeError(os.environ['LD_LIBRARY_PATH'])"
    seen = {gpu: said_in_the_sandbox(cell, gpu).split(":") for gpu in (False, True)}
    assert folder not in seen[False] and seen[True][1:] == [folder]


def test_bench_rows_on_a_device_with_a_sync_after_every_timed_run():
    synced = []
    timings = measure({"a": lambda: lambda: 1}, lambda n, r: None, min_runs=3, budget_s=0,
                      sync=lambda: synced.append(1))  # fmt: skip
    assert len(synced) == len(timings["a"].times_s) == 3

    result = speed.run("cpu", budget_s=0, mlp_batch=64, chain_steps=20)
    assert result["errors"] == {}
    assert set(result["ratios"]) == {"mlp", "chain"}
    assert all(np.isfinite(r) and r > 0 for r in result["ratios"].values())
    engines = {(r["benchmark"], r["engine"]) for r in result["rows"]}
    assert {("mlp", "minigrad"), ("mlp", "torch"), ("chain", "minigrad")} <= engines


def test_a_sealed_run_without_a_namespace_can_import_cupy_where_it_is_installed(monkeypatch):
    """Without bubblewrap the child reads packages from the staged site/ folder only: a CUDA
    run there needs CuPy and every package importing it loads (cupyx, and cuda.pathfinder in
    CuPy 14: a fixed list missed both). cupy is not installed here: jinja2, which imports
    markupsafe, stands in, and is imported from the staged folder alone."""
    from coursekit.sealed import sandbox

    monkeypatch.setattr(sandbox, "GPU_MODULE", "jinja2")
    sandbox.gpu_packages.cache_clear()
    sandbox.staged_root.cache_clear()
    try:
        site = sandbox.staged_root() / "site"
        assert (site / "numpy").is_dir() and (site / "markupsafe").is_dir()
        code = f"import sys; sys.path.insert(0, {str(site)!r}); import jinja2, numpy"
        done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
    finally:  # the next run stages the real packages again
        sandbox.gpu_packages.cache_clear()
        sandbox.staged_root.cache_clear()


def test_on_a_gpu_the_last_line_counts_and_the_exit_status_says_whether_all_passed(
    tmp_path, monkeypatch, capsys
):
    """The GPU side of the plumbing, with the parts' results given (no GPU here)."""
    import copy

    from bench.gpu import __main__ as cli

    env = {"torch_sees_gpu": True, "minigrad_sees_gpu": True, "gpu": "NVIDIA H100",
           "torch": "2.11.0+cu128", "cupy": "13.6.0", "texts_strict": False}  # fmt: skip
    probes = {"status": "ran", "cupy_under_limits": {"RLIMIT_DATA 1 GiB": "computes",
                                                      "RLIMIT_AS 1 GiB": "fails (exit 1): x",
                                                      "RLIMIT_AS 4 GiB": "computes"}}  # fmt: skip
    results = {
        "catalogue": {
            "status": "ran",
            "reference": "2.11.0+cu128",
            "counts": {"passed": 190, "text only": 5, "as on cpu": 3, "failed": 0, "total": 198},
        },  # fmt: skip
        "bench": {"status": "ran", "ratios": {"mlp": 1.5, "chain": 2.25}, "errors": {}},
        "lectures": {
            "status": "ran",
            "counts": {"ran": 12, "skipped": 0, "error": 0, "not run": 0, "warned": 0, "total": 12},
        },  # fmt: skip
        "sealed": {
            "status": "ran",
            "counts": {"as_expected": 23, "as_on_cpu": 2, "unexpected": 0, "total": 25},
        },  # fmt: skip
    }
    monkeypatch.setattr(cli.environment, "describe", lambda: env)
    monkeypatch.setattr(cli.environment, "address_space_probes", lambda: probes)
    monkeypatch.setattr(cli.environment, "sandbox_probe", lambda: {"status": "fails: E: x"})
    monkeypatch.setattr(cli, "run_part", lambda part, *a: copy.deepcopy(results[part]))
    out = tmp_path / "gpu.json"

    assert cli.main(["--json", str(out)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("gpu-check: cuda on NVIDIA H100, torch 2.11.0+cu128")
    for said in ("catalogue 190/198 passed, 5 text only, 3 as on cpu (torch 2.11.0+cu128's, "
                 "not CUDA's), 0 failed", "mlp 1.50x, chain 2.25x", "lecture GPU cells 12/12 ran",
                 "sealed 23/25 graded as expected, 2 others as on cpu (torch's, not CUDA's)",
                 "CuPy under RLIMIT_DATA 1 GiB ok, RLIMIT_AS 1 GiB FAILS, RLIMIT_AS 4 GiB ok",
                 "CuPy in the sealed sandbox FAILS: E: x"):  # fmt: skip
        assert said in line, said
    data = json.loads(out.read_text())
    assert (data["mode"], data["device"], data["passed"]) == ("gpu", "cuda", True)
    assert list(data["parts"]) == ["catalogue", "bench", "lectures", "sealed"]

    results["sealed"]["counts"] = {"as_expected": 23, "as_on_cpu": 1, "unexpected": 1, "total": 25}
    assert cli.main(["--json", str(out)]) == 1
    assert json.loads(out.read_text())["passed"] is False
