"""The hub's configuration files, loaded as JupyterHub and nbgrader load them (no hub started,
no account made: tests/test_hub.py does that), and the checks `minigrad-course hub` makes on
the exchange and the interpreter."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from traitlets.config.loader import PyFileConfigLoader

from coursekit.classroom.hub import launch as hub
from coursekit.classroom.hub.accounts import name_problem
from coursekit.classroom.hub.config import HubSettings, write_configs


def _settings(tmp_path: Path, **changes) -> HubSettings:
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\nc.Autograde.sealed_marker = 'from the course'\n"
    )
    state = tmp_path / "hub"
    state.mkdir()
    values = dict(
        course_id="autograd",
        course_root=course,
        exchange=tmp_path / "exchange",
        state=state,
        config_dir=tmp_path / "hub-jupyter-config",
        users=["teacher", "ada", "o'brien"],  # a quote stays inside its literal
        instructors=["teacher"],
        bind_url="http://127.0.0.1:8000",
        hub_bind_url="http://127.0.0.1:8081",
        proxy_api_url="http://127.0.0.1:8001",
        singleuser="/opt/venv/bin/jupyterhub-singleuser",
        authenticator="firstuseauthenticator.FirstUseAuthenticator",
        auth_note="first use",
        auth_settings={"FirstUseAuthenticator.create_users": False},
    )
    values.update(changes)
    return HubSettings(**values)


def _load(path: Path):
    return PyFileConfigLoader(path.name, path=str(path.parent)).load_config()


def test_the_hub_config_loads_and_gives_each_role_its_nbgrader(tmp_path):
    settings = _settings(tmp_path)
    config = _load(write_configs(settings))
    assert config.JupyterHub.spawner_class == "jupyterhub.spawner.LocalProcessSpawner"
    assert config.Spawner.cmd == ["/opt/venv/bin/jupyterhub-singleuser"]
    assert config.Authenticator.allowed_users == {"teacher", "ada", "o'brien"}
    assert config.Authenticator.admin_users == {"teacher"}
    assert config.FirstUseAuthenticator.create_users is False
    # the proxy: Traefik, its files in the hub's own folder, its API local and behind a password
    assert config.JupyterHub.proxy_class == "traefik_file"
    assert config.TraefikProxy.traefik_api_url == "http://127.0.0.1:8001"
    assert len(config.TraefikProxy.traefik_api_password) >= 32
    assert Path(config.TraefikFileProviderProxy.static_config_file).parent == settings.state
    assert Path(config.TraefikFileProviderProxy.dynamic_config_file).parent == settings.state
    assert config.TraefikProxy.extra_static_config["global"]["checkNewVersion"] is False
    assert (settings.state / "jupyterhub_config.py").stat().st_mode & 0o077 == 0

    hook = config.Spawner.pre_spawn_hook
    roles = {}
    for name in ("teacher", "ada"):
        spawner = SimpleNamespace(user=SimpleNamespace(name=name), environment={"A": "1"})
        hook(spawner)
        roles[name] = spawner
    teacher, ada = roles["teacher"], roles["ada"]
    assert teacher.notebook_dir == str(settings.course_root)
    assert not hasattr(ada, "notebook_dir")  # a student's server serves their home
    assert ada.environment["A"] == "1"

    instructor = _load(Path(teacher.environment["JUPYTER_CONFIG_PATH"], "nbgrader_config.py"))
    assert instructor.CourseDirectory.root == str(settings.course_root)
    assert instructor.Autograde.sealed_marker == "from the course"  # the course's own file
    student_dir = Path(ada.environment["JUPYTER_CONFIG_PATH"])
    student = _load(student_dir / "nbgrader_config.py")
    assert student.CourseDirectory.course_id == "autograd"
    assert student.Exchange.root == str(settings.exchange)
    assert "root" not in student.CourseDirectory
    server = json.loads((student_dir / "jupyter_server_config.json").read_text())
    assert (
        server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    )
    lab = json.loads((student_dir / "labconfig" / "page_config.json").read_text())
    assert lab["disabledExtensions"]["@jupyter/nbgrader:formgrader"] is True


def test_the_exchange_must_be_outside_the_course_and_the_homes(tmp_path):
    course = SimpleNamespace(root=tmp_path / "course", config=None)
    for exchange, words in (
        (tmp_path / "course" / "x", "course"),
        (tmp_path / "homes" / "x", "homes"),
    ):
        course.config = lambda e=exchange: SimpleNamespace(Exchange=SimpleNamespace(root=str(e)))
        with pytest.raises(SystemExit, match=f"inside the {words}"):
            hub._exchange_of(course, tmp_path / "homes")
    assert not (tmp_path / "course").exists()  # refused before anything was made


def test_closed_folders_are_named(tmp_path):
    closed = tmp_path / "closed"
    (closed / "inside").mkdir(parents=True)
    closed.chmod(0o700)
    try:
        found = hub.closed_to_others(closed / "inside" / "python")
        assert found is not None and found in (closed, *closed.parents)
    finally:
        closed.chmod(0o755)
    assert hub.closed_to_others(Path("/usr/bin/env")) is None  # open to all on any Linux


@pytest.mark.parametrize("name", ["Ada", "1ada", "a b", "ada/..", "x" * 33, ""])
def test_ids_that_cannot_be_accounts_are_refused(name):
    assert "cannot be a Unix account name" in name_problem(name)


def test_an_account_name_is_accepted():
    assert name_problem("ada_l-2") == ""


@pytest.mark.parametrize("auth", hub.AUTHENTICATORS)
def test_each_sign_in_choice_names_an_installed_authenticator(auth, tmp_path, monkeypatch):
    from jupyterhub.auth import Authenticator
    from traitlets.utils.importstring import import_item

    monkeypatch.setenv(hub.PASSWORD_VARIABLE, "s" * 8)
    monkeypatch.setenv(hub.ADMIN_PASSWORD_VARIABLE, "a" * 32)
    name = hub._auth_settings(auth, tmp_path)["authenticator"]
    if "." in name:
        found = import_item(name)
    else:  # JupyterHub's entry-point names ("shared-password")
        from importlib.metadata import entry_points

        (point,) = entry_points(group="jupyterhub.authenticators", name=name)
        found = point.load()
    assert issubclass(found, Authenticator)


def test_a_short_shared_password_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(hub.PASSWORD_VARIABLE, "short")
    monkeypatch.setenv(hub.ADMIN_PASSWORD_VARIABLE, "a" * 32)
    with pytest.raises(SystemExit, match="8 characters at least"):
        hub._auth_settings("shared-password", tmp_path)


def test_root_hands_back_what_it_wrote_in_an_instructors_course_never_through_a_link(tmp_path):
    import os

    from coursekit.classroom.grading.grade import hand_back

    if os.geteuid() != 0:
        pytest.skip("handing files to another account needs root")
    course = tmp_path / "course"
    (course / "autograded" / "ada").mkdir(parents=True)
    (course / "autograded" / "ada" / "a.ipynb").write_text("{}")
    outside = tmp_path / "outside.txt"  # root's, outside the course: must stay root's
    outside.write_text("root's")
    (course / "link").symlink_to(outside)
    (course / "dirlink").symlink_to(tmp_path)
    os.chown(course, 65534, 65534)  # the instructor's course (here: nobody's)
    changed = hand_back(SimpleNamespace(root=course))
    assert changed == 5  # autograded, ada, a.ipynb and both links themselves
    for path in (course / "autograded", course / "autograded" / "ada" / "a.ipynb"):
        assert path.stat().st_uid == 65534
    assert (course / "link").lstat().st_uid == 65534 == (course / "dirlink").lstat().st_uid
    assert outside.stat().st_uid == 0 and tmp_path.stat().st_uid == 0  # links not followed
    assert hand_back(SimpleNamespace(root=course)) == 0


@pytest.mark.parametrize("euid", [0, 1000])
def test_grade_says_plainly_which_sealing_layer_is_missing_and_how_to_get_it(euid, monkeypatch):
    import os
    import pwd

    from coursekit.classroom.grading import grade, grade_one
    from coursekit.sealed import sandbox

    monkeypatch.setattr(os, "geteuid", lambda: euid)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: SimpleNamespace(pw_name="teacher"))
    monkeypatch.setattr(grade_one, "_is_sealed", lambda course: True)
    course = SimpleNamespace(root=Path("/srv/courses/autograd"))
    monkeypatch.setattr(sandbox, "layers", lambda: {"process": "active", "namespace": "active",
                                                    "uid": "MISSING: not root"})  # fmt: skip
    notice = grade.sealing_notice(course)
    if euid:
        assert "student code ran as your own account (teacher)" in notice
        assert "sudo minigrad-course grade -C /srv/courses/autograd" in notice
        assert "namespace" not in notice
    else:
        assert notice.endswith("  uid: MISSING: not root")
    monkeypatch.setattr(sandbox, "layers", lambda: {"uid": "active", "namespace": "active"})
    assert grade.sealing_notice(course) == ""


def test_a_chinese_class_gets_jupyterlab_menus_in_chinese_by_default(tmp_path):
    """A class made in Chinese: everyone's JupyterLab starts with its app settings where the
    language's locale is the default of Settings > Language, readable by every account; an
    English class's hub passes no such option."""
    from coursekit.lab_menus import LANGUAGE_PLUGIN, OVERRIDES, menus_in

    folder = tmp_path / "hub-jupyter-config" / "lab-settings"  # in _settings' config_dir
    assert menus_in("en", folder) == [] and not folder.exists()
    args = menus_in("zh-CN", folder)
    config = _load(write_configs(_settings(tmp_path, lab_args=args)))
    assert config.Spawner.args == [f"--LabApp.app_settings_dir={folder}"]
    overrides = json.loads((folder / OVERRIDES).read_text())
    assert overrides[LANGUAGE_PLUGIN] == {"locale": "zh_CN"}
    assert all(p.stat().st_mode & 0o004 for p in [folder, *folder.rglob("*")])
    (tmp_path / "en").mkdir()
    assert "args" not in _load(write_configs(_settings(tmp_path / "en"))).Spawner
