"""The student's graph beside PyTorch's, the first node where they differ marked.

A failing observation says what differs (a grad_fn's name, a leaf flag, a version); the graph
around the tensor says where. The Recorder keeps, with the snapshot of each tensor that has a
graph (a grad_fn, or requires_grad), that graph as data: `capture` (minigrad.viz's own walk,
capped at MAX_NODES boxes, values left out). It crosses the sandbox as JSON with the rest of
the observations, and the engine's side is read as untrusted (`_checked`).

`compared(reference, engine, differences)` takes one scenario's observations on both sides:
for the first difference that involves a graph, both graphs and the first node where they
differ, walking both from the observed tensor input by input (None when the graphs are the
same or cannot be read). `pictures_html` draws them side by side, each SVG as an <img> with a
data: URL: what the feedback page's sanitiser lets through (safe_html.py), and an image a
browser shows without running anything in it.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import html
import re


@functools.cache
def _catalogue():
    """autograder/i18n.py where it is there, looked for once: a sealed run stages this module
    without it (coursekit/sealed/sandbox.py, OBSERVING_SIDE), and speaks English."""
    try:
        from autograder import i18n
    except ImportError:
        return None
    return i18n


def _(message: str) -> str:
    catalogue = _catalogue()
    return message if catalogue is None else catalogue._(message)


MAX_NODES = 16  # boxes walked per graph (an AccumulateGrad's leaf may add one each)
MAX_TEXT = 60  # characters of a title or a line the picture shows
_MAX_LINES = 6
# the most characters the two pictures' HTML takes: under what a feedback page shows of one
# output (coursekit/classroom/results/display_budget.py, SHOWN_CHARS), so never cut there
HTML_LIMIT = 90_000
SIDE_BY_SIDE_PX = 940  # the two pictures' widths together, within a feedback page's column
_MAX_EDGES = 4 * MAX_NODES
KINDS = ("tensor", "leaf", "cut", "function", "accumulate", "none")
# the snapshot fields a graph explains, and the words of errors about one
GRAPH_FIELDS = ("grad_fn", "is_leaf", "requires_grad", "retains_grad", "version")
_GRAPH_WORDS = re.compile(
    r"grad_fn|leaf|version|in-?place|saved|backward through the graph|requires_grad|does not "
    r"require grad"
)
MARK = "first difference"  # the differing box's mark, in English (_marked: as shown)


def prepare() -> None:
    """Import the drawer now, in a process that forks a child per scenario (each child would
    import it again); where minigrad cannot be imported, graphs are simply not captured."""
    with contextlib.suppress(ImportError):
        import minigrad.viz  # noqa: F401


def capture(t) -> dict | None:
    """The graph behind tensor `t` as data, None for a tensor outside any graph (its own
    snapshot says all there is) or one whose graph cannot be read."""
    try:
        if getattr(t, "grad_fn", None) is None and not t.requires_grad:
            return None
        from minigrad.viz import draw  # reads tensors through the attributes engines share

        # in English whatever the folder's language: the texts _checked reads (the engine's
        # side) and what PyTorch's recorded observations hold
        picture = draw(t, values=False, layout="python", max_nodes=MAX_NODES, language="en")
    except Exception:  # noqa: BLE001  (a graph is an aid: an odd engine gets none)
        return None
    index = {n.id: i for i, n in enumerate(picture.nodes)}
    return {
        "nodes": [
            {"kind": n.kind, "title": n.title, "lines": list(n.lines), "alerts": sorted(n.alerts)}
            for n in picture.nodes
        ],
        "edges": [[index[e.src], index[e.dst], e.kind] for e in picture.edges],
        "left_out": picture.left_out,
    }


def involves_graph(diff: dict) -> bool:
    """Whether a difference is about the graph: a flag or a grad_fn, or an error about one."""
    field = str(diff.get("field", ""))
    if field.rsplit(".", 1)[-1] in GRAPH_FIELDS:
        return True
    if field in ("exception", "outcome", "scenario run"):
        return bool(_GRAPH_WORDS.search(f"{diff.get('reference')} {diff.get('engine')}"))
    return False


def compared(reference: dict, engine, differences: list[dict]) -> dict | None:
    """Both graphs of the first difference that involves one, and where they first differ:
    {"label", "field", "pytorch", "engine", "first": [PyTorch's node, the engine's node]}.
    Observations it cannot make sense of give no graph, never an error."""
    try:
        return _compared(reference, engine, differences)
    except Exception:  # noqa: BLE001  (the engine's side is whatever the sandbox sent)
        return None


def _compared(reference: dict, engine, differences: list[dict]) -> dict | None:
    diff = next((d for d in differences if involves_graph(d) and d.get("label")), None)
    if diff is None:
        return None
    ours, theirs = _by_label(reference), _by_label(engine)
    label = diff["label"]
    if label not in ours or label not in theirs:
        return None
    order = list(ours)
    # the observed tensor, else the last tensor observed before it (a call that raised)
    for at in reversed(order[: order.index(label) + 1]):
        path = diff["field"] if at == label else ""
        pytorch = _checked(_graph_at(ours[at], path))  # cut as the engine's is
        if pytorch is None:
            continue
        graph = _checked(_graph_at(theirs.get(at), path))
        first = first_difference(pytorch, graph) if graph is not None else None
        if first is None:
            return None
        return {"label": at, "field": diff["field"], "pytorch": pytorch, "engine": graph,
                "first": list(first)}  # fmt: skip
    return None


def _by_label(side) -> dict:
    """A scenario's observations by label, in order; only well-formed entries are read (the
    engine's side may hold anything)."""
    found = side.get("observations") if isinstance(side, dict) else None
    if not isinstance(found, list):
        return {}
    return {o["label"]: o for o in found if isinstance(o, dict) and isinstance(o.get("label"), str)}


