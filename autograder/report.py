"""The Report a student reads: score, failures with feedback to act on, results per rule."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from autograder.rules import statement

NOT_RUN_NO_GPU = "not run: no GPU on the grader"
# Differences listed per failing scenario: the first ones are what a student acts on; the
# rest mostly repeat them further down the same run (and would fill a feedback page).
SHOWN_DIFFERENCES = 3


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

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def feedback_lines(self) -> list[str]:
        """What PyTorch did, what the engine did, each rule in one sentence, what to reread."""
        lines = [
            f"[{self.id}] {self.status} (rules {', '.join(self.rules)}; weight {self.weight:g})"
        ]
        if self.note:
            lines.append(f"  {self.note}")
        for diff in self.differences[:SHOWN_DIFFERENCES]:
            head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
            lines.append(f"  - {head}")
            lines.append(f"      PyTorch:     {diff['reference']}")
            lines.append(f"      your engine: {diff['engine']}")
        hidden = len(self.differences) - SHOWN_DIFFERENCES
        if hidden > 0:
            lines.append(f"  ... and {hidden} more differences, often following from the first")
        for rule in self.rules:
            lines.append(f"  rule {rule}: {statement(rule)}")
        lines.append(f"  reread: {lecture_section(self.lecture)} ({self.lecture})")
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

    def summary(self) -> str:
        verdict = "PASSED" if self.passed else "NOT PASSED"
        n_ok = sum(r.passed for r in self.results)
        parts = sorted({r.waiting_for for r in self.waiting})
        waits = f", {len(self.waiting)} waiting for {', '.join(parts)}" if parts else ""
        return (
            f"{self.engine} vs PyTorch {self.reference} on {self.device}, seed {self.seed}: "
            f"score {self.score:.2f} ({n_ok}/{len(self.results)} scenarios{waits}) {verdict}"
        )

    def explanation(self, rules) -> str:
        """What a student can act on, in one paragraph: each of `rules` that failed, in words
        and where the lecture teaches it, then the first difference, PyTorch's next to
        theirs ("" when nothing failed)."""
        failures = self.failures
        if not failures:
            return ""
        failed = [rule for rule, row in self.by_rule.items() if rule in rules and row["failed"]]
        parts = []
        for rule in failed or list(rules):
            where = next((f.lecture for f in failures if rule in f.rules), failures[0].lecture)
            parts.append(f"{rule}: {statement(rule)} Reread {lecture_section(where)}.")
        first = failures[0]
        if first.differences:
            diff = first.differences[0]
            head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
            parts.append(
                f"First difference ({first.id}), {head}:\n  PyTorch:     {diff['reference']}"
                f"\n  your engine: {diff['engine']}"
            )
        elif first.note:
            parts.append(f"{first.id}: {first.note}")
        return "\n".join(parts)

    def __str__(self) -> str:
        lines = [self.summary()]
        lines += [f"NOTE: {note}" for note in self.notes]
        rules = "  ".join(f"{rule} {v['passed']}/{v['total']}" for rule, v in self.by_rule.items())
        lines.append(f"by rule: {rules}")
        for failure in self.failures:
            lines.append("")
            lines.extend(failure.feedback_lines())
        for waiting in self.waiting:
            lines.append("")
            lines.append(f"[{waiting.id}] waiting for {waiting.waiting_for}: {waiting.note}")
        lines.append("")
        lines.append(f"regrade the same values with check(engine, seed={self.seed})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        colour = "#1a7f37" if self.passed else "#cf222e"
        parts = [f'<div><p style="color:{colour}"><b>{esc(self.summary())}</b></p>']
        parts += [f'<p style="color:#9a6700"><b>NOTE:</b> {esc(n)}</p>' for n in self.notes]
        parts.append("<table><tr><th>rule</th><th>passed</th><th>statement</th></tr>")
        for rule, v in self.by_rule.items():
            mark = "&#10003;" if v["passed"] == v["total"] else "&#10007;"
            parts.append(
                f"<tr><td>{rule}</td><td>{mark} {v['passed']}/{v['total']}</td>"
                f"<td>{esc(statement(rule))}</td></tr>"
            )
        parts.append("</table>")
        for failure in self.failures:
            parts.append(
                f"<details><summary><code>{esc(failure.id)}</code> {esc(failure.status)}"
                f" (rules {esc(', '.join(failure.rules))})</summary>"
            )
            if failure.note:
                parts.append(f"<p>{esc(failure.note)}</p>")
            parts.append("<ul>")
            for diff in failure.differences[:SHOWN_DIFFERENCES]:
                head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
                parts.append(
                    f"<li><code>{esc(head)}</code><br>PyTorch: <code>{esc(diff['reference'])}"
                    f"</code><br>your engine: <code>{esc(diff['engine'])}</code></li>"
                )
            hidden = len(failure.differences) - SHOWN_DIFFERENCES
            if hidden > 0:
                parts.append(f"<li>... and {hidden} more, often following from the first</li>")
            parts.append("</ul>")
            for rule in failure.rules:
                parts.append(f"<p>rule {rule}: {esc(statement(rule))}</p>")
            parts.append(f"<p>reread: <code>{esc(failure.lecture)}</code></p></details>")
        for waiting in self.waiting:
            parts.append(
                f"<p><code>{esc(waiting.id)}</code> waiting for {esc(waiting.waiting_for)}: "
                f"{esc(waiting.note)}</p>"
            )
        parts.append(
            f"<p>regrade the same values with <code>check(engine, seed={self.seed})</code>"
        )
        parts.append("</p></div>")
        return "".join(parts)


def lecture_section(reference: str) -> str:
    """'course/02_leaf_nodes.ipynb#retain-grad' -> 'lecture 02_leaf_nodes, section
    "retain-grad"', as a student finds it in the course's list of lectures."""
    path, _, anchor = reference.partition("#")
    name = path.rsplit("/", 1)[-1].removesuffix(".ipynb")
    return f'lecture {name}, section "{anchor}"' if anchor else f"lecture {name}"


def _rule_order(rule: str) -> tuple[int, int]:
    return ("LDIRVN".find(rule[0]), int(rule[1:]))
