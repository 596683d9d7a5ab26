"""Integrity, round 3 (issue 30): the clock, the roster, the exports, `extend` and the hub.

Each test holds a hostile sample and the defence it meets:

- a backdated exchange entry (its name, timestamp.txt and file times two days old, the
  folder handed in now) is recorded at the time it reached the exchange, with a note;
- the first time collect saw an entry is kept in the course (not in the exchange): a later
  chmod of the entry does not move it, a change of its content does;
- an entry from an id not on the roster (`root`) is left out with its reason;
- an entry named after a student with no local account, owned by another account, is left
  out (whose it is cannot be checked);
- every text cell of every export (grades.csv, Canvas, Moodle) is written so that a
  spreadsheet reads no formula, the Moodle e-mail column included;
- `extend --days inf`, `1e308`, `nan` and beyond a century are refused in words;
- `hub` refuses roster ids that are system accounts (unless told), and the instructor's
  account never goes through first-use sign-in.

The exchange's owners are real: a Unix account this module creates (useradd) and removes at
its end. Entries are written by the test and handed to that account (lchown), which is what
the account could have made itself: names, timestamp.txt and file times are a student's to
set, a ctime is nobody's.
"""

from __future__ import annotations

import asyncio
import csv
import html
import json
import os
import pwd
import secrets
import shutil
import stat
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest
from rosters import CLASS_OF_EIGHT, roster_text
from test_hub_config import _load, _settings
from test_pipeline import answered, run, toy_solutions
from traitlets.utils.importstring import import_item

from coursekit.classroom.course import Course
from coursekit.classroom.deadlines import submission_time
from coursekit.classroom.hub import accounts
from coursekit.classroom.hub import launch as hub
from coursekit.classroom.hub.config import write_configs
from coursekit.classroom.spreadsheet import FORMULA_STARTS, NUMBER
from coursekit.cli import main as cli

pytestmark = pytest.mark.xdist_group("integrity_intake")  # one worker builds the class
ABSENT = ("ben", "root")  # ids the tests rely on: ben has no local account, root is not enrolled


def _utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _stamp(when: datetime) -> str:
    return f"{when:%Y-%m-%d %H:%M:%S.%f} UTC"  # nbgrader's


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """A toy class released to its exchange; the roster is CLASS_OF_EIGHT and one real
    account (the student whose entries are theirs)."""
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("needs root and useradd: an exchange entry's owner is a real account")
    if accounts.exists("ben"):
        pytest.skip("a local account named ben exists here: the unverifiable owner needs none")
    student = f"mgq{secrets.token_hex(3)}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin",
                    "--user-group", student], check=True, capture_output=True)  # fmt: skip
    try:
        tmp = tmp_path_factory.mktemp("integrity-intake")
        roster = tmp / "roster.csv"
        roster.write_text(roster_text([*CLASS_OF_EIGHT, (student, "Sam", "Real")]))
        course = tmp / "course"
        run("init", course, "--solutions", toy_solutions(tmp / "solutions"), "--cpu-only",
            "--roster", roster)  # fmt: skip
        run("release", "-C", course)
        yield course, student
    finally:
        accounts.remove_accounts([student])
    assert not accounts.exists(student)


@pytest.fixture
def course(klass):
    """The class with an empty inbound, nothing collected and nothing remembered."""
    course, student = klass
    for entry in inbound(course).iterdir():
        shutil.rmtree(entry)
    shutil.rmtree(course / "submitted", ignore_errors=True)
    for name in ("exchange-seen.json", "collect-problems.json"):
        (course / ".pipeline" / name).unlink(missing_ok=True)
    return course, student


def inbound(course: Path) -> Path:
    return course.parent / "course-exchange" / Course.at(course).course_id / "inbound"


def hand_in(course: Path, student: str, when: datetime, owner: str | None = None,
            claim: datetime | None = None) -> Path:  # fmt: skip
    """An entry named `student` and `when` (nbgrader's layout), its timestamp.txt saying
    `claim` (default: `when`) and its files' times `when`; then owned by `owner`."""
    entry = inbound(course) / f"{student}+toy+{_stamp(when)}+{secrets.token_hex(4)}"
    entry.mkdir()
    nb = answered(course, preamble=f"# {student}\n")
    (entry / "toy.ipynb").write_text(nbformat.writes(nb))
    (entry / "timestamp.txt").write_text(_stamp(claim or when))
    seconds = when.replace(tzinfo=timezone.utc).timestamp()
    for path in [*entry.iterdir(), entry]:
        os.utime(path, (seconds, seconds))
    if owner is not None:
        account = pwd.getpwnam(owner)
        for path in [entry, *entry.iterdir()]:
            os.lchown(path, account.pw_uid, account.pw_gid)
    return entry


