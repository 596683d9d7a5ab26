"""The Report a student reads: score, failures with feedback to act on, results per rule."""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from autograder import graph_diff
from autograder.diagnoses import diagnose, sentence
from autograder.i18n import N_, _, columns, in_the_folders_language, language, padded
from autograder.rules import statement

NOT_RUN_NO_GPU = N_("not run: no GPU on the grader")  # shown through _()
# A scenario's status in words (the status itself stays data: "failed", "not run", ...)
STATUS_WORDS = {
    "passed": N_("passed"),
    "failed": N_("failed"),
    "not run": N_("not run"),
    "waiting": N_("waiting"),
}
# Differences listed per failing scenario: the first ones are what a student acts on; the
# rest mostly repeat them further down the same run (and would fill a feedback page).
SHOWN_DIFFERENCES = 3


def compared_lines(reference: str, engine: str, indent: str = "  ") -> list[str]:
    """PyTorch's text and the engine's, one under the other, each as it was printed (never
    translated: they are what the student meets), under labels in the reader's language."""
    labels = [_("PyTorch:"), _("your engine:")]
    width = max(columns(label) for label in labels) + 1
    return [
        indent + padded(labels[0], width) + reference,
        indent + padded(labels[1], width) + engine,
    ]


@dataclass
class ScenarioResult:
    id: str
    rules: tuple[str, ...]
    topic: str
    lecture: str
    weight: float
    status: str  # "passed", "failed", "not run" or "waiting" (for waiting_for)
    differences: list[dict] = field(default_factory=list)
    note: str = ""
    waiting_for: str = ""  # the part of the engine not built yet, when status is "waiting"
    # PyTorch's graph and the engine's where a failing observation involves one (graph_diff)
    graph: dict | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def feedback_lines(self, rules=True) -> list[str]:
        """What PyTorch did, what the engine did, then (rules=True) each rule in one sentence
        and what to reread."""
        lines = [
            _("[{scenario}] {status} (rules {rules}; weight {weight})").format(
                scenario=self.id,
                status=_(STATUS_WORDS.get(self.status, self.status)),
                rules=", ".join(self.rules),
                weight=f"{self.weight:g}",
            )
        ]
        if self.note:
            lines.append(f"  {self.note}")
        for diff in self.differences[:SHOWN_DIFFERENCES]:
            head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
            lines.append(f"  - {head}")
            lines += compared_lines(diff["reference"], diff["engine"], indent="      ")
        hidden = len(self.differences) - SHOWN_DIFFERENCES
        if hidden > 0:
            lines.append(
                "  "
                + _("... and {count} more differences, often following from the first").format(
                    count=hidden
                )
            )
        if rules:
            for rule in self.rules:
                lines.append(
                    _("  rule {rule}: {statement}").format(rule=rule, statement=_(statement(rule)))
                )
            lines.append(_("  reread: {section}").format(section=lecture_section(self.lecture)))
        return lines


