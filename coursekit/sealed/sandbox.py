"""Run the sealed child: a separate process, resource limits, an unprivileged uid, a namespace.

    with Sandbox(limits) as box:          # claims a uid slot
        outcome = box.run(request)        # -> Outcome: the child's JSON answer or why none

    with Sandbox(limits, engines=[...]) as box:   # several groups, one child, isolated
        outcomes = box.run_groups(request, groups)  # (isolation.py): one Outcome per group

Layers, outermost first (each one reported by `layers()`; a missing one is named in every
result, never silently skipped):

- process: the child is another interpreter; the parent only reads JSON from a pipe;
- rlimits: CPU seconds, address space, processes, file size, open files, no core dumps
  (`prlimit`), plus a wall-clock deadline after which the whole process group is killed;
- uid: as root, the child runs as a dedicated system user `mgsealed<N>` (one per parallel
  slot, so one student's fork bomb cannot exhaust another's process budget: RLIMIT_NPROC
  counts processes per real uid and is not enforced for root);
- namespace: bubblewrap builds the child's filesystem from nothing: /usr (without Python
  packages), a Python interpreter without site-packages, NumPy, the autograder's observing
  side (staged copies), the run's minigrad (staged by coursekit.edition: the graded
  functions of the cell being graded and those of every later assignment are stubs, the
  other graded functions are bytecode only) and an 8 MiB /tmp. The course directory, the
  gradebook, other submissions, torch and minigrad's sources of reference answers do not
  exist in it; there is no network, and its processes live in their own PID namespace
  (killing bwrap kills them all).
"""

from __future__ import annotations

import compileall
import contextlib
import fcntl
import importlib.util
import json
import os
import pwd
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from functools import cache
from multiprocessing.util import Finalize
from pathlib import Path

import autograder
from coursekit.i18n import _
from coursekit.sealed.isolation import (
    BOX,
    ENGINE,
    ENGINES,
    EXIT_STATUS,
    ISOLATION_FAILED,
    TIMED_OUT,
)

CHECKER = Path(autograder.__file__).resolve().parent
# The observing side: what runs scenarios on an engine and records them, and the sealed child
# that drives it. Nothing else is staged (not check/compare, not the course kit: it holds the
# solutions).
OBSERVING_SIDE = (
    "engine.py",
    "graph_diff.py",
    "observe.py",
    "observe_child.py",
    "recorder.py",
    "rules.py",
    "scenarios.py",
    "catalogue",
)
# the sealed child, and what isolates the groups it runs (staged beside it)
SEALED_CHILD = Path(__file__).resolve().parent / "child.py"
ISOLATION = Path(__file__).resolve().parent / "isolation.py"
SLOT_DIR = Path("/run/minigrad-sealed")
# where a grading process stages its files, if its supervisor gives it a folder (removed
# by the supervisor, also when the grading process was killed); else the system's temp
STAGE_ENV = "MINIGRAD_SEALED_STAGE"
USER_PREFIX = "mgsealed"
MAX_SLOTS = 64
ALLOWED_PACKAGES = ("numpy",)  # the only third-party package the child can import
# and, for a run on a GPU, CuPy with what importing it loads (gpu_packages); nvidia: the CUDA
# libraries' wheels, which CuPy opens as files rather than imports
GPU_MODULE = "cupy"
GPU_PACKAGES = ("cupy", "cupy_backends", "cupyx", "nvidia")
KEEP_OUTPUT = 4096  # bytes of the child's stdout/stderr kept for diagnostics
# covered in the namespace: no Python package of the host is reachable, even by a typed path
HIDDEN_HOST_FOLDERS = ("/usr/lib/python3", "/usr/local/lib", "/usr/share/python3")


@dataclass(frozen=True)
class Limits:
    wall_s: float = 60.0  # the whole sealed run: cells and scenarios
    cpu_s: int = 60  # RLIMIT_CPU, per process
    memory_bytes: int = 1 << 30  # RLIMIT_AS, per process
    # a CUDA run's RLIMIT_DATA instead (Sandbox.command): CUDA's driver and compiler keep
    # heaps of their own beside the student's arrays
    gpu_memory_bytes: int = 4 << 30
    processes: int = 32  # RLIMIT_NPROC, for the sandbox uid
    file_bytes: int = 4 << 20  # RLIMIT_FSIZE
    tmp_bytes: int = 8 << 20  # the size of the namespace's /tmp
    result_bytes: int = 32 << 20  # the most the parent reads back as the result
    cell_s: float = 10.0  # one answer or given cell
    scenario_s: float = 5.0  # one scenario


