"""The class pipeline's perimeter: what a roster and the grade export accept (issue 15)."""

from __future__ import annotations

import csv
import os
import sys

import pytest
from nbgrader.api import Gradebook

from coursekit.classroom.intake.roster import RosterError, read_roster
from coursekit.classroom.results.export import WideCsvExportPlugin
from coursekit.classroom.runs import ensure_table

HEADER = "id,first_name,last_name,email\n"


def roster(tmp_path, text: str, encoding="utf-8"):
    path = tmp_path / "roster.csv"
    path.write_bytes((HEADER + text).encode(encoding))
    return path


@pytest.mark.parametrize(
    ("row", "why"),
    [
        (",Ada,Lovelace,ada@x.org", "an empty id"),
        ("../../x,Ada,Lovelace,ada@x.org", "could name another folder"),
        ("a/b,Ada,Lovelace,ada@x.org", "could name another folder"),
        ("..,Ada,Lovelace,ada@x.org", "could name another folder"),
        ("a\\b,Ada,Lovelace,ada@x.org", "could name another folder"),
        ("ada\x1b[2J,Ada,Lovelace,ada@x.org", "holds control characters"),
        ("ada,Ada,Lovelace,ada@x.org,surplus", "more fields than the header names"),
        ("<img src=x onerror=alert(1)>,Ada,Lovelace,ada@x.org", "holds one of"),
        ("ada,<script>x</script>,Lovelace,ada@x.org", "the first_name"),
        ("ada',Ada,Lovelace,ada@x.org", "holds one of"),
        ("ada,Ada,O'Brien<b>,ada@x.org", "the last_name"),
    ],
)
def test_a_roster_with_an_unusable_row_is_refused_with_its_line(tmp_path, row, why):
    path = roster(tmp_path, "grace,Grace,Hopper,grace@x.org\n" + row + "\n")
    with pytest.raises(RosterError) as refused:
        read_roster(path)
    assert f"{path}, line 3: " in str(refused.value) and why in str(refused.value)


def test_a_roster_with_several_bad_lines_names_each_at_once(tmp_path):
    path = roster(tmp_path, "grace,Grace,Hopper,grace@x.org\n"  # line 2: fine
                            "a/b,Ada,Lovelace,ada@x.org\n"  # line 3
                            "ben,Ben,<b>,ben@x.org,surplus\n"  # line 4
                            "cy,Cy,Young,cy@x.org\n"  # line 5: fine
                            "grace,Grace,Again,g2@x.org\n"  # line 6: a repeated id
                            "dee\x07,Dee,Dee,dee@x.org\n")  # line 7  # fmt: skip
    with pytest.raises(RosterError) as refused:
        read_roster(path)
    head, *lines = str(refused.value).splitlines()
    assert head.startswith(f"{path}: 4 problems to fix"), head
    expected = [
        (3, "could name another folder"),
        (4, "more fields than the header"),
        (6, "'grace' listed twice (first on line 2)"),
        (7, "holds control characters"),
    ]
    assert len(lines) == len(expected), lines
    for said, (line, why) in zip(lines, expected):
        assert said.startswith(f"{path}, line {line}: ") and why in said, said


def test_a_roster_that_is_not_utf8_says_so(tmp_path):
    path = roster(tmp_path, "zoe,Zoë,Müller,zoe@x.org\n", encoding="latin-1")
    with pytest.raises(RosterError, match="not UTF-8 text .* save the roster as CSV UTF-8"):
        read_roster(path)


def test_plain_ids_pass_including_regex_characters_and_other_scripts(tmp_path):
    path = roster(tmp_path, "a+b,Ada,Lovelace,a@x.org\nмария,Мария,Иванова,m@x.org\n"
                            "sean,Seán,O'Brien,s@x.org\n")  # fmt: skip
    assert [row["id"] for row in read_roster(path)] == ["a+b", "мария", "sean"]


def test_grades_csv_cells_never_start_a_formula(tmp_path, monkeypatch):
    """Ids, names and e-mail come from rosters and LMS files: a spreadsheet must show them as
    text, not run them (=, +, -, @, tab, CR start a formula)."""
    bin_dir = os.path.dirname(sys.executable)  # nbgrader runs `alembic` by name: the venv's
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        ensure_table(gb.engine)  # the pipeline's table of grading runs
        gb.add_assignment("leaf_nodes")
        gb.add_student("=HYPERLINK(\"http://x\")", first_name="+cmd", last_name="-2",
                       email="@SUM(A1)")  # fmt: skip
        gb.add_student("\tada", first_name="Ada", last_name="Lovelace", email="ada@x.org")
        out = tmp_path / "grades.csv"
        WideCsvExportPlugin(to=str(out)).export(gb)
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    cells = [row[k] for row in rows for k in ("student_id", "first_name", "last_name", "email")]
    # a plain number ("-2") is read as that number, never as a formula: it stays as written
    risky = [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r")) and c != "-2"]
    assert not risky, cells
    assert '\'=HYPERLINK("http://x")' in cells and "Lovelace" in cells


def test_lms_names_match_in_any_script_and_homoglyphs_are_not_guessed():
    from coursekit.classroom.intake.roster import Matcher

    rows = [
        {"id": "m1", "first_name": "Мария", "last_name": "Иванова", "email": ""},
        {"id": "z1", "first_name": "Zoë", "last_name": "Müller", "email": ""},
        {"id": "a1", "first_name": "Anna", "last_name": "Li", "email": ""},
        {"id": "c1", "first_name": "王", "last_name": "芳", "email": ""},
    ]
    matcher = Matcher(rows)
    assert matcher.match("иванова мария") == ("m1", "")
    assert matcher.match("Zoe MULLER") == ("z1", "")
    assert matcher.match("芳王") == ("c1", "")
    assert matcher.match("Аnna Li")[0] is None  # a Cyrillic А: not Anna
