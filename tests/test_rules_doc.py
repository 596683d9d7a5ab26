"""The project carries its own contract (issue 29): docs/RULES.md is written from the rules as
data (autograder/rules.py) and up to date, the README links it, and nothing tracked points
to a file outside the project (a clone has no ../shared, no SPEC or DESIGN document)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from autograder import rules_doc
from autograder.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
# written in pieces, so that this file does not match itself
OUTSIDE = re.compile(
    r"\b(?:SPEC|DESIGN|NOTES)" + r"\.md\b|(?<![\w-])shared" + r"/|/work" + r"/"
)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / name for name in out.stdout.decode().split("\0") if name]


def test_the_rules_document_is_written_from_the_rules_and_up_to_date():
    written = (ROOT / "docs" / "RULES.md").read_text()
    assert written == rules_doc.render(), "docs/RULES.md is out of date: run `make rules`"
    for rule, sentence in RULES.items():
        assert f"- **{rule}**: {sentence}" in written


def test_the_readme_links_the_rules_document():
    readme = (ROOT / "README.md").read_text()
    assert "](docs/RULES.md)" in readme


def test_nothing_tracked_points_outside_the_project():
    found = []
    for path in tracked_files():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue  # binary (the recorded observations)
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert found == []


def test_the_outside_pattern_catches_what_it_is_for():
    for line in ("the contract is `shared/SPEC.md`", "see DESIGN.md", "../shared/x", "/work/a"):
        assert OUTSIDE.search(line), line
    for line in ("shares memory", "a shared version counter", "not-shared/ path"):
        assert not OUTSIDE.search(line), line


@pytest.mark.parametrize("document", ["README.md", "docs/RULES.md"])
def test_relative_links_of_the_documents_resolve(document):
    path = ROOT / document
    for target in _LINK.findall(path.read_text()):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        assert (path.parent / file).exists(), f"{document} links to missing {file}"
        if anchor and file.endswith(".ipynb"):
            assert rules_doc.section_text(f"{file}#{anchor}", path.parent), target
