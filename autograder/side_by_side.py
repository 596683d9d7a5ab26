"""Run one scenario-style function on PyTorch and on another engine, and show both columns.

    from autograder.side_by_side import side_by_side

    def leaf_after_float(T, record, rng):
        z = T.tensor(rng.uniform(size=2), requires_grad=True).float()
        record.tensor("z", z)

    side_by_side(leaf_after_float)      # table PyTorch | minigrad; AssertionError if they differ

The function is written exactly like a catalogue scenario (see autograder.scenarios), so a
lecture cell and the autograder observe the same things: the same Recorder, the same
comparison (autograder.compare), the same random values for both engines.
"""

from __future__ import annotations

import html
import textwrap

from autograder.compare import compare_scenario, describe, wording_removed
from autograder.i18n import _, in_the_folders_language
from autograder.observe import observe_scenario
from autograder.scenarios import DEVICES, Scenario

__all__ = ["side_by_side", "compare_engines", "Comparison", "show", "pictures"]


def side_by_side(fn, seed=0, device="cpu", engine=None):
    """Show fn's observations under PyTorch and `engine` (default minigrad) as two columns,
    then raise AssertionError naming every difference if they disagree. Where the engine
    agreed until it stopped at a part not built yet (the class edition, before the student's
    assignment), PyTorch's column shows what happens and the engine's error is raised again:
    a lecture (autograder.lecture) names the assignment that builds it and goes on. With
    another PyTorch than the catalogue's release, whose texts minigrad copies, differences in
    wording alone are said in a line rather than raised (values, flags and types still are)."""
    comparison = compare_engines(fn, seed=seed, device=device, engine=engine)
    _display(comparison)
    if comparison.waiting_for:
        raise comparison.not_built()
    if comparison.agree:
        return
    if comparison.wording_only and not comparison.reference_release:
        print(comparison.wording_note())
        return
    raise AssertionError(comparison.failure_text())


def pictures(fn):
    """show() of fn(torch) and fn(minigrad), each engine's picture in its column; a part of
    minigrad not built yet is named in its column, PyTorch's picture still shows."""
    import torch

    import minigrad
    from minigrad.seams import SeamNotBuilt

    columns = {}
    for title, engine in (("PyTorch", torch), ("minigrad", minigrad)):
        try:
            columns[title] = fn(engine)
        except SeamNotBuilt as exc:
            from autograder.lecture import why_stopped

            columns[title] = _Text(why_stopped(exc))
    return show(columns)


class _Text(str):
    def __repr__(self):
        return str(self)


def compare_engines(fn, seed=0, device="cpu", engine=None):
    """The Comparison of fn run on PyTorch and on `engine`, without showing or raising."""
    import torch

    if engine is None:
        import minigrad as engine
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, not {device!r}")
    sc = Scenario(
        id=f"side_by_side.{fn.__name__}",
        rules=(),
        topic="basics",
        lecture="",
        weight=1.0,
        devices=DEVICES,
        declared_needs=(),  # run everything: a missing name shows up as the error it raises
        fresh_process=False,
        fn=fn,
    )
    reference = observe_scenario(torch, sc, seed, device)
    observed = observe_scenario(engine, sc, seed, device)
    differences = compare_scenario(reference, observed, device)
    return Comparison(fn.__name__, seed, _engine_name(engine), reference, observed, differences,
                      device=device, torch_version=torch.__version__)  # fmt: skip


def _engine_name(engine):
    return getattr(engine, "__name__", type(engine).__name__)