@dataclass
class Outcome:
    messages: list  # the JSON lines the child wrote to its result pipe (objects only)
    malformed: int  # lines that were not a JSON object
    exit_status: int | None
    timed_out: bool
    stdout_head: str = ""
    stderr_tail: str = ""
    problem: str = ""  # why the run ended early, in words
    layers: dict = field(default_factory=dict)
    isolation_failed: str = ""  # run_groups: why this group could not be isolated, if so


@cache
def layers() -> dict[str, str]:
    """Each isolation layer: "active" or why it is missing on this platform."""
    out = {"process": "active", "rlimits": "active"}
    if not shutil.which("prlimit"):
        out["rlimits"] = "MISSING: no prlimit (util-linux): wall-clock deadline only"
    is_root = os.geteuid() == 0
    if not is_root:
        out["uid"] = "MISSING: not root, the child runs as the grading user (shared NPROC)"
    elif not shutil.which("setpriv") or not shutil.which("useradd"):
        out["uid"] = "MISSING: setpriv or useradd not found"
    else:
        out["uid"] = "active"
    out["namespace"] = _probe_bwrap(is_root)
    if out["uid"] == "active" and out["namespace"] != "active":
        # without the namespace a child dropped to a sandbox uid reads the host's paths as
        # they are: an interpreter under /root (say) would not even start for it
        needed = [_python_home()[1], *(d for n in ALLOWED_PACKAGES for d in _package_dirs(n))]
        closed = _closed_to_others(needed)
        if closed:
            out["uid"] = f"MISSING: {closed} is closed to other users: the child runs as root"
    return out


def _closed_to_others(paths) -> str:
    """The first folder on the way to one of `paths`, or path, that a user other than its
    owner cannot enter or read ("" when there is none)."""
    for path in map(Path, paths):
        for folder in [*reversed(path.parents), path]:
            needed = stat.S_IXOTH if folder.is_dir() else stat.S_IROTH
            if not folder.stat().st_mode & needed:
                return str(folder)
    return ""


def missing_layers() -> list[str]:
    return [f"{name}: {state}" for name, state in layers().items() if state != "active"]


def _probe_bwrap(is_root: bool) -> str:
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return "MISSING: bubblewrap not installed (apt-get install bubblewrap)"
    probe = [bwrap, *_unshare_args(is_root), "--ro-bind", "/usr", "/usr",
             "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
             "--symlink", "usr/lib64", "/lib64", "--", "/usr/bin/true"]  # fmt: skip
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"MISSING: bubblewrap failed to start ({exc})"
    if done.returncode != 0:
        return f"MISSING: bubblewrap cannot make namespaces here ({done.stderr.decode()[:200]})"
    return "active"


def _unshare_args(is_root: bool) -> list[str]:
    # As root the namespace is made without a user namespace, so that setpriv can then drop
    # to a real unprivileged uid (which RLIMIT_NPROC counts); otherwise a user namespace.
    if is_root:
        return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session"]  # fmt: skip
    return ["--unshare-all", "--die-with-parent", "--new-session"]


# -- the staged environment ------------------------------------------------------------------


@cache
def staged_root() -> Path:
    """A private copy of the observing side (lib/autograder, lib/coursekit/sealed/child.py)
    and, for a run without a namespace only, links to the allowed packages (site/)."""
    root = _removed_at_exit(_staging_folder("minigrad-sealed-"))
    package = root / "lib" / "autograder"
    package.mkdir(parents=True)
    # minimal package files: importing the observing side must not import anything else
    (package / "__init__.py").write_text('"""The observing side, staged for a sealed run."""\n')
    for name in OBSERVING_SIDE:
        source = CHECKER / name
        if source.is_dir():
            shutil.copytree(source, package / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, package / name)
    kit = root / "lib" / "coursekit" / "sealed"
    kit.mkdir(parents=True)
    (kit.parent / "__init__.py").write_text("")
    (kit / "__init__.py").write_text("")
    shutil.copy2(SEALED_CHILD, kit / "child.py")
    shutil.copy2(ISOLATION, kit / "isolation.py")
    (root / "site").mkdir()
    # CuPy too where it is installed: a GPU grader without the namespace layer has no other
    # way to give it to a CUDA run's child (a child without a namespace could reach it anyway)
    for name in ALLOWED_PACKAGES + gpu_packages():
        for directory in _package_dirs(name):
            (root / "site" / directory.name).symlink_to(directory)
    # compiled once here: the sandbox cannot write bytecode, and compiling the catalogue's
    # sources again took every sealed run about 0.3 s
    compileall.compile_dir(root / "lib", quiet=2)
    _readable_to_all(root)
    return root


