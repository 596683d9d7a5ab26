"""The students' distribution (`minigrad-course edition DIR`, this checkout's instructor
command, installed into one fresh environment), made once for the whole test session however
many pytest-xdist workers ask for it (tests/session_once.py). The tests only run the
environment: what they write (saved functions, shims that hide PyTorch, started folders) goes
to their own temporary folders, never into it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from session_once import once_per_session
from test_package_install import fresh_environment, pip_install


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
