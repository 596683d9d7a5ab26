"""The intake (issue 15): what collect and grade let into the course.

Each test builds a hostile sample in its tmp_path (an LMS download, an exchange entry, a
collected folder) and asserts the defence: the bad entry is left out with its reason and
everyone else is collected; nothing is written outside the course; grade reads regular
files only. The LMS tests that need no course call download.unpack_download directly.
"""

from __future__ import annotations

import getpass
import html
import io
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from rosters import CLASS_OF_EIGHT, roster_text
from test_pipeline import (
    answered,
    gradebook_scores,
    notes_of,
    run,
    sqlite_url,
    toy_solutions,
)

from coursekit.classroom.course import Course
from coursekit.classroom.intake.download import unpack_download
from coursekit.classroom.intake.exchange import NO_ROSTER
from coursekit.classroom.intake.file_limits import DEFAULT_LIMITS, Limits
from coursekit.cli import main as cli

pytestmark = pytest.mark.xdist_group("intake")  # one worker builds the module's course
REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
ROSTER = roster_text([*CLASS_OF_EIGHT, ("a+b", "Abe", "Plus")])  # an id with "+"


# --- hostile samples ---------------------------------------------------------------------------
def zip_bytes(members: dict[str, bytes], modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (modes or {}).get(name, 0o100644) << 16
            archive.writestr(info, content)
    return buffer.getvalue()


def zip_bomb(size: int = 256 * 2**20) -> bytes:
    """About 30 KiB that expands to `size` bytes two levels down (a zip in a zip)."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("toy.ipynb", "w", force_zip64=True) as out:
            for _ in range(size // 2**20):
                out.write(bytes(2**20))
    return zip_bytes({"inner.zip": inner.getvalue()})


HOSTILE_UPLOADS = {  # Canvas name of one student's upload: (bytes, words of the reason)
    "bitdiddleben_1_2_sub.zip": (lambda: zip_bytes({"../../evil.ipynb": NOTEBOOK}),
                                 "points outside its folder"),
    "fectcy_3_4_sub.zip": (lambda: b"PK but not a zip at all", "named like a zip but is not one"),
    "cohendee_5_6_" + "x" * 300 + ".ipynb": (lambda: NOTEBOOK, "longer than 255 bytes"),
    "parkkim_7_8_sub.zip": (zip_bomb, "zip bomb"),
    "xunlu_9_10_sub.zip": (lambda: zip_bytes({"a.zip": zip_bytes({"b.zip": zip_bytes(
        {"toy.ipynb": NOTEBOOK})})}), "nested deeper than 2"),
    "raymo_11_12_sub.zip": (lambda: zip_bytes({f"f{i}.ipynb": b"" for i in range(1001)}),
                            "more than the 1000 allowed"),
    "starkned_13_14_sub.zip": (lambda: zip_bytes({"toy.ipynb": b"/etc/passwd"},
                                                 {"toy.ipynb": 0o120777}), "symbolic link"),
}  # fmt: skip


def lms_zip(path: Path, entries: dict[str, bytes]) -> Path:
    path.write_bytes(zip_bytes(entries))
    return path


# --- an LMS download, unpacked alone --------------------------------------------------------
@pytest.mark.parametrize("name", HOSTILE_UPLOADS)
def test_a_hostile_upload_is_left_out_with_its_reason_and_the_rest_unpacked(tmp_path, name):
    make, reason = HOSTILE_UPLOADS[name]
    download = lms_zip(
        tmp_path / "download.zip", {"lovelaceada_1_2_toy.ipynb": NOTEBOOK, name: make()}
    )
    extracted = tmp_path / "course" / "extracted"
    problems = unpack_download(download, extracted, DEFAULT_LIMITS)
    assert len(problems) == 1 and reason in problems[0] and problems[0].endswith("left out")
    assert name[:40] in problems[0]
    assert os.listdir(extracted) == ["lovelaceada_1_2_toy.ipynb"]
    assert not [p for p in tmp_path.rglob("evil.ipynb")]  # nothing written outside


def test_the_zip_bomb_is_small_and_nothing_large_is_written(tmp_path):
    bomb = zip_bomb()
    assert len(bomb) < 64 * 1024
    download = lms_zip(tmp_path / "download.zip", {"parkkim_7_8_sub.zip": bomb})
    problems = unpack_download(download, tmp_path / "extracted", DEFAULT_LIMITS)
    assert "zip bomb" in problems[0]
    assert sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file()) < 2**20 + len(bomb)


def test_the_limits_are_a_setting(tmp_path):
    download = lms_zip(
        tmp_path / "download.zip", {"lovelaceada_1_2_toy.ipynb": os.urandom(3 * 2**20)}
    )
    assert unpack_download(download, tmp_path / "a", DEFAULT_LIMITS) == []
    small = Limits(max_bytes=2 * 2**20)
    (problem,) = unpack_download(download, tmp_path / "b", small)
    assert "more than 2 MiB" in problem


@pytest.mark.parametrize("hostile", ["fifo", "symlink", "symlinked_folder"])
def test_a_download_folder_holding_anything_but_regular_files_is_refused(tmp_path, hostile):
    download = tmp_path / "download"
    good, bad = download / "Ada Lovelace_1_assignsubmission_file_", download / "Ben B_2_x"
    good.mkdir(parents=True)
    bad.mkdir()
    (good / "toy.ipynb").write_bytes(NOTEBOOK)
    secret = tmp_path / "source"
    secret.mkdir()
    (secret / "toy.ipynb").write_bytes(b"the instructor's solutions")
    if hostile == "fifo":
        os.mkfifo(bad / "toy.ipynb")  # a reader would wait for ever
    elif hostile == "symlink":
        (bad / "toy.ipynb").symlink_to(secret / "toy.ipynb")
    else:
        (bad / "sub").symlink_to(secret)
    extracted = tmp_path / "extracted"
    (problem,) = unpack_download(download, extracted, DEFAULT_LIMITS)
    assert problem.startswith("Ben B_2_x: ") and problem.endswith("left out")
    assert {"fifo": "named pipe", "symlink": "symbolic link"}.get(hostile, "symbolic") in problem
    assert sorted(os.listdir(extracted)) == [good.name]
    assert b"solutions" not in b"".join(p.read_bytes() for p in extracted.rglob("*.ipynb"))


def test_collected_files_are_0644_whatever_the_zip_says(tmp_path):
    upload = zip_bytes({"toy.ipynb": NOTEBOOK}, {"toy.ipynb": 0o106777})
    download = lms_zip(tmp_path / "download.zip", {"lovelaceada_1_2_sub.zip": upload})
    umask = os.umask(0)  # 0644 by choice, not by the instructor's umask
    try:
        assert unpack_download(download, tmp_path / "x", DEFAULT_LIMITS) == []
    finally:
        os.umask(umask)
    (collected,) = [p for p in (tmp_path / "x").rglob("*") if p.is_file()]
    assert stat.S_IMODE(collected.stat().st_mode) == 0o644


# --- grade reads submitted/ by the same rules --------------------------------------------------
def _links_and_a_pipe(tmp_path) -> tuple[Path, Path]:
    """(the released notebook, a submission whose toy.ipynb and data.txt link to it and whose
    pipe.txt is a FIFO)."""
    secret = tmp_path / "source" / "toy.ipynb"
    secret.parent.mkdir()
    secret.write_bytes(NOTEBOOK)
    submitted = tmp_path / "submitted" / "zed" / "toy"
    submitted.mkdir(parents=True)
    (submitted / "toy.ipynb").symlink_to(secret)
    (submitted / "data.txt").symlink_to(secret)
    os.mkfifo(submitted / "pipe.txt")
    return secret, submitted


def test_grade_reads_no_symlink_or_fifo_in_a_submission(tmp_path):
    from coursekit.classroom.grading.repair import repair_submission

    secret, submitted = _links_and_a_pipe(tmp_path)
    repair = repair_submission(submitted, tmp_path / "work", {"toy": secret})
    assert repair.notebooks == [] and os.listdir(tmp_path / "work") == []
    for name, kind in [("toy.ipynb", "symbolic link"), ("data.txt", "symbolic link"),
                       ("pipe.txt", "named pipe (FIFO)")]:  # fmt: skip
        assert f"{name}: it is a {kind}; only regular files are graded" in repair.notes
    linked = tmp_path / "submitted" / "eve" / "toy"
    linked.parent.mkdir()
    linked.symlink_to(secret.parent)
    repair = repair_submission(linked, tmp_path / "work2", {"toy": secret})
    assert repair.notebooks == [] and "symbolic link, not a folder" in repair.notes[0]


def test_a_chinese_class_reads_why_a_file_was_not_graded_in_chinese(tmp_path, monkeypatch):
    """The notes atop a Chinese class's feedback, for files that are not regular files: the
    kind of file and the rule in Chinese (the file's name as handed in)."""
    from coursekit import i18n
    from coursekit.classroom.grading.repair import repair_submission

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    secret, submitted = _links_and_a_pipe(tmp_path)
    with i18n.speaking("zh-CN"):
        notes = repair_submission(submitted, tmp_path / "work", {"toy": secret}).notes
    assert sorted(notes) == [
        "data.txt: 它是一个符号链接；只对普通文件评分",
        "pipe.txt: 它是一个命名管道（FIFO）；只对普通文件评分",
        "toy.ipynb: 它是一个符号链接；只对普通文件评分",
    ]


# --- through nbgrader, on a toy course ----------------------------------------------------------
@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("intake")
    (root / "roster.csv").write_text(ROSTER)
    course = root / "course"
    run("init", course, "--solutions", toy_solutions(root / "solutions"), "--cpu-only")
    run("release", "-C", course)
    return course


def notebook_text(course: Path, marker: str) -> bytes:
    return nbformat.writes(answered(course, preamble=f"# {marker}\n")).encode()


def test_an_upload_cannot_say_it_is_another_students(course):
    """Ada uploads a zip whose inner file carries Ben's Canvas name: it is Ada's file, and
    Ben's own submission is neither replaced nor voided."""
    root = course.parent
    forged = zip_bytes({"bitdiddleben_3_4_toy.ipynb": notebook_text(course, "ada's")})
    download = lms_zip(
        root / "nested.zip",
        {"lovelaceada_1_2_sub.zip": forged, "bitdiddleben_5_6_toy.ipynb": notebook_text(
            course, "ben's")},
    )  # fmt: skip
    run("collect", "-C", course, "toy", "--from", download, "--roster", root / "roster.csv")
    ben = course / "submitted" / "ben" / "toy"
    handed_in = sorted(set(os.listdir(ben)) - {"timestamp.txt", ".submission.json"})  # its time
    assert handed_in == ["toy.ipynb"] and b"# ben's" in (ben / "toy.ipynb").read_bytes()
    (adas,) = (course / "submitted" / "ada" / "toy").glob("*.ipynb")
    assert b"# ada's" in adas.read_bytes()
    problems = json.loads((course / ".pipeline" / "collect-problems.json").read_text())
    assert problems["toy"] == []


def test_collect_takes_the_limits_as_options(course, capsys):
    root = course.parent
    download = lms_zip(root / "big.zip", {"cohendee_1_2_toy.ipynb": os.urandom(2 * 2**20)})
    capsys.readouterr()
    roster = root / "roster.csv"
    with pytest.raises(SystemExit, match="nothing collected for toy"):  # its one entry too big
        cli(["collect", "-C", str(course), "toy", "--from", str(download), "--roster",
             str(roster), "--max-mb", "1"])  # fmt: skip
    assert "cohendee_1_2_toy.ipynb: 2 MiB when unpacked, more than 1 MiB" in capsys.readouterr().out
    run("collect", "-C", course, "toy", "--from", download, "--roster", roster)
    assert (course / "submitted" / "dee" / "toy").is_dir()


# --- nbgrader's exchange --------------------------------------------------------------------
STAMP = "2026-11-25 10:00:00.000000 UTC"


def inbound(course: Path) -> Path:
    return course.parent / "course-exchange" / Course.at(course).course_id / "inbound"


def hand_in_to_exchange(course: Path, student: str, stamp=STAMP, content=None) -> Path:
    entry = inbound(course) / f"{student}+toy+{stamp}+r4nd0m"
    entry.mkdir()
    (entry / "toy.ipynb").write_bytes(content or notebook_text(course, student))
    (entry / "timestamp.txt").write_text(stamp)
    return entry


def collect_exchange(course: Path) -> tuple[str, dict]:
    """The CLI in a process of its own, with a deadline: a FIFO must not hang it."""
    done = subprocess.run(
        [sys.executable, "-m", "coursekit.cli", "collect", "-C", str(course)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    problems = json.loads((course / ".pipeline" / "collect-problems.json").read_text())
    return done.stdout, problems


@pytest.fixture
def exchange_course(tmp_path):
    course = tmp_path / "course"
    run("init", course, "--solutions", toy_solutions(tmp_path / "solutions"), "--cpu-only")
    run("release", "-C", course)
    return course


def other_user() -> str:
    """A local user that is not the one running the tests (an entry can name them)."""
    me = os.getuid()
    return next(u.pw_name for u in pwd.getpwall() if u.pw_uid != me and "+" not in u.pw_name)


def hostile_exchange_entries(course: Path, roster=False) -> dict[str, str]:
    """One of each bad inbound entry, in the names of students on the roster (kim, lu, mo,
    ned); returns entry name -> words of the reason (with a roster, an impostor in the name of
    a local user who is not enrolled is refused for that first)."""
    source = course / "source" / "toy" / "toy.ipynb"
    linked = hand_in_to_exchange(course, "kim")
    (linked / "toy.ipynb").unlink()
    (linked / "toy.ipynb").symlink_to(source)  # the instructor's solutions
    piped = hand_in_to_exchange(course, "lu")
    os.mkfifo(piped / "extra.txt")
    (inbound(course) / f"mo+toy+{STAMP}+r4nd0m").symlink_to(source.parent)
    hand_in_to_exchange(course, "ned", stamp="not a time")
    impostor = hand_in_to_exchange(course, other_user())  # created by us, not by them
    scripted = hand_in_to_exchange(course, "<img src=x onerror=alert(1)>")  # id as markup
    return {
        scripted.name: "holds one of",
        linked.name: "toy.ipynb is a symbolic link",
        piped.name: "extra.txt is a named pipe",
        f"mo+toy+{STAMP}+r4nd0m": "it is a symbolic link, not a folder",
        "ned+toy+not a time+r4nd0m": "'not a time' is not a timestamp",
        impostor.name: f"'{other_user()}' is not on the roster"
        if roster
        else f"it names {other_user()} but belongs to {getpass.getuser()}",
    }


def test_each_bad_exchange_entry_is_left_out_with_its_reason(exchange_course):
    course = exchange_course
    with Course.at(course).gradebook() as gb:
        gb.update_or_create_student("zed")  # as grading adds whoever it grades: no roster yet
    hand_in_to_exchange(course, "grace")  # no local user, but placed by the instructor
    hand_in_to_exchange(course, getpass.getuser())  # owned by the one it names
    bad = hostile_exchange_entries(course)
    out, problems = collect_exchange(course)
    listed = problems["toy"]
    for entry, reason in bad.items():
        (said,) = [p for p in listed if p.startswith(f"inbound entry {entry!r}")]
        assert reason in said and said.endswith("left out"), said
        assert said in out
    assert listed[len(bad):] == [NO_ROSTER]  # fmt: skip
    assert f"note (toy): {NO_ROSTER}" in out  # no roster: what that means
    assert sorted(os.listdir(course / "submitted")) == sorted(["grace", getpass.getuser()])
    assert b"BEGIN SOLUTION" not in b"".join(
        p.read_bytes() for p in (course / "submitted").rglob("*") if p.is_file()
    )


def test_an_entry_in_another_students_name_is_refused_where_uids_are_known(exchange_course):
    impostor = hand_in_to_exchange(exchange_course, other_user())
    _, problems = collect_exchange(exchange_course)
    assert problems["toy"] == [
        f"inbound entry {impostor.name!r}: it names {other_user()} but belongs to "
        f"{getpass.getuser()} (handed in under another student's name); left out",
        NO_ROSTER,
    ]
    assert not (exchange_course / "submitted").exists()


def test_exchange_files_are_collected_0644_and_a_refused_update_keeps_the_last_copy(
    exchange_course,
):
    course = exchange_course
    entry = hand_in_to_exchange(course, "grace")
    os.chmod(entry / "toy.ipynb", 0o6777)
    collect_exchange(course)
    collected = course / "submitted" / "grace" / "toy" / "toy.ipynb"
    assert stat.S_IMODE(collected.stat().st_mode) == 0o644
    newer = hand_in_to_exchange(course, "grace", stamp="2026-11-25 11:00:00.000000 UTC")
    (newer / "toy.ipynb").unlink()
    (newer / "toy.ipynb").symlink_to(course / "source" / "toy" / "toy.ipynb")
    _, problems = collect_exchange(course)
    assert problems["toy"][1:] == [NO_ROSTER] and "symbolic link" in problems["toy"][0]
    assert collected.read_bytes() == (entry / "toy.ipynb").read_bytes()


# --- one class with one of each: collected, graded, reported ------------------------------------
@pytest.mark.slow
def test_a_class_with_one_of_each_bad_entry_collects_and_grades_everyone_else(
    exchange_course, capsys
):
    course, root = exchange_course, exchange_course.parent
    (root / "roster.csv").write_text(ROSTER)
    full = {"test_add": 2.0, "test_mul": 1.0}
    uploads = {name: make() for name, (make, _) in HOSTILE_UPLOADS.items()}
    uploads["lovelaceada_1_2_toy.ipynb"] = notebook_text(course, "ada")
    uploads["plusabe_1_2_toy.ipynb"] = notebook_text(course, "a+b")  # an id with "+"
    download = lms_zip(root / "download.zip", uploads)
    capsys.readouterr()
    run("collect", "-C", course, "toy", "--from", download, "--roster", root / "roster.csv")
    out = capsys.readouterr().out
    for name, (_, reason) in HOSTILE_UPLOADS.items():
        (said,) = [line for line in out.splitlines() if name[:40] in line]
        assert reason in said and said.startswith("  left out: "), said
    assert sorted(os.listdir(course / "submitted")) == ["a+b", "ada"]

    hand_in_to_exchange(course, "dee")  # no local user, but placed by the instructor
    bad = hostile_exchange_entries(course, roster=True)
    intruder = hand_in_to_exchange(course, getpass.getuser())  # enrolled nowhere
    bad[intruder.name] = f"'{getpass.getuser()}' is not on the roster"
    out, problems = collect_exchange(course)
    assert all(any(entry in p and why in p for p in problems["toy"]) for entry, why in bad.items())
    # a symlink that reached submitted/ some other way is refused by grade too
    (course / "submitted" / "zed" / "toy").mkdir(parents=True)
    (course / "submitted" / "zed" / "toy" / "toy.ipynb").symlink_to(
        course / "source" / "toy" / "toy.ipynb"
    )

    run("grade", "-C", course, "-j", "2")
    scores = gradebook_scores(sqlite_url(course))
    graded = {"ada", "a+b", "dee"}
    assert {s: scores[(s, "toy")] for s in graded} == {s: full for s in graded}
    assert scores[("zed", "toy")] == {"test_add": 0.0, "test_mul": 0.0}
    assert any("symbolic link" in note for note in notes_of(sqlite_url(course), "zed"))
    run("report", "-C", course)
    page = (course / "report" / "index.html").read_text()
    assert all(problem in html.unescape(page) for problem in problems["toy"])


# --- the course directory is the instructor's; students reach only the exchange ----------------
def as_nobody(tmp_path: Path, *command: str) -> int:
    """Exit status of `command` run as the unprivileged user nobody, with tmp_path seen at
    /mnt: a private mount namespace, so nothing changes outside the test (pytest's own
    temporary root is closed to other users, so tmp_path cannot be reached where it is)."""
    if os.geteuid() != 0 or not all(shutil.which(t) for t in ("unshare", "setpriv")):
        pytest.skip("needs root, unshare and setpriv to act as an unprivileged user")
    tmp_path.chmod(0o755)  # pytest makes it 0700: open it, so that what is inside decides
    script = (
        'mount --bind "$0" /mnt && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"'
    )
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(tmp_path), *command],
        capture_output=True,
        timeout=60,
    )
    return done.returncode


def test_students_reach_the_exchange_but_not_the_course(exchange_course, tmp_path):
    course_id = Course.at(exchange_course).course_id
    course, exchange = "/mnt/course", f"/mnt/course-exchange/{course_id}"
    assert not (exchange_course / "exchange").exists()  # not inside the course
    assert as_nobody(tmp_path, "ls", course) != 0
    assert as_nobody(tmp_path, "cat", f"{course}/source/toy/toy.ipynb") != 0
    assert as_nobody(tmp_path, "cat", f"{course}/gradebook.db") != 0
    assert as_nobody(tmp_path, "cat", f"{exchange}/outbound/toy/toy.ipynb") == 0  # fetch
    assert as_nobody(tmp_path, "mkdir", f"{exchange}/inbound/nobody+toy+t+r") == 0  # submit
    assert as_nobody(tmp_path, "ls", f"{exchange}/inbound") != 0  # not others' entries
    others = hand_in_to_exchange(exchange_course, "grace")
    assert (
        as_nobody(tmp_path, "mv", f"{exchange}/inbound/{others.name}", f"{exchange}/inbound/x") != 0
    )
    assert as_nobody(tmp_path, "mv", exchange, f"{exchange}-gone") != 0  # sticky root
    assert stat.S_IMODE(exchange_course.stat().st_mode) == 0o700
