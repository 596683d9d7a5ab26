"""A private PostgreSQL server, for a benchmark or a test: a fresh cluster in a temporary
folder (initdb, trust authentication), on a free port of 127.0.0.1, stopped and removed on
exit. Uses the server of the Debian package (/usr/lib/postgresql/*/bin, tools/sysdeps.sh)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def installed_bin() -> str | None:
    """The folder of the newest installed PostgreSQL's programs, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return str(Path(found[-1]).parent) if found else None


@contextmanager
def private_postgres(bin_dir: str, database: str = "gradebook") -> Iterator[str]:
    """Yields the URL of `database` on a server of its own (as root: run as `postgres`, the
    server refuses root)."""
    data = Path(tempfile.mkdtemp(prefix="minigrad-pg-"))
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_postgres:
        shutil.chown(data, "postgres")
    port = _free_port()
    quiet = {"check": True, "capture_output": True}
    subprocess.run([*as_postgres, f"{bin_dir}/initdb", "-D", f"{data}/db", "-A", "trust",
                    "-U", "postgres"], **quiet)  # fmt: skip
    options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1"
    subprocess.run([*as_postgres, f"{bin_dir}/pg_ctl", "-D", f"{data}/db", "-l",
                    f"{data}/log", "-w", "-o", options, "start"], **quiet)  # fmt: skip
    try:
        subprocess.run([f"{bin_dir}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U",
                        "postgres", database], **quiet)  # fmt: skip
        yield f"postgresql://postgres@127.0.0.1:{port}/{database}"  # the README's form
    finally:
        subprocess.run([*as_postgres, f"{bin_dir}/pg_ctl", "-D", f"{data}/db", "-m", "fast",
                        "stop"], capture_output=True)  # fmt: skip
        shutil.rmtree(data, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