def _graph_at(observation, field: str):
    """The graph of the tensor a field names ('[1].grad_fn': the second item's), built from
    the snapshot for a tensor outside any graph."""
    if not isinstance(observation, dict) or observation.get("raised"):
        return None
    value = observation.get("value")
    for index in re.findall(r"\[(\d+)\]", field.rpartition(".")[0] if "." in field else ""):
        if not isinstance(value, list) or int(index) >= len(value):
            return None
        value = value[int(index)]
    if not (isinstance(value, dict) and isinstance(value.get("tensor"), dict)):
        return None
    snapshot = value["tensor"]
    if "graph" in snapshot:
        return snapshot["graph"]
    alone = snapshot.get("grad_fn") is None and snapshot.get("requires_grad") is False
    return _lone_tensor(snapshot) if alone else None  # None: not recorded (an old recording)


def _lone_tensor(snapshot: dict) -> dict:
    """The one box minigrad.viz draws for a tensor outside any graph."""
    shape = snapshot.get("shape")
    title = f"{snapshot.get('dtype')}{shape}"
    if snapshot.get("device") not in ("cpu", None):
        title += f" on {snapshot.get('device')}"
    lines = [f"is_leaf={snapshot.get('is_leaf')} requires_grad={snapshot.get('requires_grad')}"]
    if snapshot.get("version"):
        lines.append(f"_version={snapshot.get('version')}")
    return {"nodes": [{"kind": "tensor", "title": title, "lines": lines, "alerts": []}],
            "edges": [], "left_out": 0}  # fmt: skip


def _checked(graph) -> dict | None:
    """An engine's graph as sent, or None unless it is one capture() could have made (kinds,
    sizes and indexes in range); a text other than those minigrad.viz writes is UNREADABLE."""
    if not isinstance(graph, dict):
        return None
    nodes, edges, left = graph.get("nodes"), graph.get("edges"), graph.get("left_out", 0)
    if not (isinstance(nodes, list) and 0 < len(nodes) <= 2 * MAX_NODES):
        return None
    if not (isinstance(edges, list) and len(edges) <= _MAX_EDGES and type(left) is int):
        return None
    clean = []
    for node in nodes:
        if not isinstance(node, dict) or node.get("kind") not in KINDS:
            return None
        title, lines, alerts = node.get("title"), node.get("lines"), node.get("alerts", [])
        if not (isinstance(title, str) and isinstance(lines, list) and isinstance(alerts, list)):
            return None
        if len(lines) > _MAX_LINES or not all(isinstance(x, str) for x in lines):
            return None
        if not all(type(a) is int and 0 <= a < len(lines) for a in alerts):
            return None
        clean.append({"kind": node["kind"], "title": _shown(title, _TITLES),
                      "lines": [_shown(x, _LINES) for x in lines], "alerts": alerts})  # fmt: skip
    for edge in edges:
        if not (isinstance(edge, list) and len(edge) == 3 and edge[2] in ("flow", "saved")):
            return None
        if not all(type(i) is int and 0 <= i < len(nodes) for i in edge[:2]):
            return None
    return {"nodes": clean, "edges": [list(e) for e in edges], "left_out": max(left, 0)}


