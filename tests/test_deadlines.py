"""Deadlines (issue 17 item 1): due dates, extensions and the late policy, through every channel.

One toy class, due 2026-12-01 23:59 UTC (given in Paris time), policy 10% of the points per
day late (a part day counts whole), at most 50%, 0 when more than 7 days late. The toy
assignment is worth 3 points and every answer is right, so each score is 3 before the penalty:

    channel   student  handed in (UTC)        extension  expected
    exchange  ada      12-01 10:00            -          on time, 3
    exchange  ben      12-02 10:00            -          late 1 day: -0.3, 2.7
    exchange  cy       12-02 10:00            2 days     on time (extension given before), 3
    exchange  dee      12-10 00:00            -          more than 7 days: 0
    LMS       kim      12-01 20:00            -          on time, 3
    LMS       lu       12-03 06:00, _LATE     -          late 2 days: -0.6, 2.4
    LMS       mo       12-02 03:00, _LATE     1 day      on time (extension given after grade)
    folder    ned      12-02 12:00 (mtime)    -          late 1 day: -0.3, 2.7
"""

from __future__ import annotations

import csv
import io
import os
import zipfile
from datetime import datetime, timezone

import nbformat
import pytest
from rosters import CLASS_OF_EIGHT, roster_text
from test_pipeline import answered, hand_in, run, toy_solutions

from coursekit.classroom.course import Course
from coursekit.classroom.deadlines import Policy
from coursekit.classroom.results.report import summarise, write_report
from coursekit.classroom.results.table import grade_table
from coursekit.cli import main as cli

pytestmark = pytest.mark.xdist_group("deadlines")  # one worker builds the module's class
ROSTER = roster_text(CLASS_OF_EIGHT)
EXCHANGE = {"ada": "2026-12-01 10:00", "ben": "2026-12-02 10:00", "cy": "2026-12-02 10:00",
            "dee": "2026-12-10 00:00"}  # fmt: skip
LMS = {"parkkim_101_201_toy.ipynb": (2026, 12, 1, 20, 0, 0),
       "xunlu_LATE_102_202_toy.ipynb": (2026, 12, 3, 6, 0, 0),
       "raymo_LATE_103_203_toy.ipynb": (2026, 12, 2, 3, 0, 0)}  # fmt: skip
EXPECTED = {  # student -> (score after the penalty, penalty, late)
    "ada": (3, 0, False), "ben": (2.7, 0.3, True), "cy": (3, 0, False), "dee": (0, 3, True),
    "kim": (3, 0, False), "lu": (2.4, 0.6, True), "mo": (3, 0, False), "ned": (2.7, 0.3, True),
}  # fmt: skip


@pytest.fixture(scope="module")
def late_class(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("deadlines")
    course = tmp / "course"
    roster = tmp / "roster.csv"
    roster.write_text(ROSTER)
    run("init", course, "--solutions", toy_solutions(tmp / "solutions"), "--cpu-only",
        "--roster", roster)  # fmt: skip
    run("release", "-C", course)
    run("deadline", "-C", course, "toy", "2026-12-02 00:59", "--timezone", "Europe/Paris")
    run("late-policy", "-C", course, "--per-day", "10", "--cap", "50", "--zero-after", "7")
    run("extend", "-C", course, "cy", "toy", "--days", "2")  # before cy has handed anything in
    notebook = nbformat.writes(answered(course)).encode()
    inbound = tmp / "course-exchange" / Course.at(course).course_id / "inbound"
    for student, when in EXCHANGE.items():
        entry = inbound / f"{student}+toy+{when}:00.000000 UTC+{student}1"
        entry.mkdir()
        (entry / "toy.ipynb").write_bytes(notebook)
        (entry / "timestamp.txt").write_text("2026-11-30 09:00:00")  # the student's: ignored
    run("collect", "-C", course)
    download = tmp / "canvas.zip"
    with zipfile.ZipFile(download, "w") as zipped:
        for name, when in LMS.items():
            zipped.writestr(zipfile.ZipInfo(name, date_time=when), notebook)
    run("collect", "-C", course, "toy", "--from", download, "--roster", roster)
    hand_in(course, "ned", answered(course))  # a folder placed by hand: its file's time
    placed = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc).timestamp()
    os.utime(course / "submitted" / "ned" / "toy" / "toy.ipynb", (placed, placed))
    run("grade", "-C", course, "-j", "2")
    run("extend", "-C", course, "mo", "toy", "--hours", "24")  # after grading: no regrade
    for student in ("ben", "mo"):
        run("feedback", "-C", course, "--student", student)
    return Course.at(course)


