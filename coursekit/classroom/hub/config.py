"""The configuration files of a class's JupyterHub, rendered from Jinja2 templates.

Every value is written as a Python literal (the `py` filter: repr of str, int, list, dict),
never pasted as text. The files:

- jupyterhub_config.py: LocalProcessSpawner (each person's JupyterLab as their own Unix user),
  the authenticator, the proxy (Traefik, started and configured by jupyterhub-traefik-proxy
  from files in the hub's folder; its API on localhost, behind a password), and a pre-spawn
  hook giving the instructor the course's nbgrader configuration and everyone else the
  students'.
- <role>/nbgrader_config.py: the course id and the exchange (and, for the instructor, the
  course directory and its own nbgrader_config.py), on the servers' JUPYTER_CONFIG_PATH.
- instructor/jupyter_server_config.json: the Formgrader may be framed by the instructor's
  own JupyterLab.
- student/jupyter_server_config.json and student/labconfig/page_config.json: no Formgrader,
  course list or assignment creation in a student's JupyterLab.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, StrictUndefined

TEMPLATES = Environment(undefined=StrictUndefined, keep_trailing_newline=True)
TEMPLATES.filters["py"] = repr

HUB = TEMPLATES.from_string('''\
# JupyterHub for the course {{ course_id|py }} (written by `minigrad-course hub`; rerunning it
# rewrites this file).
c = get_config()  # noqa: F821

c.JupyterHub.bind_url = {{ bind_url|py }}
c.JupyterHub.hub_bind_url = {{ hub_bind_url|py }}
c.JupyterHub.proxy_class = "traefik_file"
c.TraefikProxy.traefik_api_url = {{ proxy_api_url|py }}
c.TraefikProxy.traefik_api_password = {{ proxy_api_password|py }}
c.TraefikFileProviderProxy.static_config_file = {{ (state ~ "/traefik.toml")|py }}
c.TraefikFileProviderProxy.dynamic_config_file = {{ (state ~ "/traefik-routes.toml")|py }}
# a class's server may be offline: Traefik asks for nothing on the internet
c.TraefikProxy.extra_static_config = {"global": {"checkNewVersion": False,
                                                 "sendAnonymousUsage": False}}
c.JupyterHub.db_url = {{ ("sqlite:///" ~ state ~ "/jupyterhub.sqlite")|py }}
c.JupyterHub.cookie_secret_file = {{ (state ~ "/jupyterhub_cookie_secret")|py }}
c.JupyterHub.pid_file = {{ (state ~ "/jupyterhub.pid")|py }}
c.JupyterHub.cleanup_servers = True  # stopping the hub stops everyone's JupyterLab

# Authentication: {{ auth_note }}
c.JupyterHub.authenticator_class = {{ authenticator|py }}
{% for key, value in auth_settings.items() -%}
c.{{ key }} = {{ value|py }}
{% endfor -%}
c.Authenticator.allowed_users = set({{ users|py }})
c.Authenticator.admin_users = set({{ instructors|py }})

# Each person's JupyterLab runs as their own Unix account, started in their home.
c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = [{{ singleuser|py }}]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = {{ start_timeout|py }}
c.Spawner.http_timeout = {{ start_timeout|py }}
c.Spawner.env_keep = ["PATH", "PYTHONPATH", "LANG", "LC_ALL", "VIRTUAL_ENV",
                      "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"]
{% if lab_args -%}
# JupyterLab's menus in the class's language by default (coursekit/lab_menus.py)
c.Spawner.args = {{ lab_args|py }}
{% endif -%}
{% for key, value in spawner_settings.items() -%}
c.{{ key }} = {{ value|py }}
{% endfor %}
INSTRUCTORS = {{ instructors|py }}
COURSE_ROOT = {{ course_root|py }}
CONFIG_PATH = {"instructor": {{ instructor_config|py }}, "student": {{ student_config|py }}}


def per_role(spawner):
    """The instructor's server gets the course's nbgrader config and serves the course
    directory (the Formgrader wants the course inside the server's root); a student's gets the
    students' config (Assignment List, Validate) and serves their home."""
    role = "instructor" if spawner.user.name in INSTRUCTORS else "student"
    spawner.environment = {**spawner.environment, "JUPYTER_CONFIG_PATH": CONFIG_PATH[role]}
    if role == "instructor":
        spawner.notebook_dir = COURSE_ROOT


c.Spawner.pre_spawn_hook = per_role
''')

NBGRADER = TEMPLATES.from_string("""\
# nbgrader for the {{ role }}s of {{ course_id|py }} (written by `minigrad-course hub`).
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {{ course_id|py }}
c.Exchange.root = {{ exchange|py }}
{% if course_root -%}
c.CourseDirectory.root = {{ course_root|py }}
# The course's own settings (sealed grading steps, safe rendering of submissions).
load_subconfig({{ course_config|py }})  # noqa: F821
{% endif -%}
""")

# nbgrader's instructor-only pieces, off in a student's JupyterLab (they could not read the
# course anyway: this keeps the menus to what a student can use)
STUDENT_SERVER = {
    "ServerApp": {
        "jpserver_extensions": {
            "nbgrader.server_extensions.formgrader": False,
            "nbgrader.server_extensions.course_list": False,
        }
    }
}
# The Formgrader is a page of the instructor's own server framed by their JupyterLab:
# jupyterhub-singleuser's default policy, frame-ancestors 'none', would blank it
INSTRUCTOR_SERVER = {
    "ServerApp": {
        "tornado_settings": {"headers": {"Content-Security-Policy": "frame-ancestors 'self'"}}
    }
}
STUDENT_LAB = {
    "disabledExtensions": {
        "@jupyter/nbgrader:formgrader": True,
        "@jupyter/nbgrader:course-list": True,
        "@jupyter/nbgrader:create-assignment": True,
    }
}


@dataclass
class HubSettings:
    course_id: str
    course_root: Path
    exchange: Path
    state: Path  # the hub's own files: root's, 0700
    config_dir: Path  # the servers' config: world-readable, no secret in it
    users: list[str]
    instructors: list[str]
    bind_url: str
    hub_bind_url: str
    proxy_api_url: str
    singleuser: str
    authenticator: str
    auth_note: str
    auth_settings: dict = field(default_factory=dict)
    spawner_settings: dict = field(default_factory=dict)
    lab_args: list = field(default_factory=list)  # options of everyone's JupyterLab
    start_timeout: int = 120
    proxy_api_password: str = field(default_factory=lambda: secrets.token_urlsafe(32))


def write_configs(s: HubSettings) -> Path:
    """Write every file; returns jupyterhub_config.py's path."""
    instructor_config = s.config_dir / "instructor"
    student_config = s.config_dir / "student"
    for folder in (instructor_config, student_config / "labconfig"):
        folder.mkdir(parents=True, exist_ok=True)
    common = {"course_id": s.course_id, "exchange": str(s.exchange)}
    (instructor_config / "nbgrader_config.py").write_text(
        NBGRADER.render(
            role="instructor",
            course_root=str(s.course_root),
            course_config=str(s.course_root / "nbgrader_config.py"),
            **common,
        )
    )
    (instructor_config / "jupyter_server_config.json").write_text(
        json.dumps(INSTRUCTOR_SERVER, indent=1)
    )
    (student_config / "nbgrader_config.py").write_text(
        NBGRADER.render(role="student", course_root="", **common)
    )
    (student_config / "jupyter_server_config.json").write_text(json.dumps(STUDENT_SERVER, indent=1))
    (student_config / "labconfig" / "page_config.json").write_text(
        json.dumps(STUDENT_LAB, indent=1)
    )
    for path in [s.config_dir, *s.config_dir.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    hub_file = s.state / "jupyterhub_config.py"
    hub_file.write_text(
        HUB.render(
            **{k: v for k, v in vars(s).items() if not isinstance(v, Path)},
            course_root=str(s.course_root),
            state=str(s.state),
            instructor_config=str(instructor_config),
            student_config=str(student_config),
        )
    )
    hub_file.chmod(0o600)
    return hub_file