# What a box may say: the texts minigrad.viz writes (values left out). Anything else an engine
# sends is shown as UNREADABLE: a submission's own words reach its feedback only as the short
# texts of a comparison (coursekit/sealed/grade.py, ENGINE_TEXT_LIMIT), never as free text here.
_TYPE = r"(?:Parameter )?[a-z0-9]{2,12}\[[\d, ]{0,40}\](?: on [a-z]{2,8}(?::\d{1,2})?)?"
_TITLES = re.compile(rf"None|[A-Z][A-Za-z0-9_]{{0,40}}|{_TYPE}")
_LINES = re.compile(
    r"is_leaf=(?:True|False) requires_grad=(?:True|False)|_version=\d{1,9}"
    r"|variable: None|graph cut here: no grad_fn, requires_grad=False"
    rf"|saved [a-z0-9_]{{1,30}}: (?:(?:{_TYPE}, )?version \d{{1,9}}"
    r"(?:, now \d{1,9}: modified in place!)?|freed by backward\(\)|unreadable \(\w{1,40}\))"
)
UNREADABLE = "(unreadable)"
CUT = "graph cut here: no grad_fn, requires_grad=False"
_SAVED = re.compile(
    rf"saved (?P<name>[a-z0-9_]{{1,30}}): (?:(?:(?P<tensor>{_TYPE}), )?version (?P<then>\d{{1,9}})"
    r"(?:, now (?P<now>\d{1,9}): modified in place!)?|(?P<freed>freed by backward\(\))"
    r"|unreadable \((?P<error>\w{1,40})\))"
)


def _marked() -> str:
    """MARK in the reader's language."""
    return _("first difference")


def _worded(text: str) -> str:
    """A box's title or line as the reader reads it. A graph is kept in the English texts
    minigrad.viz writes (capture: what _checked reads and PyTorch's recording holds); shown,
    its words are those viz says them in where it is drawn, made from the same messages with
    the line's parts (a name, a type, versions, flags and grad_fn names stay as they are)."""
    if text == CUT:
        return _("graph cut here: no grad_fn, requires_grad=False")
    if text == UNREADABLE:
        return _("(unreadable)")
    saved = _SAVED.fullmatch(text)
    if saved is None:
        return text
    parts = saved.groupdict()
    if parts["freed"]:
        return _("saved {name}: freed by backward()").format(**parts)
    if parts["error"]:
        return _("saved {name}: unreadable ({error})").format(**parts)
    if parts["now"] is None:
        if parts["tensor"] is None:
            return text  # no message of viz's says this: as it was captured
        return _("saved {name}: {tensor}, version {version}").format(
            name=parts["name"], tensor=parts["tensor"], version=parts["then"]
        )
    if parts["tensor"] is None:
        return _("saved {name}: version {then}, now {now}: modified in place!").format(**parts)
    return _("saved {name}: {tensor}, version {then}, now {now}: modified in place!").format(
        **parts
    )


def _shown(text: str, allowed: re.Pattern) -> str:
    return text if allowed.fullmatch(text) else UNREADABLE


def first_difference(a: dict, b: dict) -> tuple[int, int] | None:
    """The first pair of nodes, walking both graphs from the observed tensor (node 0) through
    their inputs in order, that differ (`_same`), or differ in their inputs' number or kinds;
    None when the graphs are the same."""
    queue, seen = [(0, 0)], set()
    while queue:
        i, j = queue.pop(0)
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if not _same(a["nodes"][i], b["nodes"][j]):
            return i, j
        ins_a, ins_b = _inputs(a, i), _inputs(b, j)
        if [k for _, k in ins_a] != [k for _, k in ins_b]:
            return i, j
        queue += [(x, y) for (x, _), (y, _) in zip(ins_a, ins_b, strict=True)]
    return None


def _same(x: dict, y: dict) -> bool:
    """Same kind, title and lines. Which tensors a node saves is the engine's choice (no rule
    is about it): only the saved tensors both name are compared (their versions are a rule's)."""
    if (x["kind"], x["title"]) != (y["kind"], y["title"]):
        return False
    saved_x, lines_x = _split_saved(x["lines"])
    saved_y, lines_y = _split_saved(y["lines"])
    return lines_x == lines_y and all(saved_x[k] == saved_y[k] for k in saved_x.keys() & saved_y)


