"""Result rows: ratios between engines, the printed table and the JSON file."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from bench.timing import Timing

RESULTS_DIR = Path(__file__).parent / "results"
NOTE_WIDTH = 100


@dataclass
class Row:
    benchmark: str
    case: str
    engine: str
    timing: Timing | None = None
    vs_torch: float | None = None
    vs_numpy: float | None = None
    target: str = ""
    target_met: bool | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        data = {k: v for k, v in vars(self).items() if k != "timing"}
        if self.timing is not None:
            data.update(
                best_s=self.timing.best_s,
                median_s=self.timing.median_s,
                times_s=self.timing.times_s,
                cpu_s=self.timing.cpu_s,
            )
        return data


def add_ratios(rows: list[Row]) -> None:
    """Fills vs_torch and vs_numpy (best over best) for rows of the same benchmark and case."""
    best = {(r.benchmark, r.case, r.engine): r.timing.best_s for r in rows if r.timing}
    for row in rows:
        if row.timing is None:
            continue
        for engine, attr in (("torch", "vs_torch"), ("numpy", "vs_numpy")):
            other = best.get((row.benchmark, row.case, engine))
            if other:
                setattr(row, attr, row.timing.best_s / other)


def set_target(row: Row, description: str, value: float | None, limit: float) -> None:
    """Marks a row with a target `value <= limit` (left open when there is no value)."""
    row.target = description
    row.target_met = None if value is None else value <= limit


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def shorten(note: str, limit: int = NOTE_WIDTH) -> str:
    """One line of at most `limit` characters for the table; the JSON keeps the whole note."""
    line = " ".join(note.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def format_table(rows: list[Row]) -> str:
    header = tuple("benchmark case engine best median runs xtorch xnumpy target note".split())
    lines = [header]
    for r in rows:
        target = ""
        if r.target:
            verdict = {True: "met", False: "MISSED", None: "open"}[r.target_met]
            target = f"{r.target}: {verdict}"
        lines.append(
            (
                r.benchmark,
                r.case,
                r.engine,
                format_seconds(r.timing.best_s if r.timing else None),
                format_seconds(r.timing.median_s if r.timing else None),
                str(len(r.timing.times_s)) if r.timing else "-",
                f"{r.vs_torch:.2f}" if r.vs_torch is not None else "-",
                f"{r.vs_numpy:.2f}" if r.vs_numpy is not None else "-",
                target,
                shorten(r.note),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    ]
    text.insert(1, "-" * len(text[0]))
    return "\n".join(text)


def write_json(rows: list[Row], context: dict, path: Path = RESULTS_DIR / "latest.json") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**context, "rows": [r.to_json() for r in rows]}, indent=2) + "\n")
    return path
