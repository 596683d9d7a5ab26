"""What tests/test_hub.py needs around a real JupyterHub: a folder every account can enter, the
hub started by `minigrad-course hub` (as root), commands run as one of its Unix accounts, and
cleaning up the accounts and processes the test made.

The Python running the tests may live where other users cannot go (pyenv under /root, 0700, on
this project's machines; the venv or the clone may too): JupyterHub starts each person's
JupyterLab as that person, so there the hub runs in a mount namespace of its own where each
closed folder on the way is a 0755 tmpfs holding only what is needed (bind-mounted). Nothing
outside the namespace changes; it ends with the hub. A real class installs Python where every
account can run it (README).
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from coursekit.classroom.hub.accounts import exists
from coursekit.classroom.hub.launch import closed_to_others, needed_by_everyone

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def require_root_and_tools() -> None:
    if os.geteuid() != 0:
        pytest.skip("the hub test creates Unix accounts: it needs root")
    for tool in ("useradd", "userdel", "runuser", "setpriv", "unshare", "nsenter"):
        if shutil.which(tool) is None:
            pytest.skip(f"the hub test needs {tool} (util-linux, passwd)")


def open_folder() -> Path:
    """A fresh folder under /tmp that every account may enter (pytest's tmp_path is inside
    pytest-of-root, 0700)."""
    base = Path(tempfile.mkdtemp(prefix="minigrad-hub-", dir="/tmp"))
    base.chmod(0o711)
    return base


def namespace_prefix(base: Path) -> list[str]:
    """The command prefix that runs the hub where what every account runs (the interpreter,
    the venv, the package: hub.needed_by_everyone) is reachable: each closed folder on the way
    becomes a 0755 tmpfs holding only the needed entries, bind-mounted from the real ones."""
    opened: dict[Path, set[str]] = {}  # closed folder -> its entries that must show through
    for path in needed_by_everyone():
        closed = closed_to_others(path)
        if closed is None:
            continue
        entry = path.relative_to(closed).parts[0]
        if closed_to_others(path) != closed or not Path(closed, entry).stat().st_mode & 0o001:
            pytest.skip(f"{path} is not reachable by other users and cannot be made so here")
        opened.setdefault(closed, set()).add(entry)
    if not opened:
        return []
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"], capture_output=True
    )
    if probe.returncode != 0:
        pytest.skip(f"{', '.join(map(str, opened))} closed to other users, and no mount "
                    "namespace can be made here to open them")  # fmt: skip
    steps, n = ["set -e"], 0
    for closed, entries in opened.items():
        held = []
        for entry in sorted(entries):
            hold = base / f"interpreter-mount-{n}"
            hold.mkdir()
            n += 1
            held.append((Path(closed, entry), hold))
            steps.append(
                f"mount --bind {shlex.quote(str(closed / entry))} {shlex.quote(str(hold))}"
            )
        steps.append(f"mount -t tmpfs -o mode=0755 tmpfs {shlex.quote(str(closed))}")
        for real, hold in held:
            kind = "mkdir -p" if real.is_dir() else "touch"
            steps += [f"{kind} {shlex.quote(str(real))}",
                      f"mount --bind {shlex.quote(str(hold))} {shlex.quote(str(real))}",
                      f"umount -l {shlex.quote(str(hold))}"]  # fmt: skip
    steps.append('exec "$@"')
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
            "; ".join(steps), "sh"]  # fmt: skip


@dataclass
class RunningHub:
    url: str
    process: subprocess.Popen
    log: Path
    config_path: Path  # the servers' JUPYTER_CONFIG_PATH folders, per role
    accounts: list[str] = field(default_factory=list)

    def as_user(self, user: str, role: str, *command, check=True, timeout=300):
        """`command` as the Unix account `user`, in its home, in the hub's mount namespace,
        with the environment its JupyterLab has (nsenter's --wd would keep the folder of
        the namespace outside, where getcwd fails: env --chdir moves inside)."""
        home = pwd.getpwnam(user).pw_dir
        env = [
            f"HOME={home}",
            f"USER={user}",
            f"PATH={BIN}:/usr/bin:/bin",
            f"PYTHONPATH={os.environ.get('PYTHONPATH', '')}",
            f"JUPYTER_CONFIG_PATH={self.config_path / role}",
            "OMP_NUM_THREADS=1",
            "OPENBLAS_NUM_THREADS=1",
        ]
        done = subprocess.run(
            ["nsenter", f"--target={self.process.pid}", "--mount", "--", "runuser", "-u",
             user, "--", "env", "-i", f"--chdir={home}", *env, *map(str, command)],
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
        if check:
            assert done.returncode == 0, f"{command} as {user}:\n{done.stdout}\n{done.stderr}"
        return done

    def stop(self) -> None:
        """The hub (its process group: proxy included); it stops everyone's server."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def start_hub(base: Path, course: Path, roster: Path, instructor: str, port: int, passwords):
    """`minigrad-course hub` with --auth shared-password: (students', instructor's) passwords."""
    log = base / "hub.log"
    command = [*namespace_prefix(base), str(BIN / "minigrad-course"), "hub", "-C", str(course),
               "--roster", str(roster), "--instructor", instructor, "--port", str(port),
               "--auth", "shared-password", "--homes", str(base / "homes"),
               "--state", str(base / "hub")]  # fmt: skip
    env = {**os.environ, "MINIGRAD_HUB_PASSWORD": passwords[0], "OMP_NUM_THREADS": "1"}
    env["MINIGRAD_HUB_ADMIN_PASSWORD"] = passwords[1]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    hub = RunningHub(f"http://127.0.0.1:{port}", process, log, base / "hub-jupyter-config")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the hub exited:\n{log.read_text()[-5000:]}")
        try:
            with urllib.request.urlopen(f"{hub.url}/hub/api/", timeout=5) as answer:
                if answer.status == 200:
                    return hub
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    hub.stop()
    raise AssertionError(f"the hub did not answer in 120 s:\n{log.read_text()[-5000:]}")


def end_processes_of(accounts) -> None:
    """Whatever still runs as the test's own accounts (a server the hub did not stop)."""
    uids = {pwd.getpwnam(a).pw_uid for a in accounts if exists(a)}
    left = [p for p in psutil.process_iter(["uids"]) if p.info["uids"].real in uids]
    for process in left:
        process.terminate()
    _, alive = psutil.wait_procs(left, timeout=10)
    for process in alive:
        process.kill()
