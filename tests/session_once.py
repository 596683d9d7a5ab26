"""What several tests share, made once for the whole test session however many pytest-xdist
workers ask for it (the students' distribution, the instructor's package, the demo class, the
planted bugs' observations, ...).

The first worker to ask makes it under a file lock, in the folder the session's workers
share (their base temporary folders' parent); the others wait on the lock, then reuse it. The
tests only read what was made: what they write goes to their own temporary folders."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

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