def _staging_folder(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ.get(STAGE_ENV)))


def _removed_at_exit(folder: Path) -> Path:
    """`folder`, removed when this process ends. Grading processes are multiprocessing's
    children, which leave by os._exit without running atexit (thousands of staged folders
    piled up in /tmp): multiprocessing's own finalizers run there, and at a normal exit."""
    Finalize(None, shutil.rmtree, args=(folder,), kwargs={"ignore_errors": True}, exitpriority=0)
    return folder


def _readable_to_all(root: Path) -> None:
    """What is staged is read by the sandbox's own uid: world-readable, never writable."""
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


@cache
def staged_engine(assignment: str, names: tuple[str, ...]) -> Path:
    """A directory holding the minigrad a sealed run grading `names` of `assignment` imports:
    those functions and every later assignment's are stubs, the graded assignment's other
    functions and the earlier assignments' keep their reference answers as bytecode (no
    source is staged; coursekit.edition.sealed_stubs)."""
    from coursekit.edition import sealed_stubs, write_seams

    root = _removed_at_exit(_staging_folder("minigrad-sealed-engine-"))
    shutil.copytree(_compiled_engine(), root / "minigrad")
    write_seams(root / "minigrad", sealed_stubs(assignment, names), sourceless=True)
    _readable_to_all(root)
    return root


@cache
def _compiled_engine() -> Path:
    """minigrad with every graded function's reference answer (as bytecode), its modules
    compiled: what each staged engine copies before writing its own graded functions.
    Compiled here once, not once per engine (0.3 s each, and a sealed run stages one per
    group; the sandbox cannot write bytecode). Never staged itself: readable by this
    process's user only."""
    from coursekit.edition import build_engine

    root = _removed_at_exit(_staging_folder("minigrad-sealed-compiled-"))
    package = build_engine(root, {}, sourceless=True)
    compileall.compile_dir(package, quiet=2)
    return package


@cache
def gpu_packages() -> tuple[str, ...]:
    """CuPy's packages and every other one importing it loads, where CuPy is installed: they
    differ between its releases (fastrlock in 13, cuda.pathfinder in 14), so they are read off
    a fresh interpreter that imports it."""
    if importlib.util.find_spec(GPU_MODULE) is None:
        return ()
    loaded = (n for n in imported_packages(GPU_MODULE) if n not in ALLOWED_PACKAGES)
    return tuple(dict.fromkeys((*GPU_PACKAGES, GPU_MODULE, *loaded)))


def imported_packages(module: str, timeout_s: float = 120) -> tuple[str, ...]:
    """The installed top-level packages (not the standard library's) that importing `module`
    loads in a fresh interpreter; () if it cannot be imported there."""
    code = (
        "import json, sys; before = set(sys.modules); import " + module + "\n"
        "names = {n.split('.')[0] for n, m in list(sys.modules.items()) if n not in before"
        " and (getattr(m, '__file__', None) or getattr(m, '__path__', None))}\n"
        "print(json.dumps(sorted(names - set(sys.stdlib_module_names))))"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout_s, check=False)  # fmt: skip
        names = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else []
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        names = []
    return tuple(n for n in names if isinstance(n, str) and n.isidentifier())


