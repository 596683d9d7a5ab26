"""What several of issue 29's tests share, made once for the whole test session however many
pytest-xdist workers ask for it: the students' distribution (`minigrad-course edition DIR`,
this checkout's instructor command, installed into one fresh environment), and the sealed
grades of the windows test's notebooks.

The first worker to ask makes it under a file lock, in the folder the session's workers
share (their base temporary folders' parent); the others wait on the lock, then reuse it. The
tests only run the environment: what they write (saved functions, shims that hide PyTorch,
started folders) goes to their own temporary folders, never into it."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from test_package_install import fresh_environment, pip_install

MADE = ".made"  # written last, holding what was made: a half-made folder lacks it


def shared_folder(tmp_path_factory) -> Path:
    """The session's folder every worker sees (the controller's own temporary folder when
    pytest runs without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_session(tmp_path_factory, name: str, make: Callable[[Path], str]) -> str:
    """make(folder) the first time any worker of this session asks for `name`; its text
    (the same) for every later ask."""
    shared = shared_folder(tmp_path_factory)
    folder = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if (folder / MADE).is_file():
            return (folder / MADE).read_text()
        shutil.rmtree(folder, ignore_errors=True)  # a worker that failed half-way
        folder.mkdir()
        text = make(folder)
        (folder / MADE).write_text(text)
        return text


def students_distribution(tmp_path_factory) -> Path:
    """The installed students' distribution's site-packages."""

    def make(root: Path) -> str:
        cli = Path(sys.executable).with_name("minigrad-course")
        out = subprocess.run([cli, "edition", str(root / "project")], capture_output=True,
                             text=True)  # fmt: skip
        assert out.returncode == 0, out.stderr[-2000:]
        site = fresh_environment(root / "env")
        pip_install(site, str(root / "project"), cwd=root)
        return str(site)

    return Path(once_per_session(tmp_path_factory, "students-distribution", make))
