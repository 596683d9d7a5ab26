"""The project carries its own contract (issue 29): docs/RULES.md is written from the rules as
data (autograder/rules.py) and up to date, the README links it, and nothing tracked points
to a file outside the project (a clone has no ../shared, no SPEC or DESIGN document)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from autograder import rules_doc
from autograder.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
# written in pieces, so that this file does not match itself
OUTSIDE = re.compile(r"\b(?:SPEC|DESIGN|NOTES)" + r"\.md\b|(?<![\w-])shared" + r"/|/work" + r"/")
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
        if path == Path(__file__).resolve():
            continue  # the pattern's own examples
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


# What the section that teaches each rule must mention (every word, in its text): written by
# hand from the rule's sentence, so that a rule linked to a section about something else fails.
SUBJECTS = {
    "L1": ("leaf",),
    "L2": ("grad_fn",),
    "L3": (".grad", "None", "warn"),
    "L4": ("retain_grad",),
    "L5": ("requires_grad", "leaf"),
    "L6": ("backward", "gradient"),
    "L7": ("retain_graph",),
    "L8": ("accumulate", "zero"),
    "L9": ("no_grad",),
    "L10": (".data",),
    "L11": ("adds",),
    "L12": ("requires_grad", "retain"),
    "L13": ("type", "self", "dtype", "device", "size", ".grad ="),
    "D1": ("numpy()", "requires grad"),
    "D2": ("detach",),
    "D3": ("from_numpy", "share"),
    "D4": ("float64", "float()"),
    "I1": ("version",),
    "I2": ("version", "saved"),
    "I3": ("leaf", "in-place"),
    "I4": ("CopySlices",),
    "I5": ("view",),
    "R1": ("tensor(",),
    "R2": ("stack", "cat"),
    "R3": ("index",),
    "R4": ("Parameter",),
    "V1": (".to(",),
    "V2": ("gradient", "source"),
    "V3": ("device=",),
    "V4": ("device",),
    "V5": ("model.to", "leaves"),
    "N1": ("operation",),
    "N2": ("dtype", "promot"),
    "N3": ("print",),
    "N4": ("state_dict", "load_state_dict", "DataLoader"),
    "N5": ("gather", "squeeze"),
    "X1": ("apply", "ctx", "save_for_backward"),
    "X2": ("None", "broadcast"),
    "X3": ("save_for_backward", "version"),
    "X4": ("view", "mark_dirty", "in-place"),
}


def test_every_rule_links_a_lecture_heading_that_teaches_it():
    """Feedback links the section a failing scenario cites (its lecture= anchor): each rule's
    teaching section (the one its scenarios cite most) opens with a heading and mentions the
    rule's subject, and every anchor a scenario of the rule cites opens a heading."""
    from autograder.scenarios import load_catalogue

    assert set(SUBJECTS) == set(RULES)
    for rule, words in SUBJECTS.items():
        where = rules_doc.teaching_section(rule)
        found = rules_doc.section_text(where)
        assert found and found[0], f"{rule}: {where!r} opens no heading"
        missing = [w for w in words if w.lower() not in found[1].lower()]
        assert missing == [], f"{rule}: {where} ({found[0]}) never mentions {missing}"
    for sc in load_catalogue().values():
        found = rules_doc.section_text(sc.lecture)
        assert found and found[0], f"{sc.id}: {sc.lecture} opens no heading"


def test_the_grad_setter_section_shows_the_five_refusals_on_both_engines():
    """L13 (the .grad setter) is graded, so a lecture teaches it: PyTorch's refusals, then
    the same on minigrad, side by side."""
    where = rules_doc.teaching_section("L13")
    assert where.endswith("#setting-grad")
    cells = json.loads((ROOT / where.partition("#")[0]).read_text())["cells"]
    sources = ["".join(c["source"]) for c in cells]
    start = next(i for i, text in enumerate(sources) if '<a id="setting-grad">' in text)
    code = "\n".join(sources[start + 1 : start + 4])
    for refusal in ("(type)", "(self)", "(dtype)", "(size)", "(device)"):
        assert refusal in code, refusal
    assert "side_by_side(grad_setter)" in code and "torch.zeros(3)" in code