def _package_dirs(name: str) -> list[Path]:
    """The directories of an installed package (and its bundled .libs), for read-only binds;
    none when it is not installed."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        return []
    found = [Path(p).resolve() for p in (spec.submodule_search_locations or [])]
    libs = [d.with_name(f"{name}.libs") for d in found]
    return found + [d for d in libs if d.is_dir()]


def _python_home() -> tuple[Path, Path, Path]:
    """(prefix, interpreter, site-packages) of the base Python (the venv's own base)."""
    prefix = Path(sys.base_prefix).resolve()
    interpreter = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    if not interpreter.is_relative_to(prefix):  # a venv whose python links elsewhere
        interpreter = prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    purelib = Path(sysconfig.get_paths(vars={"base": str(prefix)})["purelib"])
    return prefix, interpreter, purelib


def _bwrap_args(
    limits: Limits, is_root: bool, gpu: bool, engine: Path | None, engines
) -> tuple[list[str], str]:
    prefix, interpreter, purelib = _python_home()
    python = f"{BOX}/python/{interpreter.relative_to(prefix)}"
    args = [shutil.which("bwrap"), *_unshare_args(is_root),
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--proc", "/proc", "--dev", "/dev"]  # fmt: skip
    # no Python package of the host is reachable, even by a path typed by hand
    for hidden in HIDDEN_HOST_FOLDERS:
        if Path(hidden).is_dir():
            args += ["--tmpfs", hidden]
    if Path("/etc/ld.so.cache").exists():
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    for directory in ("/opt", BOX, f"{BOX}/site"):
        args += ["--perms", "0755", "--dir", directory]
    args += ["--ro-bind", str(prefix), f"{BOX}/python"]
    if purelib.is_relative_to(prefix) and purelib.is_dir():
        args += ["--tmpfs", f"{BOX}/python/{purelib.relative_to(prefix)}"]
    args += ["--ro-bind", str(staged_root() / "lib"), f"{BOX}/lib"]
    if engine is not None:
        args += ["--ro-bind", str(engine), ENGINE]
    if engines is not None:  # one per group, each mounted at ENGINE in its group only
        args += ["--perms", "0755", "--dir", ENGINE, "--perms", "0755", "--dir", ENGINES]
        for index, staged in enumerate(engines):
            if staged is not None:
                args += ["--ro-bind", str(staged), f"{ENGINES}/{index}"]
    for name in ALLOWED_PACKAGES + (gpu_packages() if gpu else ()):
        for directory in _package_dirs(name):
            args += ["--ro-bind", str(directory), f"{BOX}/site/{directory.name}"]
    if gpu:  # the GPU's device files; its driver libraries are in /usr already
        for device in sorted(Path("/dev").glob("nvidia*")):
            args += ["--dev-bind", str(device), str(device)]
        # and sysfs, read-only: CUDA's driver reads its module's and the PCI devices' entries
        # as it starts, and fails without them (cudaErrorOperatingSystem)
        args += ["--ro-bind", "/sys", "/sys"]
    args += ["--size", str(limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp",
             "--chdir", "/tmp", "--clearenv"]  # fmt: skip
    library_path = [f"{BOX}/python/lib", *(_host_library_path() if gpu else ())]
    for key, value in _child_env(os.pathsep.join(library_path)).items():
        args += ["--setenv", key, value]
    return args + ["--"], python


def _host_library_path() -> list[str]:
    """The host's LD_LIBRARY_PATH folders that the namespace shows (under /usr, bound as it
    is): where a GPU container keeps the driver's libraries (/usr/local/nvidia/lib64, say)."""
    folders = os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
    return [f for f in folders if f.startswith("/usr/") and Path(f).is_dir()
            and not f.startswith(HIDDEN_HOST_FOLDERS)]  # fmt: skip


def _child_env(library_path: str) -> dict[str, str]:
    return {
        "HOME": "/tmp",
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LD_LIBRARY_PATH": library_path,
        "OPENBLAS_NUM_THREADS": "1",  # one thread keeps the address space small
        "OMP_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        # CuPy keeps the kernels it compiles in memory, not in $HOME: the sandbox's /tmp is
        # small, and without the namespace one student's cache would be the next one's
        "CUPY_CACHE_IN_MEMORY": "1",
    }


def _child_code(paths: list[str], result_fd: int) -> str:
    return (
        f"import sys; sys.path[:0] = {paths!r}; "
        f"from coursekit.sealed.child import main; main({result_fd})"
    )


# -- uid slots ---------------------------------------------------------------------------------


@contextlib.contextmanager
def _claimed_slot():
    """(uid, gid) of a sandbox user no other running sealed run holds; None when not root."""
    if layers()["uid"] != "active":
        yield None
        return
    SLOT_DIR.mkdir(mode=0o700, exist_ok=True)
    for slot in range(MAX_SLOTS):
        handle = open(SLOT_DIR / f"slot-{slot}.lock", "w")  # noqa: SIM115
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        try:
            ids = _sandbox_user(f"{USER_PREFIX}{slot}")
            _kill_all_of(*ids)  # leftovers of a run that was itself killed
            yield ids
            _kill_all_of(*ids)
        finally:
            handle.close()
        return
    raise RuntimeError(f"all {MAX_SLOTS} sandbox slots are busy")


def _sandbox_user(name: str) -> tuple[int, int]:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
             "--shell", "/usr/sbin/nologin", "--user-group", name],
            check=True, capture_output=True,
        )  # fmt: skip
        entry = pwd.getpwnam(name)
    return entry.pw_uid, entry.pw_gid


def _kill_all_of(uid: int, gid: int) -> None:
    """SIGKILL every process of `uid`: `kill -KILL -1` run as that uid (POSIX: all processes
    the sender may signal, i.e. that uid's, itself excepted). Spawned, not forked: a fork of
    this process (torch and nbgrader loaded) cost 19 ms of CPU, twice per sealed run."""
    subprocess.run(
        ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "kill", "-KILL", "-1"],
        capture_output=True, check=False,
    )  # fmt: skip