def collect(course: Path, capsys) -> tuple[str, list[str]]:
    capsys.readouterr()
    run("collect", "-C", course)
    out = capsys.readouterr().out
    return out, json.loads((course / ".pipeline" / "collect-problems.json").read_text())["toy"]


def recorded(course: Path, student: str) -> datetime:
    return datetime.fromisoformat(submission_time(course / "submitted" / student / "toy")["time"])


def said_about(listed: list[str], entry: Path) -> str:
    (said,) = [line for line in listed if line.startswith(f"inbound entry {entry.name!r}")]
    return said


# --- the clock ---------------------------------------------------------------------------------
def test_a_backdated_entry_is_recorded_when_it_reached_the_exchange(course, capsys):
    course, student = course
    before = _utc_now() - timedelta(seconds=2)
    two_days_ago = before - timedelta(days=2)
    entry = hand_in(course, student, two_days_ago, owner=student)
    out, listed = collect(course, capsys)
    assert recorded(course, student) >= before  # not two days ago
    said = said_about(listed, entry)
    assert f"it says it was handed in at {two_days_ago:%Y-%m-%d %H:%M:%S} UTC" in said
    assert said.endswith("collected with the exchange's time") and said in out
    # the first-seen time is the course's, out of every student's reach
    assert (
        entry.name in json.loads((course / ".pipeline" / "exchange-seen.json").read_text())["toy"]
    )
    assert not any("seen" in p.name for p in inbound(course).parent.rglob("*"))


def test_a_timestamp_txt_earlier_than_the_entry_is_not_kept_either(course, capsys):
    course, student = course
    now = _utc_now()
    entry = hand_in(course, student, now, owner=student, claim=now - timedelta(days=2))
    _, listed = collect(course, capsys)
    assert recorded(course, student) >= now - timedelta(seconds=1)
    assert "collected with the exchange's time" in said_about(listed, entry)


def test_the_first_seen_time_survives_a_chmod_but_not_a_change_of_content(course, capsys):
    course, student = course
    entry = hand_in(course, student, _utc_now(), owner=student)
    collect(course, capsys)
    first = recorded(course, student)
    time.sleep(1.1)
    entry.chmod(0o750)  # an administrator's chmod (or chown, or a restore) moves every ctime
    _, listed = collect(course, capsys)
    assert recorded(course, student) == first and not listed
    time.sleep(1.1)
    with open(entry / "toy.ipynb", "a") as notebook:  # the student's own entry, rewritten late
        notebook.write("\n")
    _, listed = collect(course, capsys)
    assert recorded(course, student) > first + timedelta(seconds=2)
    assert "changed after collect first saw it" in said_about(listed, entry)


def test_a_seen_entry_grown_past_the_limits_is_left_out_and_the_copy_kept(course, capsys):
    course, student = course
    entry = hand_in(course, student, _utc_now(), owner=student)
    run("collect", "-C", course, "--max-files", "5")
    first = recorded(course, student)
    for n in range(10):
        (entry / f"extra{n}.txt").write_text("x")
    run("collect", "-C", course, "--max-files", "5")
    listed = json.loads((course / ".pipeline" / "collect-problems.json").read_text())["toy"]
    assert "more than 5 files" in said_about(listed, entry)
    assert recorded(course, student) == first


def test_an_entry_placed_by_the_instructor_keeps_its_names_time(course, capsys):
    course, _ = course
    when = _utc_now() - timedelta(days=3)
    hand_in(course, "ada", when)  # root's, as collect's: the course's own
    _, listed = collect(course, capsys)
    assert recorded(course, "ada") == when and not listed


# --- the roster ----------------------------------------------------------------------------
def test_an_id_not_on_the_roster_is_left_out_with_its_reason(course, capsys):
    course, _ = course
    intruder = hand_in(course, "root", _utc_now())  # root's own entry, and still not a student
    hand_in(course, "ada", _utc_now())
    out, listed = collect(course, capsys)
    said = said_about(listed, intruder)
    assert "'root' is not on the roster" in said and said.endswith("left out")
    assert f"left out (toy): {said}" in out
    assert sorted(os.listdir(course / "submitted")) == ["ada"]


def test_a_student_only_grading_knows_is_not_on_the_roster(course, capsys):
    course, _ = course
    with Course.at(course).gradebook() as gb:
        gb.update_or_create_student("zed")  # as grading adds whoever it grades
    stray = hand_in(course, "zed", _utc_now())
    _, listed = collect(course, capsys)
    assert "'zed' is not on the roster" in said_about(listed, stray)
    assert not (course / "submitted" / "zed").exists()