@pytest.mark.slow
def test_the_table_marks_late_work_and_totals_after_the_penalty(late_class):
    table = grade_table(late_class).splitlines()
    for student, (score, _, late) in EXPECTED.items():
        (row,) = [line for line in table if line.startswith(student + " ")]
        assert row.split()[1:] == [f"{score:g}/3", *(["L"] if late else []), f"{score:g}/3"]
    notes = [line for line in table if line.startswith("  L ")]
    assert [line.split()[1] for line in notes] == ["ben", "dee", "lu", "ned"]
    (ben,) = [line for line in notes if " ben " in line]
    assert (
        "handed in 2026-12-02 10:00 UTC (by the exchange), 10 h 1 min after the due date "
        "2026-12-01 23:59 UTC; late penalty 0.3: 3 -> 2.7"
    ) in ben
    assert "12-03 06:00 UTC (by the LMS download), 1 d 6 h 1 min after" in " ".join(notes)
    assert "12-02 12:00 UTC (by the newest file's time), 12 h 1 min after" in " ".join(notes)
    assert "late penalty 0.3: 3 -> 2.7" in ben


@pytest.mark.slow
def test_the_csv_has_the_score_before_and_after_the_penalty_and_a_late_column(late_class):
    path = late_class.path("grades.csv")
    run("export", "-C", late_class.root, "--out", path)
    rows = {r["student_id"]: r for r in csv.DictReader(open(path))}
    for student, (score, penalty, late) in EXPECTED.items():
        row = rows[student]
        assert float(row["toy"]) == pytest.approx(score)
        assert float(row["toy/before_penalty"]) == 3
        assert float(row["toy/penalty"]) == pytest.approx(penalty)
        assert row["toy/late"] == ("late" if late else "")
        assert float(row["total"]) == pytest.approx(score)


@pytest.mark.slow
def test_the_report_lists_late_submissions_as_needing_attention(late_class):
    data = summarise(late_class)
    late = {a["student"]: a["why"] for a in data["attention"] if a["why"].startswith("late")}
    assert sorted(late) == ["ben", "dee", "lu", "ned"]
    assert "with an extension" not in late["ben"] and "3 -> 0" in late["dee"]
    assert "late penalty 0.6: 3 -> 2.4" in late["lu"]
    page = write_report(late_class, late_class.path("report")).read_text()
    assert "2.4/3 L" in page and "late penalty 0.3: 3 -&gt; 2.7" in page


@pytest.mark.slow
def test_feedback_says_how_late_and_what_it_cost(late_class):
    (page,) = late_class.path("feedback", "ben", "toy").glob("*.html")
    text = page.read_text()
    assert "Late: handed in 2026-12-02 10:00 UTC" in text
    assert "late penalty 0.3: 3 -&gt; 2.7" in text
    (page,) = late_class.path("feedback", "mo", "toy").glob("*.html")
    assert "Late:" not in page.read_text()  # marked _LATE by Canvas, but within its extension


@pytest.mark.slow
def test_each_channel_records_its_time_and_source(late_class):
    from coursekit.classroom.deadlines import submission_time

    said = {s: submission_time(late_class.submission_dir(s, "toy")) for s in EXPECTED}
    assert said["ben"] == {"time": "2026-12-02T10:00:00", "source": "the exchange",
                           "lms_late": False}  # fmt: skip
    assert said["lu"] == {"time": "2026-12-03T06:00:00", "source": "the LMS download",
                          "lms_late": True}  # fmt: skip
    assert said["kim"]["lms_late"] is False
    assert said["ned"] == {"time": "2026-12-02T12:00:00", "source": "the newest file's time",
                           "lms_late": False}  # fmt: skip


def test_the_policy_per_day_cap_and_cutoff():
    day = 86400
    policy = Policy(per_day=10, cap=25, zero_after=7)
    assert policy.penalty(8, 10, None) == policy.penalty(8, 10, 0) == 0
    assert policy.penalty(8, 10, 1) == 1  # a part of a day counts whole
    assert policy.penalty(8, 10, 2 * day + 1) == 2.5  # capped at 25% of the points
    assert policy.penalty(1, 10, day) == 1  # never more than the score
    assert policy.penalty(8, 10, 7 * day) == 2.5 and policy.penalty(8, 10, 7 * day + 1) == 8
    assert Policy().penalty(8, 10, 30 * day) == 0
    assert str(Policy()) == "no late penalty"


