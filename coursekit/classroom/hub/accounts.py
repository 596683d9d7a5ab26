"""Unix accounts for a class on one machine: one per student and per instructor.

JupyterHub's LocalProcessSpawner starts each person's JupyterLab as their own Unix user, so
that the file system keeps students apart: each home is 0700, the course directory belongs to
the instructor alone (0700), and nbgrader's exchange is the one folder everyone writes.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import subprocess
from pathlib import Path

# What useradd accepts everywhere (Debian's NAME_REGEX, without the trailing $ of Samba)
UNIX_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


def name_problem(name: str) -> str:
    """Why `name` cannot be a Unix account ("" when it can)."""
    if not UNIX_NAME.match(name):
        return (
            f"{name!r} cannot be a Unix account name (lower-case letters, digits, - and _, "
            "starting with a letter, at most 32): give the roster ids that form"
        )
    return ""


def ordinary_uids(defs: Path = Path("/etc/login.defs")) -> range:
    """The uids of people's accounts (login.defs' UID_MIN..UID_MAX; Debian's 1000..60000):
    below are the system's (daemon, www-data), above nobody and the like."""
    found = {"UID_MIN": 1000, "UID_MAX": 60000}
    try:
        for line in defs.read_text().splitlines():
            words = line.split()
            if len(words) == 2 and words[0] in found and words[1].isdigit():
                found[words[0]] = int(words[1])
    except OSError:
        pass
    return range(found["UID_MIN"], found["UID_MAX"] + 1)


def system_accounts(names) -> list[str]:
    """The `names` that are existing accounts outside the people's uid range (root, daemon,
    www-data, nobody): a class must not sign in as one, nor the instructor join its group."""
    people = ordinary_uids()
    return [n for n in names if exists(n) and pwd.getpwnam(n).pw_uid not in people]


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def ensure_accounts(names, homes: Path | None = None) -> list[str]:
    """Create the accounts of `names` that do not exist yet (home under `homes`, default
    useradd's), each home 0700; returns the names created. Needs root."""
    problems = [p for p in map(name_problem, names) if p]
    if problems:
        raise SystemExit(problems[0])
    missing = [n for n in names if not exists(n)]
    if missing and (os.geteuid() != 0 or shutil.which("useradd") is None):
        raise SystemExit(
            f"the accounts {', '.join(missing)} do not exist and only root can create them "
            "(useradd): run `minigrad-course hub` as root, or create them first"
        )
    for name in missing:
        command = ["useradd", "--create-home", "--shell", "/bin/bash", "--user-group"]
        if homes is not None:
            command += ["--home-dir", str(Path(homes) / name)]
        done = subprocess.run([*command, name], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"useradd {name} failed: {done.stderr.strip()}")
    for name in names:
        home = Path(pwd.getpwnam(name).pw_dir)
        if home.is_dir() and home.stat().st_uid == pwd.getpwnam(name).pw_uid:
            home.chmod(0o700)  # Debian's default lets everyone read every home
    return missing


def add_to_groups(name: str, groups) -> None:
    """Put `name` in each of `groups` (the instructor in each student's own group, so that
    feedback can be made readable by that one student: release_feedback.py)."""
    wanted = [g for g in groups if name not in grp.getgrnam(g).gr_mem]
    if wanted:
        subprocess.run(["usermod", "--append", "--groups", ",".join(wanted), name], check=True)


def remove_accounts(names) -> None:
    """userdel --remove each (tests: the accounts they made, and their homes)."""
    for name in names:
        if exists(name):
            subprocess.run(["userdel", "--remove", name], capture_output=True)
            try:
                grp.getgrnam(name)
            except KeyError:
                continue
            subprocess.run(["groupdel", name], capture_output=True)