class Comparison:
    """Observations of one function on PyTorch and on an engine, row by row."""

    def __init__(self, name, seed, engine_name, reference, observed, differences,
                 device="cpu", torch_version=""):  # fmt: skip
        self.name = name
        self.seed = seed
        self.engine_name = engine_name
        self.reference = reference
        self.observed = observed
        self.differences = differences
        self.device = device
        self.torch_version = torch_version  # PyTorch's, whose column this is

    @property
    def agree(self):
        return not self.differences

    @property
    def wording_only(self):
        """They differ, and only in texts (messages, reprs): autograder.compare.without_texts."""
        blank = compare_scenario(
            wording_removed(self.reference), wording_removed(self.observed), self.device
        )
        return bool(self.differences) and not blank

    @property
    def reference_release(self):
        from autograder.check import is_reference_release

        return is_reference_release(self.torch_version)

    @in_the_folders_language
    def wording_note(self):
        from autograder.check import REFERENCE_VERSION

        return _(
            "{name} (seed {seed}): {count} worded differently by PyTorch {version}; {engine} "
            "copies PyTorch {reference}'s texts, and values, flags and types agree"
        ).format(name=self.name, seed=self.seed, count=self._count(), version=self.torch_version,
                 engine=self.engine_name, reference=REFERENCE_VERSION)  # fmt: skip

    @property
    def waiting_for(self):
        """The part of the engine not built yet where it stopped, having agreed until then
        (the checker's "waiting", autograder.check); "" otherwise."""
        if self.observed["status"] == "waiting" and len(self.differences) == 1:
            return self.observed.get("waiting_for", "")
        return ""

    def not_built(self):
        """The engine's own error for the part not built yet, raised again."""
        from minigrad.seams import SeamNotBuilt

        return SeamNotBuilt(self.observed["error"]["message"], self.waiting_for)

    def rows(self):
        """(label, PyTorch text, engine text, [differences]) in the order of observation."""
        ref = {o["label"]: o for o in self.reference["observations"]}
        eng = {o["label"]: o for o in self.observed["observations"]}
        labels = list(ref) + [label for label in eng if label not in ref]
        out = []
        for label in labels:
            diffs = [d for d in self.differences if d["label"] == label]
            out.append((label, _cell(ref.get(label)), _cell(eng.get(label)), diffs))
        return out

    @in_the_folders_language
    def run_notes(self):
        """Why a run stopped early, per engine, and differences not tied to one row."""
        notes = []
        for who, result in (("PyTorch", self.reference), (self.engine_name, self.observed)):
            if result["status"] != "ok":
                err = result.get("error", {})
                where = " " + _("at {where}").format(where=err["where"]) if err.get("where") else ""
                missing = f" {', '.join(result['missing'])}" if result.get("missing") else ""
                detail = f"{err.get('type', '')}: {err.get('message', '')}".strip(": ")
                stopped = _("{who} stopped ({status}{missing}): {detail}{where}")
                notes.append(
                    stopped.format(
                        who=who,
                        status=result["status"],
                        missing=missing,
                        detail=detail,
                        where=where,
                    )
                )
        notes += [d["summary"] for d in self.differences if d["label"] is None]
        return notes

    @in_the_folders_language
    def failure_text(self):
        lines = [
            _("{name} (seed {seed}): {engine} disagrees with PyTorch: {count}").format(
                name=self.name, seed=self.seed, engine=self.engine_name, count=self._count()
            )
        ]
        lines += [f"  - {d['summary']}" for d in self.differences]
        return "\n".join(lines)

    @in_the_folders_language
    def headline(self):
        if self.waiting_for:
            said = _(
                "{name} (seed {seed}): the PyTorch column is what happens; {engine} stops where "
                "a part is not built yet"
            )
        elif self.agree:
            said = _("{name} (seed {seed}): all {count} observations agree")
        else:
            said = _("{name} (seed {seed}): {differences}")
        return said.format(
            name=self.name,
            seed=self.seed,
            engine=self.engine_name,
            count=len(self.reference["observations"]),
            differences=self._count() if self.differences else "",
        )

    def _count(self):
        labels = {d["label"] for d in self.differences}
        return _("{count} difference(s) in {labels} observation(s)").format(
            count=len(self.differences), labels=len(labels)
        )

    def text(self, width=40):
        """A plain-text table: label | PyTorch | engine, with = or ≠ per row."""
        rows = self.rows()
        widths = (min(24, max(len(r[0]) for r in rows)) if rows else 1, width, width)
        header = ("", "PyTorch", self.engine_name)
        out = [self.headline(), _text_row(header, widths, " "), "-" * (sum(widths) + 8)]
        for label, left, right, diffs in rows:
            out.append(_text_row((label, left, right), widths, "≠" if diffs else "="))
        out += [f"! {note}" for note in self.run_notes()]
        return "\n".join(out)

    def __str__(self):
        return self.text()

    __repr__ = __str__  # the text/plain form Jupyter stores next to the HTML

    def _repr_html_(self):
        cells = [
            f"<tr><th style='{_TH}'></th><th style='{_TH}'>PyTorch</th>"
            f"<th style='{_TH}'>{html.escape(self.engine_name)}</th></tr>"
        ]
        for label, left, right, diffs in self.rows():
            colour = "#fdecea" if diffs else "#ffffff"
            mark = "≠" if diffs else "="
            title = html.escape("; ".join(d["summary"] for d in diffs), quote=True)
            cells.append(
                f"<tr style='background:{colour}' title='{title}'>"
                f"<td style='{_TD}'><b>{html.escape(label)}</b> {mark}</td>"
                f"<td style='{_TD}'>{html.escape(left)}</td>"
                f"<td style='{_TD}'>{html.escape(right)}</td></tr>"
            )
        notes = "".join(
            f"<div style='color:#c62828'>{html.escape(n)}</div>" for n in self.run_notes()
        )
        status = "#2e7d32" if self.agree else "#5f6368" if self.waiting_for else "#c62828"
        return (
            f"<div style='background:#ffffff;color:#1b1f24;padding:6px;display:inline-block'>"
            f"<div style='color:{status};font-weight:bold'>{html.escape(self.headline())}</div>"
            f"<table style='border-collapse:collapse;font-size:12px'>{''.join(cells)}</table>"
            f"{notes}</div>"
        )


