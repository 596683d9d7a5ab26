"""Several groups of one sealed run in one sandbox, each in namespaces of its own.

A sealed run binds a student's functions group by group, and each group's staged minigrad
holds the reference answers of the functions the other groups grade: no group may read
another group's engine, nor leave anything for a group that runs after it. A sandbox per
group gives that, but each one cost about 0.2 CPU-s (an interpreter, NumPy and the
observing side imported again). Here the sandbox's first process imports all that once, runs
no student code, and forks one child per group, which, before any student code runs:

- closes the result pipes of the groups after it (the zygote closed those before it);
- enters a new user namespace (unprivileged: the sandbox's uid maps to itself) with new
  mount, PID, network, IPC and UTS namespaces: no process, socket (TIME_WAIT included), IPC
  object or host name of one group outlives it into the next;
- mounts its own engine at /opt/sealed/engine, covers the others (/opt/sealed/engines) and
  /proc with empty read-only file systems, and gets a fresh /tmp;
- forks the namespace's first process (PID 1: when it ends, every process of the group
  ends), which forks the group's process: that one drops every capability, then runs it.

The forking child gives the group at most the run's wall-clock limit, then kills it. Where
the kernel refuses a user namespace, the forking process says ISOLATION_FAILED on the
sandbox's control pipe (which no group holds) before running anything, and the parent
gives each group a sandbox of its own instead; nothing a group writes on its result pipe
decides that.
"""

import ctypes
import errno
import functools
import importlib
import json
import os
import select
import signal
import sys

BOX = "/opt/sealed"  # where the staged environment appears inside the sandbox
ENGINE = f"{BOX}/engine"  # the group's own minigrad
ENGINES = f"{BOX}/engines"  # every group's, by index: covered in each group
ISOLATION_FAILED = "isolation_failed"  # control message key: the group could not be isolated
ISOLATED = b"isolated"  # what a group's process says, before its student code, once isolated
TIMED_OUT = "timed_out"  # message key: the group was killed at the wall-clock limit
EXIT_STATUS = "exit_status"  # message key: how the group's process ended (as Popen says it)

_NAMESPACES = 0x10000000 | 0x00020000 | 0x20000000 | 0x40000000 | 0x08000000 | 0x04000000
# CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_CAP_AMBIENT = 1, 4, 24, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522


@functools.cache
def _libc():
    """Linux's C library, typed for the calls made here (looked up only when a group is
    isolated: the constants above are imported on every platform)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
    libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    libc.unshare.argtypes = [ctypes.c_int]
    return libc


def run_isolated(index: int, run, result_fd: int, others: list[int], wall_s, tmp_bytes: int):
    """Run `run(channel)` for group `index` in a child with namespaces of its own; return
    when it has ended, with why it could not be isolated ("" when it was). `others`: the
    pipes the group must not hold (the result pipes of the groups still to run, the
    sandbox's control pipe).

    Whether the group was isolated is said on a pipe of its own that only this process
    reads: its forked processes write to it before any student code runs and close it, so
    the student's code can neither say it failed nor that it did not."""
    ready, said = os.pipe()

    def isolated() -> int:
        os.close(ready)
        try:
            for fd in others:
                os.close(fd)
            _enter_namespaces(index, tmp_bytes)
        except OSError as exc:
            _report(said, {ISOLATION_FAILED: str(exc)})
            return 70
        return _first_process(run, result_fd, said, wall_s)

    pid = _forked(isolated)
    os.close(said)
    os.close(result_fd)  # only the group's own processes hold it now
    os.waitpid(pid, 0)
    with os.fdopen(ready, "rb") as pipe:
        words = pipe.read(4096)
    if words == ISOLATED:
        return ""
    try:
        return str(json.loads(words)[ISOLATION_FAILED])
    except (ValueError, KeyError, TypeError):
        return "the group ended before it was isolated"


def _forked(body) -> int:
    """A child that runs body() and exits with what it returns: whatever happens in it,
    it never returns into its parent's code (the zygote's loop, say)."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = body()
        finally:
            os._exit(code)
    return pid


def _enter_namespaces(index: int, tmp_bytes: int) -> None:
    uid, gid = os.getuid(), os.getgid()
    _check(_libc().unshare(_NAMESPACES), "a user namespace")
    _write("/proc/self/setgroups", "deny")  # before gid_map, as the kernel requires
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    if os.path.isdir(f"{ENGINES}/{index}"):
        _mount(f"{ENGINES}/{index}", ENGINE, None, MS_BIND | MS_REC)
    hidden = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    _mount("none", ENGINES, "tmpfs", hidden, "size=4k,mode=555")
    _mount("none", "/proc", "tmpfs", hidden, "size=4k,mode=555")
    _mount("none", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_bytes},mode=1777")
    os.chdir("/tmp")


def _first_process(run, result_fd: int, said: int, wall_s: float) -> int:
    """In the forking child: start the namespace's PID 1, wait for it at most wall_s."""
    pid = _forked(lambda: _namespace_init(run, result_fd, said))
    os.close(said)
    ended = os.pidfd_open(pid)
    if not select.select([ended], [], [], wall_s)[0]:
        os.kill(pid, signal.SIGKILL)  # PID 1: every process of the group goes with it
        _report(result_fd, {TIMED_OUT: wall_s})
    os.waitpid(pid, 0)
    return 0


def _namespace_init(run, result_fd: int, said: int) -> int:
    """PID 1 of the group: keeps its capabilities, runs nothing of the student's, ends with
    the group's process (and with its own parent), which ends the rest of the namespace,
    and says how that process ended."""
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    pid = _forked(lambda: _run_group(run, result_fd, said))
    os.close(said)
    while True:  # reap orphans until the group's process ends
        ended, status = os.wait()
        if ended == pid:
            _report(result_fd, {EXIT_STATUS: os.waitstatus_to_exitcode(status)})
            return 0


def _run_group(run, result_fd: int, said: int) -> int:
    try:
        drop_capabilities()
    except OSError as exc:
        _report(said, {ISOLATION_FAILED: str(exc)})
        return 70
    os.write(said, ISOLATED)
    os.close(said)  # before any student code: it can say nothing more about isolation
    sys.path_importer_cache.clear()  # the zygote listed /opt/sealed/engine before the mount
    importlib.invalidate_caches()
    try:
        run(os.fdopen(result_fd, "wb", buffering=0))
    except BaseException:  # noqa: BLE001  (the student's code may raise anything, even exit)
        return 1
    return 0


def drop_capabilities() -> None:
    """Every capability the new user namespace gave, gone for good (bounding set, ambient,
    effective, permitted, inheritable); raises where any is left."""
    for cap in range(64):
        if _libc().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            if ctypes.get_errno() == errno.EINVAL:  # past the last capability
                break
            _check(-1, "dropping capabilities")
    _libc().prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    _check(_libc().capset(header, (ctypes.c_uint32 * 6)()), "dropping capabilities")
    left = (ctypes.c_uint32 * 6)()
    _check(_libc().capget(header, left), "reading capabilities")
    if any(left):
        raise OSError(errno.EPERM, "capabilities were left after dropping them")


def _mount(source, target: str, kind, flags: int, data: str | None = None) -> None:
    result = _libc().mount(_bytes(source), target.encode(), _bytes(kind), flags, _bytes(data))
    _check(result, f"mounting {target}")


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _report(result_fd: int, message: dict) -> None:
    try:
        os.write(result_fd, json.dumps(message).encode() + b"\n")
    except OSError:
        pass
