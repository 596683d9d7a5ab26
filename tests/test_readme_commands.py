"""The README's commands are the CLI's (issue 17: an instructor runs the term guide as written).

Every `minigrad-course ...` line of the README's fenced shell blocks is parsed by the CLI's own
parser (subcommand, arguments and option values), and each option it spells must be the
option's whole name: argparse would also take a prefix such as `--cpu` for `--cpu-only`.
Inline code in the prose that names a command with options (`grade --student ID`,
`minigrad-course grade -j 8`) must spell options that command has.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from coursekit.cli import _parser

README = Path(__file__).resolve().parents[1] / "README.md"
SHELLS = ("sh", "bash", "shell", "console")
SEPARATORS = ("&&", "||", ";", "|")


def fenced_commands(text: str) -> list[tuple[int, list[str]]]:
    """(line number, argv after `minigrad-course`) of each command in the fenced shell blocks;
    a line may chain several (`a && b`), comments are dropped."""
    found, language = [], None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            language = None if language is not None else stripped[3:].strip() or "text"
            continue
        if language not in SHELLS:
            continue
        words = shlex.split(stripped, comments=True)
        command: list[str] = []
        for word in [*words, "&&"]:
            if word not in SEPARATORS:
                command.append(word)
                continue
            if command[:1] == ["minigrad-course"]:
                found.append((number, command[1:]))
            command = []
    return found


def inline_commands(text: str, subcommands) -> list[tuple[int, list[str]]]:
    """(line number, argv) of each inline code span of the prose that is a `minigrad-course`
    command, or a subcommand followed by an option (`export --format canvas`)."""
    found, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        for span in [] if fenced else re.findall(r"`([^`]+)`", line):
            words = span.split()
            if words[:1] == ["minigrad-course"] and len(words) > 1:
                found.append((number, words[1:]))
            elif words[0] in subcommands and len(words) > 1 and words[1].startswith("-"):
                found.append((number, words))
    return found


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


def options_unknown(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """What is wrong with the subcommand and the options argv spells (values aside)."""
    first = next((i for i, w in enumerate(argv) if not w.startswith("-")), len(argv))
    leading, rest = argv[:first], argv[first:]
    wrong = [f"no option {w} before the command" for w in leading
             if w.split("=")[0] not in parser._option_string_actions]  # fmt: skip
    if not rest or rest[0] not in _subcommands(parser):
        return [*wrong, f"no command {rest[0] if rest else '(none)'!r}"]
    sub = _subcommands(parser)[rest[0]]
    options = [w.split("=")[0] for w in rest[1:] if re.match(r"-[-a-zA-Z]", w)]
    return wrong + [f"{rest[0]} has no option {o}" for o in options
                    if o not in sub._option_string_actions]  # fmt: skip


def parse_problem(argv: list[str], parser: argparse.ArgumentParser) -> str:
    """argparse's complaint about argv, '' when it parses."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            parser.parse_args(argv)
    except SystemExit:
        return said.getvalue().strip().splitlines()[-1]
    return ""


def problems(text: str) -> list[str]:
    parser = _parser()
    found = []
    for number, argv in fenced_commands(text):
        said = options_unknown(argv, parser) or [p for p in [parse_problem(argv, parser)] if p]
        found += [f"README line {number}: minigrad-course {shlex.join(argv)}: {p}" for p in said]
    for number, argv in inline_commands(text, _subcommands(parser)):
        said = options_unknown(argv, parser)
        found += [f"README line {number}: `{' '.join(argv)}`: {p}" for p in said]
    return found


def test_every_command_in_the_readme_parses():
    assert problems(README.read_text()) == []


def test_the_term_guide_is_found():
    """The check reads what it should: the term guide's steps, in its fenced blocks."""
    commands = fenced_commands(README.read_text())
    named = {argv[0] for _, argv in commands}
    term = {"init", "release", "collect", "deadline", "extend", "late-policy", "grade",
            "feedback", "export", "report", "release-feedback", "hub"}  # fmt: skip
    assert term <= named, term - named
    spelled = {w for _, argv in commands for w in argv if w.startswith("--")}
    assert {"--from", "--roster", "--student", "--format", "--timezone", "--days"} <= spelled


@pytest.mark.parametrize(
    "line, said",
    [
        ("minigrad-course init mycourse --cpu-onyl", "init has no option --cpu-onyl"),
        ("minigrad-course init mycourse --cpu", "init has no option --cpu"),  # a prefix
        ("minigrad-course grades", "no command 'grades'"),
        ("minigrad-course export --format excel", "invalid choice: 'excel'"),
        ("minigrad-course extend ada leaf_nodes", "one of the arguments --days --hours"),
        ("minigrad-course --debg table", "no option --debg before the command"),
        ("cd x && minigrad-course feedback --studnt ada", "feedback has no option --studnt"),
    ],
)
def test_a_misspelt_command_is_reported_with_its_line(line, said):
    text = f"# guide\n\n```sh\nminigrad-course release\n{line}  # a comment\n```\n"
    (problem,) = problems(text)
    assert problem.startswith("README line 5: minigrad-course ") and said in problem, problem


def test_a_misspelt_option_in_the_prose_is_reported():
    text = "Appeals: `grade --studnet ID`; a cluster: `minigrad-course grade --schedular X`.\n"
    assert problems(text) == [
        "README line 1: `grade --studnet ID`: grade has no option --studnet",
        "README line 1: `grade --schedular X`: grade has no option --schedular",
    ]