def test_an_entry_whose_owner_cannot_be_checked_is_left_out(course, capsys):
    course, student = course
    assert not accounts.exists("ben")
    forged = hand_in(course, "ben", _utc_now(), owner=student)  # any account, in ben's name
    hand_in(course, student, _utc_now(), owner=student)  # the account's own: checked, taken
    _, listed = collect(course, capsys)
    said = said_about(listed, forged)
    assert f"no local user is named ben, so that it is theirs cannot be checked (it belongs to " \
        f"{student})" in said and said.endswith("left out")  # fmt: skip
    assert sorted(os.listdir(course / "submitted")) == [student]


# --- the exports -------------------------------------------------------------------------------
HOSTILE = {  # student id -> what the gradebook holds for them (past the roster's checks)
    "=HYPERLINK(1)": {"first_name": "=1+1", "last_name": "+cmd", "email": "@SUM(1+1)*cmd",
                      "lms_user_id": "-2+3"},
    "-2+3": {"first_name": "@x", "last_name": "\t=2", "email": "-2+3"},
}  # fmt: skip
DETAILS = {"=HYPERLINK(1)": {"sis_id": "=cmd|' /C calc'!A0", "sis_login_id": "@login",
                             "section": "\r=3"}}  # fmt: skip


def test_every_text_cell_of_every_export_reads_as_text(course, tmp_path):
    from coursekit.classroom.runs import StudentDetail, ensure_table

    course, _ = course
    with Course.at(course).gradebook() as gb:
        for student, fields in HOSTILE.items():
            gb.update_or_create_student(student, **fields)
        ensure_table(gb.engine)
        for student, fields in DETAILS.items():
            gb.db.merge(StudentDetail(student_id=student, **fields))
        gb.db.commit()
    hostile = {v for fields in [*HOSTILE.values(), *DETAILS.values()] for v in fields.values()}
    hostile |= set(HOSTILE)
    for layout in ("csv", "canvas", "moodle"):
        out = tmp_path / f"{layout}.csv"
        run("export", "-C", course, "--format", layout, "--out", out)
        with open(out, newline="", encoding="utf-8") as handle:
            cells = [cell for row in csv.reader(handle) for cell in row]
        raw = [c for c in cells if c.startswith(FORMULA_STARTS) and not NUMBER.match(c)]
        assert raw == [], f"{layout}: cells a spreadsheet reads as formulas: {raw}"
        escaped = {c[1:] for c in cells if c.startswith("'")} & hostile
        assert escaped, f"{layout}: no hostile value reached the file (nothing was tested)"
    assert {"@SUM(1+1)*cmd", "-2+3"} <= escaped  # Moodle's e-mail column, the sample


# --- extend ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [["--days", "inf"], ["--days", "1e308"], ["--hours", "nan"],
                                   ["--days", "40000"], ["--hours=-inf"]])  # fmt: skip
def test_extend_refuses_non_finite_and_absurd_lengths(tmp_path, capsys, value):
    course = tmp_path / "course"
    (course / "source" / "toy").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(f"c.CourseDirectory.root = {str(course)!r}\n")
    with Course.at(course).gradebook() as gb:
        gb.update_or_create_student("ada")
    with pytest.raises(SystemExit) as stopped:
        cli(["extend", "-C", str(course), "ada", "toy", *value])
    said = str(stopped.value)
    assert "at most 36525 days" in said and "\n" not in said
    assert "Traceback" not in capsys.readouterr().err


def test_extend_takes_a_long_but_finite_extension(tmp_path):
    course = tmp_path / "course"
    (course / "source" / "toy").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(f"c.CourseDirectory.root = {str(course)!r}\n")
    with Course.at(course).gradebook() as gb:
        gb.update_or_create_student("ada")
    assert cli(["extend", "-C", str(course), "ada", "toy", "--days", "30000"]) == 0


# --- the hub -----------------------------------------------------------------------------------
class Reached(Exception):
    """prepare_hub got as far as making accounts (stopped there: nothing is changed)."""


def _stop_before_accounts(*_args, **_kwargs):
    raise Reached


