"""docs/RULES.md, written from the rules as data (autograder/rules.py): each rule with the
assignment whose functions decide it (minigrad/seams) and the lecture section that teaches
it (the section the catalogue's scenarios of that rule cite most, autograder/catalogue).

    python -m autograder.rules_doc        # `make rules`: rewrite docs/RULES.md

tests/test_rules_doc.py fails when the file is not what this writes.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from pathlib import Path

from autograder.rules import RULES, TOPICS

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "RULES.md"
_HEADING = re.compile(r"^#+\s+(.+?)\s*$", re.M)


def teaching_section(rule: str) -> str:
    """'course/<lecture>.ipynb#<anchor>': the section the rule's scenarios cite most (the
    first cited, on a tie)."""
    cited = _citations().get(rule)
    return cited.most_common(1)[0][0] if cited else ""


@functools.cache
def _citations() -> dict[str, Counter]:
    """rule -> how often each lecture section is cited by the rule's scenarios."""
    from autograder.scenarios import load_catalogue

    cited: dict[str, Counter] = {}
    for sc in load_catalogue().values():
        for rule in sc.rules:
            cited.setdefault(rule, Counter())[sc.lecture] += 1
    return cited


def section_text(reference: str, root: Path = ROOT) -> tuple[str, str] | None:
    """(heading, text) of the section an anchor opens: the markdown from `<a id=...>` to the
    next anchor, its first heading; None when the lecture or the anchor is missing."""
    path, _, anchor = reference.partition("#")
    try:
        cells = json.loads((root / path).read_text())["cells"]
    except (OSError, ValueError, KeyError):
        return None
    markdown = "\n".join(
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
        if c.get("cell_type") == "markdown"
    )
    start = markdown.find(f'<a id="{anchor}"></a>')
    if start < 0:
        return None
    following = markdown.find("<a id=", start + 1)
    text = markdown[start : following if following > 0 else len(markdown)]
    heading = _HEADING.search(text)
    return (heading[1] if heading else "", text)


def builders(rule: str) -> list[str]:
    """'assignment: function(), ...' for each assignment whose graded functions decide rule."""
    from minigrad import seams

    found = []
    for number, assignment in enumerate(seams.ASSIGNMENTS, 1):
        names = [n for n, rules in seams.graded(assignment).items() if rule in rules]
        if names:
            calls = ", ".join(f"`{n}()`" for n in names)
            found.append(f"assignment {number}, {assignment}: {calls}")
    return found


def render() -> str:
    lines = [
        "# The rules",
        "",
        "What minigrad keeps of PyTorch 2.13's autograd on the course's subset, and what the",
        "autograder checks: every scenario of the catalogue (`autograder/catalogue`) names the",
        "rules it observes, and feedback quotes the rule a failing scenario breaks. Written from",
        "`autograder/rules.py` by `make rules`; a test fails when this file is out of date.",
        "",
        "Each rule: what it says, the assignment whose functions decide it (the rest is the",
        "engine's own), and the lecture section that teaches it.",
    ]
    for letter, topic in TOPICS.items():
        lines += ["", f"## {topic}", ""]
        for rule, sentence in RULES.items():
            if not rule.startswith(letter) or not rule[1:].isdigit():
                continue
            lines.append(f"- **{rule}**: {sentence}")
            built = builders(rule)
            lines.append(f"  - built in: {'; '.join(built) if built else 'the engine itself'}")
            where = teaching_section(rule)
            found = section_text(where) if where else None
            if found:
                lecture = where.split("/")[-1].split("#")[0].removesuffix(".ipynb")
                title = found[0].replace("`", "")
                lines.append(f"  - taught in: [{lecture}, {title}](../{where})")
    lines += ["", *_tolerances()]
    return "\n".join(lines) + "\n"


def _tolerances() -> list[str]:
    from autograder.compare import TOLERANCES

    lines = [
        "## How values are compared",
        "",
        "Flags, grad_fn names, shapes, dtypes, error and warning texts are compared exactly;",
        "values of tensors and of `.grad` with `allclose` at these tolerances",
        "(`autograder/compare.py`):",
        "",
        "| device | dtype | rtol | atol |",
        "| --- | --- | --- | --- |",
    ]
    for (device, dtype), (rtol, atol) in TOLERANCES.items():
        lines.append(f"| {device} | {dtype} | {rtol:g} | {atol:g} |")
    return lines


def main() -> None:
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(render())
    print(f"written {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