# -- running ------------------------------------------------------------------------------------


class Sandbox:
    def __init__(self, limits: Limits | None = None, gpu: bool = False, engine: Path | None = None,
                 engines: list[Path | None] | None = None):  # fmt: skip
        self.limits = limits or Limits()
        self.gpu = gpu
        self.engine = engine  # a staged_engine() directory, or None: no minigrad at all
        self.engines = engines  # for run_groups: each group's engine (namespace layer only)
        self._slot = None
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        self._slot = self._stack.enter_context(_claimed_slot())
        return self

    def __exit__(self, *exc):
        self._stack.close()

    def command(self, result_fd: int) -> list[str]:
        lim = self.limits
        state = layers()
        cmd = []
        if state["rlimits"] == "active":
            nproc = lim.processes if self._slot else _own_processes() + lim.processes
            # CUDA reserves far more address space than it uses (inaccessible mappings for
            # unified addressing), so it cannot start under RLIMIT_AS: a GPU run bounds the
            # memory it can write instead (RLIMIT_DATA: the heap and private writable
            # mappings, where NumPy's arrays live)
            memory = f"--data={lim.gpu_memory_bytes}" if self.gpu else f"--as={lim.memory_bytes}"
            cmd += ["prlimit", f"--cpu={lim.cpu_s}", memory,
                    f"--nproc={nproc}", f"--fsize={lim.file_bytes}", "--nofile=256",
                    "--core=0", "--"]  # fmt: skip
        if state["namespace"] == "active":
            wrap, python = _bwrap_args(lim, os.geteuid() == 0, self.gpu, self.engine, self.engines)
            cmd += wrap
            paths = [f"{BOX}/lib", f"{BOX}/site"]
            engine = ENGINE
        else:
            python = str(_python_home()[1])
            paths = [str(staged_root() / "lib"), str(staged_root() / "site")]
            engine = str(self.engine)
        if self.engine is not None or self.engines is not None:
            paths.insert(0, engine)
        if self._slot:
            uid, gid = self._slot
            cmd += ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]  # fmt: skip
        return cmd + [python, "-I", "-S", "-c", _child_code(paths, result_fd)]

    def run(self, request: dict) -> Outcome:
        """Send `request` to a fresh child; wait for its JSON answer, at most limits.wall_s."""
        return self._start(request, 1, self.limits.wall_s)[0]

    def run_groups(self, request: dict, groups: list[dict]) -> list[Outcome]:
        """One fresh child runs `request`'s cells once per group ({"scenarios", "bind"}),
        each group isolated from the others (isolation.py) and given its own result pipe and
        limits.wall_s; one Outcome per group. Needs the namespace layer and `engines`."""
        wall_s = self.limits.wall_s
        request = {**request, "groups": groups, "wall_s": wall_s,
                   "tmp_bytes": self.limits.tmp_bytes}  # fmt: skip
        *outcomes, control = self._start(request, len(groups) + 1, len(groups) * (wall_s + 1) + 5)
        # only the sandbox's first process, which runs no student code, writes the control
        # pipe: whether a group was isolated is never a group's own word
        for message in control.messages:
            index = message.get("group")
            if type(index) is int and 0 <= index < len(outcomes) and ISOLATION_FAILED in message:
                outcomes[index].isolation_failed = str(message[ISOLATION_FAILED])[:500]
        return outcomes

    def _start(self, request: dict, pipes: int, wall_s: float) -> list[Outcome]:
        state = layers()
        env = _child_env("") if state["namespace"] == "active" else _fallback_env()
        ends = [os.pipe() for _ in range(pipes)]
        if "groups" in request:  # a result pipe per group, the last one for control
            request["groups"] = [{**group, "result_fd": write} for group, (_, write) in
                                 zip(request["groups"], ends[:-1], strict=True)]  # fmt: skip
            request["control_fd"] = ends[-1][1]
        try:
            proc = subprocess.Popen(
                self.command(ends[0][1]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=[write for _, write in ends],
                env=env,
                cwd="/",
                start_new_session=True,  # one process group to kill
            )
        finally:
            for _, write in ends:
                os.close(write)
        try:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.write(json.dumps(request).encode())
                proc.stdin.close()
            return self._collect(proc, [read for read, _ in ends], wall_s)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            for read, _ in ends:
                os.close(read)

    def _collect(self, proc, result_reads: list[int], wall_s: float) -> list[Outcome]:
        lim = self.limits
        deadline = time.monotonic() + wall_s
        results = {fd: bytearray() for fd in result_reads}
        chunks = {"stdout": bytearray(), "stderr": bytearray()}
        overflow = {fd: False for fd in result_reads}
        selector = selectors.DefaultSelector()
        for fd in result_reads:
            selector.register(fd, selectors.EVENT_READ, fd)
        selector.register(proc.stdout, selectors.EVENT_READ, "stdout")
        selector.register(proc.stderr, selectors.EVENT_READ, "stderr")
        timed_out = False
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _events in selector.select(timeout=min(remaining, 1.0)):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fileobj)
                elif key.data == "stderr":  # keep the tail: a crash explains itself last
                    chunks["stderr"] += data
                    del chunks["stderr"][:-KEEP_OUTPUT]
                elif key.data == "stdout":
                    chunks["stdout"] += data[: KEEP_OUTPUT - len(chunks["stdout"])]
                elif len(results[key.data]) < lim.result_bytes:
                    results[key.data] += data[: lim.result_bytes - len(results[key.data])]
                else:
                    overflow[key.data] = True  # keep draining, so the child never blocks
        selector.close()
        if timed_out:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        try:
            status = proc.wait(timeout=max(deadline - time.monotonic(), 5))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            status = proc.wait()
            timed_out = True
        return [
            self._outcome(bytes(results[fd]), overflow[fd], status, timed_out, wall_s, chunks)
            for fd in result_reads
        ]

    def _outcome(self, result: bytes, overflow, status, timed_out, wall_s, chunks) -> Outcome:
        messages, malformed = _json_lines(result)
        # in a run of groups, how the group's own process ended (the last word is its init's)
        ended = [m[EXIT_STATUS] for m in messages if isinstance(m.get(EXIT_STATUS), int)]
        status = ended[-1] if ended else status
        outcome = Outcome(
            messages=messages,
            malformed=malformed,
            exit_status=status,
            timed_out=timed_out,
            stdout_head=chunks["stdout"].decode(errors="replace"),
            stderr_tail=chunks["stderr"].decode(errors="replace"),
            layers=dict(layers()),
        )
        group_timeout = next((m[TIMED_OUT] for m in messages if TIMED_OUT in m), None)
        if timed_out or group_timeout is not None:
            limit = wall_s if timed_out else self.limits.wall_s
            outcome.problem = _("stopped after the wall-clock limit of {limit} s").format(
                limit=f"{limit:g}"
            )
        elif overflow:
            outcome.problem = _("the result pipe carried more than {count} bytes").format(
                count=self.limits.result_bytes
            )
        elif not any(m.get("done") for m in messages):
            outcome.problem = _("the process ended before it finished ({status})").format(
                status=_status_text(status)
            )
        return outcome


def _json_lines(data: bytes) -> tuple[list[dict], int]:
    messages, malformed = [], 0
    for line in data.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict):
            messages.append(message)
        elif line.strip():
            malformed += 1
    return messages, malformed


def _own_processes() -> int:
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                count += 1
    return count


def _fallback_env() -> dict[str, str]:
    return _child_env(os.environ.get("LD_LIBRARY_PATH", ""))


def _status_text(status: int | None) -> str:
    if status is None:
        return _("still running")
    signum = -status if status < 0 else status - 128  # bwrap reports a signal as 128 + N
    try:
        name = signal.Signals(signum).name if signum > 0 else ""
    except ValueError:
        name = ""
    if status < 0:
        return _("killed by {signal}").format(signal=name or f"signal {signum}")
    text = _("exit status {status}").format(status=status)
    return text + (_(", killed by {signal}").format(signal=name) if name else "")