@pytest.fixture
def hub_without_side_effects(monkeypatch, tmp_path):
    """prepare_hub up to its first change to the system (accounts): everything it checks on
    the machine first is stubbed, making accounts raises Reached."""
    if os.geteuid() != 0:
        pytest.skip("prepare_hub runs as root")
    monkeypatch.setattr(hub, "proxy_command", lambda: "/bin/true")
    monkeypatch.setattr(hub, "needed_by_everyone", lambda: [])
    monkeypatch.setattr(hub, "closed_to_others", lambda path: None)
    monkeypatch.setattr(hub, "_exchange_of", lambda course, homes: tmp_path / "exchange")
    monkeypatch.setattr(accounts, "ensure_accounts", _stop_before_accounts)
    monkeypatch.setattr(accounts, "add_to_groups", _stop_before_accounts)
    return lambda rows, instructor, **kw: hub.prepare_hub(
        None, rows, instructor, tmp_path / "hub", **kw
    )


@pytest.mark.parametrize("system", ["daemon", "root", "nobody"])
def test_hub_refuses_a_roster_id_that_is_a_system_account(hub_without_side_effects, system):
    if not accounts.exists(system):
        pytest.skip(f"no {system} account here")
    prepare = hub_without_side_effects
    with pytest.raises(SystemExit, match=f"{system} already exist as system accounts") as said:
        prepare([{"id": "ada"}, {"id": system}], "teacher")
    assert "--allow-system-accounts" in str(said.value)
    with pytest.raises(SystemExit, match=f"{system} already exist as system accounts"):
        prepare([{"id": "ada"}], system)  # nor may the instructor be one
    with pytest.raises(Reached):  # told: on to making the accounts
        prepare([{"id": "ada"}, {"id": system}], "teacher", allow_system_accounts=True)


def test_the_instructors_account_never_goes_through_first_use(tmp_path):
    pytest.importorskip("firstuseauthenticator")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    settings = hub._auth_settings("first-use", state, "teacher")
    password_file = settings.pop("password_file")
    info = password_file.stat()
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.geteuid()
    password = password_file.read_text().strip()
    assert len(password) >= 24
    config = _load(write_configs(_settings(tmp_path, **settings)))
    authenticator = import_item(config.JupyterHub.authenticator_class)(config=config)
    authenticator._user_exists = lambda name: True  # the hub puts the allowed users in its db

    def sign_in(name: str, typed: str):
        # a loop of its own, in a thread: this test's worker may already run one (Playwright's)
        attempt = authenticator.authenticate(None, {"username": name, "password": typed})
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, attempt).result()

    assert sign_in("teacher", "whoever-comes-first") is None  # no first use for the instructor
    assert sign_in("teacher", password) == "teacher"
    assert sign_in("ada", "ada's own choice") == "ada"  # a student's first use
    assert sign_in("ada", "someone else's") is None
    assert "set by `minigrad-course hub`" in authenticator.reset_password("teacher", "x" * 12)
    assert hub._auth_settings("first-use", state, "teacher")["password_file"].read_text() == (
        password + "\n"
    )  # a second `hub` keeps it


# --- one class holding one of each: collected, graded, listed ----------------------------------
@pytest.mark.slow
def test_collect_and_grade_take_everyone_else_and_list_each_bad_entry(course, capsys):
    course, student = course
    now = _utc_now()
    run("deadline", "-C", course, "toy", f"{now - timedelta(hours=23):%Y-%m-%d %H:%M}")
    run("late-policy", "-C", course, "--per-day", "10")
    hand_in(course, "ada", now - timedelta(days=2))  # on time, placed by the instructor
    backdated = hand_in(course, student, now - timedelta(days=2), owner=student)
    bad = {
        hand_in(course, "root", now - timedelta(days=2)): "'root' is not on the roster",
        hand_in(course, "ben", now - timedelta(days=2), owner=student): "no local user is "
        "named ben",
    }
    out, listed = collect(course, capsys)
    for entry, reason in bad.items():
        said = said_about(listed, entry)
        assert reason in said and said.endswith("left out") and said in out
    assert "collected with the exchange's time" in said_about(listed, backdated)
    assert sorted(os.listdir(course / "submitted")) == sorted(["ada", student])

    run("grade", "-C", course, "-j", "2")
    run("export", "-C", course)
    with open(course / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert (rows["ada"]["toy"], rows["ada"]["toy/late"]) == ("3", "")
    assert rows[student]["toy/before_penalty"] == "3"  # graded in full, then late by 23 h: a day
    assert (rows[student]["toy/penalty"], rows[student]["toy/late"]) == ("0.3", "late")
    assert rows["ben"]["toy/status"] == "missing" and "root" not in rows
    run("report", "-C", course)
    page = html.unescape((course / "report" / "index.html").read_text())
    assert all(line in page for line in listed)