_TH = "text-align:left;padding:3px 8px;border-bottom:1px solid #9aa0a6;color:#1b1f24"
_TD = (
    "text-align:left;vertical-align:top;padding:3px 8px;border-bottom:1px solid #e0e0e0;"
    "font-family:monospace;white-space:pre-wrap;color:#1b1f24;max-width:480px"
)


def _cell(observation):
    """What one engine observed under one label, as text a student reads."""
    if observation is None:
        return "(not reached)"
    raised = observation.get("raised")
    if raised:
        text = f"raised {raised['type']}: {raised['message']}"
    else:
        text = _value_text(observation["kind"], observation.get("value"))
    for w in observation.get("warnings", []):
        text += f"\nwarns {w['category']}: {w['message']}"
    return text


def _value_text(kind, value):
    if kind == "same":
        return f"same object: {value}"
    if kind == "shares":
        return f"shares memory: {value}"
    if isinstance(value, dict) and "tensor" in value:
        return _snapshot_text(value["tensor"])
    if kind == "call" and value is None:
        return "returned None"
    if _plain(value):
        return repr(value)
    return describe(value)


def _plain(value):
    """None, bool, numbers, strings and lists of them: shown as Python writes them."""
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _snapshot_text(snap):
    fields = ("is_leaf", "requires_grad", "grad_fn", "_version", "retains_grad")
    keys = ("is_leaf", "requires_grad", "grad_fn", "version", "retains_grad")
    flags = " ".join(
        f"{f}={_field(snap.get(k))}"
        for f, k in zip(fields, keys, strict=True)
        if snap.get(k) is not None or k == "grad_fn"  # grads carry no version
        if not (k == "retains_grad" and snap.get(k) is False)
    )
    return f"{_field(snap.get('repr'))}\n{flags}"


def _field(x):
    if isinstance(x, dict) and "error" in x:
        return f"<reading it raised {x['error']}>"
    return str(x)


def _text_row(columns, widths, mark):
    wrapped = [
        sum((textwrap.wrap(part, width) or [""] for part in str(c).split("\n")), [])
        for c, width in zip(columns, widths, strict=True)
    ]
    height = max(len(w) for w in wrapped)
    lines = []
    for i in range(height):
        parts = [
            w[i].ljust(width) if i < len(w) else " " * width
            for w, width in zip(wrapped, widths, strict=True)
        ]
        lead = mark if i == 0 else " "
        lines.append(f"{lead} " + " | ".join(parts).rstrip())
    return "\n".join(lines)


def _display(obj):
    """Rich display inside IPython, plain text elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(obj)
    else:
        print(obj)


class show:
    """Objects side by side in columns: show({"PyTorch": a, "minigrad": b}) or a list of
    (title, object) pairs. Pictures (anything with _repr_html_ or _repr_svg_) render as
    pictures, everything else as its repr."""

    def __init__(self, columns):
        self.columns = list(columns.items()) if isinstance(columns, dict) else list(columns)

    def _repr_html_(self):
        heads = "".join(f"<th style='{_TH}'>{html.escape(str(t))}</th>" for t, _ in self.columns)
        body = "".join(
            f"<td style='{_TD.replace('max-width:480px', '')}'>{_html_of(obj)}</td>"
            for _, obj in self.columns
        )
        return (
            "<div style='background:#ffffff;padding:6px;display:inline-block'>"
            f"<table style='border-collapse:collapse'><tr>{heads}</tr><tr>{body}</tr></table>"
            "</div>"
        )

    def __repr__(self):
        return "\n\n".join(f"== {title} ==\n{obj!r}" for title, obj in self.columns)


def _html_of(obj):
    if hasattr(obj, "_repr_html_"):
        return obj._repr_html_()
    if hasattr(obj, "_repr_svg_"):
        return obj._repr_svg_()
    return html.escape(repr(obj))