def _split_saved(lines: list[str]) -> tuple[dict, list[str]]:
    saved, other = {}, []
    for line in lines:
        name, colon, rest = line.removeprefix("saved ").partition(": ")
        if line.startswith("saved ") and colon:
            saved[name] = rest
        else:
            other.append(line)
    return saved, other


def _inputs(graph: dict, i: int) -> list[tuple[int, str]]:
    return [(src, kind) for src, dst, kind in graph["edges"] if dst == i]


# -- drawing -----------------------------------------------------------------------------


def pictures(comparison: dict, titles_only: bool = False) -> tuple:
    """PyTorch's and the engine's graphs as minigrad.viz Pictures, the first differing node
    of each outlined in red and saying so (titles_only: the other boxes without their lines)."""
    from minigrad.viz import Edge, Node, Picture

    drawn = []
    for side, marked in zip(("pytorch", "engine"), comparison["first"], strict=True):
        graph = comparison[side]
        nodes = []
        for i, n in enumerate(graph["nodes"]):
            shown = n["lines"] if i == marked or not titles_only else []
            lines = [_worded(x)[:MAX_TEXT] for x in shown]
            alerts = {a for a in n["alerts"] if a < len(lines)}
            if i == marked:
                alerts.add(len(lines))
                lines.append(f"<- {_marked()}")
            title = _worded(n["title"])[:MAX_TEXT]
            nodes.append(Node(f"n{i}", n["kind"], title, lines, alerts, marked=i == marked))
        edges = [Edge(f"n{src}", f"n{dst}", kind) for src, dst, kind in graph["edges"]]
        drawn.append(Picture(nodes, edges, layout="python"))
    return tuple(drawn)


def summary(comparison: dict) -> str:
    """One line: where the graphs first differ, and how."""
    ours = comparison["pytorch"]["nodes"][comparison["first"][0]]
    theirs = comparison["engine"]["nodes"][comparison["first"][1]]
    label = repr(comparison["label"])
    if ours["title"] != theirs["title"]:
        return _(
            "The graph behind {label} first differs from PyTorch's at PyTorch's {pytorch}, "
            "your engine's {engine}"
        ).format(label=label, pytorch=ours["title"], engine=theirs["title"])
    shown = [(a, b) for a, b in zip(ours["lines"], theirs["lines"], strict=False) if a != b]
    if shown:
        a, b = map(_worded, shown[0])
    else:
        a, b = ("; ".join(map(_worded, node["lines"])) for node in (ours, theirs))
    return _(
        "The graph behind {label} first differs from PyTorch's at {node}: PyTorch {pytorch}, "
        "your engine {engine}"
    ).format(label=label, node=ours["title"], pytorch=a, engine=b)


def pictures_html(comparison: dict) -> str:
    """Both pictures side by side, each an <img> of its SVG (a data: URL), with a caption;
    within HTML_LIMIT (the boxes keep only their titles where the whole would not be)."""
    shown = _pictures_html(comparison, titles_only=False)
    return shown if len(shown) <= HTML_LIMIT else _pictures_html(comparison, titles_only=True)


def _pictures_html(comparison: dict, titles_only: bool) -> str:
    cells, width = [], 0
    drawn = pictures(comparison, titles_only)
    for side, picture in zip(("pytorch", "engine"), drawn, strict=True):
        name = _("PyTorch") if side == "pytorch" else _("your engine")
        who = html.escape(name)
        alt = html.escape(
            _("{who}: the graph behind {label}").format(who=name, label=comparison["label"])
        )
        svg = picture.svg()
        width += int(float(_WIDTH.search(svg)[1]))
        data = base64.b64encode(svg.encode()).decode()
        left = comparison[side].get("left_out", 0)
        more = " " + _("({count} more boxes not drawn)").format(count=left) if left else ""
        cells.append(
            f"<td><b>{who}</b>{more}<br>"
            f'<img alt="{alt}" '
            f'src="data:image/svg+xml;base64,{data}"></td>'
        )
    # side by side where both fit a page's width; else PyTorch's above, each at full size
    rows = [cells] if width <= SIDE_BY_SIDE_PX else [[cell] for cell in cells]
    table = "".join(f"<tr>{''.join(row)}</tr>" for row in rows)
    marked = _("(outlined in red, marked {mark}).").format(mark=repr(_marked()))
    caption = html.escape(summary(comparison) + " " + marked)
    return f"<div><p>{caption}</p><table>{table}</table></div>"


_WIDTH = re.compile(r'<svg[^>]* width="([\d.]+)"')