@dataclass
class Report:
    engine: str
    device: str
    seed: int
    reference: str  # the PyTorch version observations were compared with
    results: list[ScenarioResult]
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True only when every selected scenario ran and matched PyTorch."""
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def score(self) -> float:
        """Weighted fraction of passed scenarios, in [0, 1]."""
        total = sum(r.weight for r in self.results)
        return sum(r.weight for r in self.results if r.passed) / total if total else 0.0

    @property
    def failures(self) -> list[ScenarioResult]:
        """Scenarios that ran differently from PyTorch, or could not run here."""
        return [r for r in self.results if not r.passed and r.status != "waiting"]

    @property
    def waiting(self) -> list[ScenarioResult]:
        """Scenarios that stopped where the engine is not built yet (matching until then)."""
        return [r for r in self.results if r.status == "waiting"]

    @property
    def by_rule(self) -> dict[str, dict]:
        """rule id -> {"passed": n, "total": n, "failed": [scenario ids]}, in the order of
        autograder/rules.py."""
        table: dict[str, dict] = {}
        for r in self.results:
            for rule in r.rules:
                entry = table.setdefault(rule, {"passed": 0, "total": 0, "failed": []})
                entry["total"] += 1
                entry["passed"] += r.passed
                if not r.passed:
                    entry["failed"].append(r.id)
        return dict(sorted(table.items(), key=lambda kv: _rule_order(kv[0])))

    @property
    def diagnoses(self) -> list[dict]:
        """The likely mistakes behind the failures, best first (autograder/diagnoses.py):
        each {"bug", "rule", "text", "confidence", ...}; [] when all passed or nothing
        matches a planted bug well."""
        return diagnose(self.results)

    @property
    def graph(self) -> dict | None:
        """The first failure's graphs, PyTorch's and the engine's, with the first node where
        they differ (autograder/graph_diff.py); None when no failure involves a graph."""
        return next((r.graph for r in self.failures if r.graph), None)

    def summary(self) -> str:
        verdict = _("PASSED") if self.passed else _("NOT PASSED")
        n_ok = sum(r.passed for r in self.results)
        parts = sorted({r.waiting_for for r in self.waiting})
        waits = (
            _(", {count} waiting for {parts}").format(
                count=len(self.waiting), parts=", ".join(parts)
            )
            if parts
            else ""
        )
        return _(
            "{engine} vs PyTorch {version} on {device}, seed {seed}: score {score} "
            "({passed}/{total} scenarios{waiting}) {verdict}"
        ).format(
            engine=_(self.engine),  # the course's "your engine" is a message (grading.py)
            version=self.reference,
            device=self.device,
            seed=self.seed,
            score=f"{self.score:.2f}",
            passed=n_ok,
            total=len(self.results),
            waiting=waits,
            verdict=verdict,
        )

    def _failed_rules(self) -> dict[str, str]:
        """Each rule of a failed scenario, in rule order, with its first such scenario's
        lecture section."""
        found: dict[str, str] = {}
        for failure in self.failures:
            for rule in failure.rules:
                found.setdefault(rule, failure.lecture)
        return dict(sorted(found.items(), key=lambda kv: _rule_order(kv[0])))

    def __str__(self) -> str:
        lines = [self.summary()]
        lines += [_("NOTE: {note}").format(note=note) for note in self.notes]
        rules = "  ".join(f"{rule} {v['passed']}/{v['total']}" for rule, v in self.by_rule.items())
        lines.append(_("by rule: {rules}").format(rules=rules))
        lines += [sentence(d) for d in self.diagnoses]
        for failure in self.failures:
            lines.append("")
            lines.extend(failure.feedback_lines(rules=False))
        if self.failures:  # each rule once, with the section that teaches it
            lines.append("")
            for rule, where in self._failed_rules().items():
                lines.append(
                    _("rule {rule}: {statement}").format(rule=rule, statement=_(statement(rule)))
                )
                lines.append(_("  reread: {section}").format(section=lecture_section(where)))
        for waiting in self.waiting:
            lines.append("")
            lines.append(
                _("[{scenario}] waiting for {part}: {note}").format(
                    scenario=waiting.id, part=waiting.waiting_for, note=waiting.note
                )
            )
        lines.append("")
        lines.append(
            _("regrade the same values with {call}").format(call=f"check(engine, seed={self.seed})")
        )
        return "\n".join(lines)

    @in_the_folders_language
    def _repr_html_(self) -> str:
        """The report as Jupyter shows it, in the language of the notebook it is shown in."""
        esc = html.escape
        colour = "#1a7f37" if self.passed else "#cf222e"
        parts = [f'<div><p style="color:{colour}"><b>{esc(self.summary())}</b></p>']
        parts += [
            f'<p style="color:#9a6700">{esc(_("NOTE: {note}").format(note=n))}</p>'
            for n in self.notes
        ]
        headers = (_("rule"), _("scenarios passed"), _("what it says"))
        parts.append("<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr>")
        for rule, v in self.by_rule.items():
            mark = "&#10003;" if v["passed"] == v["total"] else "&#10007;"
            parts.append(
                f"<tr><td>{rule}</td><td>{mark} {v['passed']}/{v['total']}</td>"
                f"<td>{esc(_(statement(rule)))}</td></tr>"
            )
        parts.append("</table>")
        parts += [f"<p><b>{esc(sentence(d))}</b></p>" for d in self.diagnoses]
        if self.graph:
            parts.append(graph_diff.pictures_html(self.graph))
        for failure in self.failures:
            parts.append(_failure_html(failure))
        for waiting in self.waiting:
            line = _("[{scenario}] waiting for {part}: {note}").format(
                scenario=waiting.id, part=waiting.waiting_for, note=waiting.note
            )
            parts.append(f"<p>{esc(line)}</p>")
        call = f"<code>check(engine, seed={self.seed})</code>"
        again = esc(_("regrade the same values with {call}")).replace("{call}", call)
        parts.append(f"<p>{again}</p></div>")
        return "".join(parts)


def _failure_html(failure: ScenarioResult) -> str:
    """One failed scenario, folded: its first differences (PyTorch's text and the engine's,
    as printed), each of its rules in words, and the lecture section to reread."""
    esc = html.escape
    status = _(STATUS_WORDS.get(failure.status, failure.status))
    rules = _("rules {rules}").format(rules=", ".join(failure.rules))
    parts = [f"<details><summary><code>{esc(failure.id)}</code> {esc(status)} ({esc(rules)})"]
    parts.append("</summary>")
    if failure.note:  # a marked note (no GPU...) in words, another as it was written
        parts.append(f"<p>{esc(_(failure.note))}</p>")
    parts.append("<ul>")
    for diff in failure.differences[:SHOWN_DIFFERENCES]:
        head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
        parts.append(
            f"<li><code>{esc(head)}</code><br>{esc(_('PyTorch:'))} "
            f"<code>{esc(diff['reference'])}</code><br>"
            f"{esc(_('your engine:'))} <code>{esc(diff['engine'])}</code></li>"
        )
    hidden = len(failure.differences) - SHOWN_DIFFERENCES
    if hidden > 0:
        more = _("... and {count} more differences, often following from the first")
        parts.append(f"<li>{esc(more.format(count=hidden))}</li>")
    parts.append("</ul>")
    for rule in failure.rules:
        line = _("rule {rule}: {statement}").format(rule=rule, statement=_(statement(rule)))
        parts.append(f"<p>{esc(line)}</p>")
    title, href = lecture_link(failure.lecture)
    shown = f'<a href="{esc(href)}">{esc(title)}</a>' if href else esc(title)
    parts.append(f"<p>{esc(_('Reread: '))}{shown}</p></details>")
    return "".join(parts)


def lecture_section(reference: str, here: Path | None = None) -> str:
    """'course/02_leaf_nodes.ipynb#retain-grad' -> 'section "retain_grad()" of lecture
    02_leaf_nodes (../../course/02_leaf_nodes.ipynb#retain-grad)': the heading the student
    sees, and the lecture's path from `here` (the notebook's folder, default: the current
    one) where the lecture is found above it, so that the path works where it is read."""
    title, href = lecture_link(reference, here)
    name = reference.partition("#")[0].rsplit("/", 1)[-1].removesuffix(".ipynb")
    where = f" ({href})" if href else ""
    if title:
        return _('section "{title}" of lecture {name}').format(title=title, name=name) + where
    return _("lecture {name}").format(name=name) + where


def lecture_link(reference: str, here: Path | None = None) -> tuple[str, str]:
    """(the section's heading text, a relative link to it from `here`, "" where the lecture
    is not in a folder above `here`)."""
    path, _, anchor = reference.partition("#")
    name = path.rsplit("/", 1)[-1]
    here = Path.cwd() if here is None else Path(here)
    found = _lecture_above(here, name)
    source = found or _installed_lecture(name)
    title = _heading(str(source), anchor, language()) if source and anchor else ""
    if found is None:
        return title or anchor, ""
    href = os.path.relpath(found, here).replace(os.sep, "/")
    return title or anchor, f"{href}#{anchor}" if anchor else href


# a clone's lectures are in course/, a `minigrad-course start` copy's in lectures/; a clone's
# in another language (`make lab COURSE_LANG=zh-CN`) in course-zh-CN/, looked for first there
LECTURE_FOLDERS = ("course", "lectures")


def _lecture_above(here: Path, name: str) -> Path | None:
    own = () if language() == "en" else (f"course-{language()}",)
    for folder in (here, *here.parents[:3]):
        for sub in (*own, *LECTURE_FOLDERS):
            if (folder / sub / name).is_file():
                return folder / sub / name
    return None


def _installed_lecture(name: str) -> Path | None:
    try:
        from coursekit.content import ContentMissing, folder
    except ImportError:  # the checker alone, without the course around it
        return None
    try:
        path = folder("lectures") / name
    except ContentMissing:
        return None
    return path if path.is_file() else None


_ANCHOR = re.compile(r'<a\s+(?:id|name)="([^"]+)"\s*>\s*</a>\s*\n?\s*#+\s*(.+)')


@lru_cache(maxsize=32)
def _heading(notebook: str, anchor: str, language: str = "en") -> str:
    """The text of the heading under `<a id="anchor"></a>` in a lecture notebook, as it reads
    (Markdown's code marks and maths dollars removed), in `language` where the cell keeps its
    twin in that language (coursekit/languages.py); "" when there is none."""
    try:
        cells = json.loads(Path(notebook).read_text()).get("cells", [])
    except (OSError, ValueError):
        return ""
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        text = cell.get("metadata", {}).get(language) or cell.get("source", "")
        text = "".join(text) if isinstance(text, list) else text
        for found, heading in _ANCHOR.findall(text):
            if found == anchor:
                return heading.strip().replace("`", "").replace("$", "")
    return ""


def _rule_order(rule: str) -> tuple[int, int]:
    return ("LDIRVN".find(rule[0]), int(rule[1:]))