def test_without_a_due_date_the_lms_mark_says_late_and_costs_nothing():
    from coursekit.classroom.deadlines import Late

    marked = Late(datetime(2026, 12, 2), None, 0.0, 0.0, lms_late=True)
    assert marked.is_late and marked.seconds is None
    assert marked.describe(3).startswith("marked late by the LMS (no due date set here")
    assert not Late(datetime(2026, 12, 2), None, 0.0, 0.0, lms_late=False).is_late


def test_a_chinese_class_reads_its_lateness_in_chinese(monkeypatch):
    """The sentence atop a late submission's feedback, in a class made in Chinese: when, from
    where, how late, the extension and what it cost (hand-counted: 1 d 2 h 1 min late)."""
    from coursekit import i18n
    from coursekit.classroom.deadlines import FROM_EXCHANGE, Late

    monkeypatch.delenv(i18n.OVERRIDE, raising=False)
    late = Late(datetime(2026, 12, 3, 2, 0), datetime(2026, 12, 1, 23, 59), 24.0, 0.5, False,
                FROM_EXCHANGE)  # fmt: skip
    english = late.describe(3)
    assert english == (
        "handed in 2026-12-03 02:00 UTC (by the exchange), 1 d 2 h 1 min after the due date "
        "2026-12-01 23:59 UTC (with an extension of 24 h); late penalty 0.5: 3 -> 2.5"
    )
    with i18n.speaking("zh-CN"):
        chinese = late.describe(3)
        marked = Late(datetime(2026, 12, 2), None, 0.0, 0.0, lms_late=True).describe(3)
    assert chinese == (
        "提交于 2026-12-03 02:00 UTC（时间取自交换目录），比截止时间 2026-12-01 23:59 UTC "
        "晚了 1 天 2 小时 1 分钟（已延期 24 小时）；迟交扣分 0.5：3 -> 2.5"
    )
    assert marked.startswith("LMS 标记为迟交")


@pytest.mark.parametrize(
    "argv, said",
    [
        (["deadline", "toy", "next friday"], "is not a date and time"),
        (
            ["deadline", "toy", "2026-12-01 23:59", "--timezone", "Mars/Olympus"],
            "unknown time zone",
        ),  # noqa: E501
        (["deadline", "nope", "2026-12-01 23:59"], "no assignment named 'nope'"),
        (["extend", "nobody", "toy", "--days", "1"], "no student 'nobody'"),
        (["extend", "ada", "toy", "--hours", "-3"], "0 or more"),
        (["late-policy", "--per-day", "-5"], "0 or more"),
        (["late-policy", "--per-day", "150"], "at most 100, not 150"),
        (["late-policy", "--cap", "101"], "at most 100, not 101"),
        (["feedback", "--student", "zed"], "no graded submission for student 'zed'"),
    ],
)
def test_mistakes_are_one_line_without_traceback(tmp_path, capsys, argv, said):
    course = tmp_path / "course"
    (course / "source" / "toy").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(f"c.CourseDirectory.root = {str(course)!r}\n")
    with pytest.raises(SystemExit) as stopped:
        cli([argv[0], "-C", str(course), *argv[1:]])
    assert said in str(stopped.value) and "\n" not in str(stopped.value)
    assert "Traceback" not in capsys.readouterr().err


def test_a_zip_members_time_is_the_submission_time(tmp_path):
    from coursekit.classroom.intake.download import entry_times

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr(zipfile.ZipInfo("a_1_x.ipynb", date_time=(2026, 12, 1, 8, 0, 0)), b"{}")
        zipped.writestr(zipfile.ZipInfo("Ann_1_assignsubmission_file_/x.ipynb",
                                        date_time=(2026, 12, 2, 9, 0, 0)), b"{}")  # fmt: skip
        zipped.writestr(zipfile.ZipInfo("Ann_1_assignsubmission_file_/y.ipynb",
                                        date_time=(2026, 12, 3, 9, 0, 0)), b"{}")  # fmt: skip
    (tmp_path / "d.zip").write_bytes(buffer.getvalue())
    assert entry_times(tmp_path / "d.zip") == {
        "a_1_x.ipynb": datetime(2026, 12, 1, 8),
        "Ann_1_assignsubmission_file_": datetime(2026, 12, 3, 9),
    }


@pytest.mark.slow
def test_an_appeal_keeps_the_penalty(late_class):
    run("grade", "-C", late_class.root, "--student", "ben")  # penalties: ben's alone
    (row,) = [line for line in grade_table(late_class).splitlines() if line.startswith("ben ")]
    assert row.split()[1:] == ["2.7/3", "L", "2.7/3"]
