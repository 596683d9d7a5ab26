"""Pictures of autograd graphs, for PyTorch and minigrad tensors with one function.

    from minigrad.viz import draw
    draw(z, names={"x": x, "w": w, "y": y})      # renders inline in Jupyter

`draw` walks `grad_fn.next_functions` from the tensors it is given, exactly as PyTorch's
backward engine would, and shows:

* tensors: leaves (reached through `AccumulateGrad.variable`), the tensors passed in, their
  flags, small values, `.grad` where PyTorch would fill it (leaves, `retain_grad()`);
* backward nodes, named as the engine names them, with the tensors they saved and whether
  those were modified in place since (the version check that `backward()` will make);
* `None` slots of `next_functions` (inputs that did not require grad);
* cut graphs: next to a graph, a tensor passed in that has neither `grad_fn` nor
  `requires_grad` is where `backward()` stops (values copied out of a graph, `detach()`, a
  round trip through NumPy, or simply a constant); it gets a "graph cut here" marker, and a
  dotted arrow to the node that saved it, if one did. NumPy arrays are drawn apart.

Arrows point the way values flow forward; `backward()` walks them in reverse.

Its words (legend, notes on saved tensors, cuts) are in the language of the lecture it is drawn
in: `language`, else that of the notebooks in the kernel's folder, through the course's
catalogue (autograder/i18n.py) where the course is installed around the engine, English where
minigrad runs alone. What PyTorch names (grad_fn classes, dtypes, shapes, flags, attributes)
is written as PyTorch writes it.

The picture is laid out in Python and written as SVG, so it renders in JupyterLab (and in
nbconvert's HTML) from a pip-only install; when the `graphviz` package and Graphviz's `dot`
are both installed, `dot` lays it out instead. Nothing here imports torch: tensors are read
through the attributes PyTorch and minigrad share.
"""

from __future__ import annotations

import contextlib
import functools
import html
import importlib.util
import re
import shutil
import unicodedata
from dataclasses import dataclass, field

import numpy as np

__all__ = ["draw", "Picture", "Node", "Edge"]

MAX_VALUES = 6  # tensors with more elements show shape only
_VERSION_ERROR = re.compile(r"is at version (\d+); expected version (\d+)")


@dataclass
class Node:
    """One box of the picture. `kind` is one of: tensor, leaf, cut, array, function,
    accumulate, none. `alerts` are indexes into `lines` drawn in red; a `marked` node is
    outlined in red (where one picture first differs from another)."""

    id: str
    kind: str
    title: str
    lines: list[str] = field(default_factory=list)
    alerts: set[int] = field(default_factory=set)
    obj: object = field(default=None, repr=False, compare=False)
    marked: bool = False


@dataclass(frozen=True)
class Edge:
    """An arrow in the forward direction. kind "flow" comes from next_functions (or from a
    grad_fn to its tensor, or from a leaf to its AccumulateGrad); kind "saved" joins a
    tensor passed in to the node that saved it."""

    src: str
    dst: str
    kind: str = "flow"


def draw(*tensors, names=None, values=True, layout="auto", max_nodes=None, language=None):
    """Draw the autograd graph behind `tensors` (PyTorch or minigrad tensors, NumPy arrays).

    names: labels, either a sequence of strings matching `tensors` or a mapping
        {label: tensor}; tensors in the mapping are drawn too.
    values: show values and `.grad` of tensors with at most 6 elements.
    layout: "auto" (Graphviz when installed, else the built-in layout), "python" or "dot".
    max_nodes: stop walking the graph once it has this many boxes (`Picture.left_out` counts
        the boxes left out); None draws all of it.
    language: the language of the picture's words ("en", "zh-CN"); None: that of the
        notebooks in the current folder (a lecture kernel's).
    """
    interest, labels = _tensors_and_labels(tensors, names)
    if not interest:
        raise ValueError("draw() needs at least one tensor")
    if layout not in ("auto", "python", "dot"):
        raise ValueError(f"layout must be 'auto', 'python' or 'dot', not {layout!r}")
    words = _words()
    if words is None:  # minigrad alone: its words are English
        language = DEFAULT_LANGUAGE
    elif language is None:
        language = words.folder_language()
    elif language not in words.languages():
        known = ", ".join(repr(x) for x in words.languages())
        raise ValueError(f"language must be one of {known} or None, not {language!r}")
    with _speaking(language):
        builder = _GraphBuilder(labels, values, max_nodes)
        for t in interest:
            builder.add(t)
        builder.classify_loose_tensors()
    picture = Picture(list(builder.nodes.values()), builder.edges, layout, language)
    picture.left_out = builder.left_out
    return picture


DEFAULT_LANGUAGE = "en"


@functools.cache
def _words():
    """autograder.i18n (the course's catalogue) where the course is installed around the
    engine; None where minigrad runs alone (a sealed run stages it without that module)."""
    try:
        from autograder import i18n
    except ImportError:
        return None
    return i18n


def _(message: str) -> str:
    words = _words()
    return message if words is None else words._(message)


def N_(message: str) -> str:
    """Marks a message kept as data (translated where it is shown, with _)."""
    return message


def _speaking(language):
    """Words made inside in `language` (None: as outside); English where minigrad is alone."""
    words = _words()
    if words is None or language is None:
        return contextlib.nullcontext()
    return words.speaking(language)


def _tensors_and_labels(tensors, names):
    interest = list(tensors)
    labels = {}
    if names is None:
        pass
    elif isinstance(names, dict):
        for label, t in names.items():
            labels[id(t)] = str(label)
            if not any(t is u for u in interest):
                interest.append(t)
    else:
        names = list(names)
        if len(names) != len(tensors):
            raise ValueError(f"names has {len(names)} entries for {len(tensors)} tensors")
        labels = {id(t): str(label) for t, label in zip(tensors, names, strict=True)}
    return interest, labels


class _GraphBuilder:
    def __init__(self, labels, values, max_nodes=None):
        self.labels = labels
        self.values = values
        self.max_nodes = max_nodes
        self.left_out = 0  # boxes not drawn: the picture is full
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []
        self.saved_by: dict[int, str] = {}  # id(saved tensor) -> id of the node saving it
        self.loose: list[object] = []  # tensors passed in without any graph
        self.keep: list[object] = []  # saved tensors stay alive so their ids stay unique

    # -- walking -------------------------------------------------------------------------
    def add(self, t):
        if isinstance(t, np.ndarray):
            self._array_node(t)
        elif getattr(t, "grad_fn", None) is not None:
            tid = self._tensor_node(t, "tensor")
            self._walk(t.grad_fn)
            self._edge(_fn_id(t.grad_fn), tid)
        elif t.requires_grad:
            self._tensor_node(t, "leaf")
        else:
            self.loose.append(t)

    def _walk(self, root):
        """Iterative walk over next_functions (graphs can be deep). Nodes are created in
        slot order, which the layout keeps as its left-to-right starting order."""
        if _fn_id(root) in self.nodes:
            return
        self._fn_node(root)
        stack = [root]
        while stack:
            fn = stack.pop()
            fid = _fn_id(fn)
            for slot, (child, _) in enumerate(fn.next_functions):
                new = child is None or _fn_id(child) not in self.nodes
                if new and self.max_nodes is not None and len(self.nodes) >= self.max_nodes:
                    self.left_out += 1
                    continue
                if child is None:
                    nid = f"{fid}_none{slot}"
                    self.nodes[nid] = Node(nid, "none", "None")
                    self._edge(nid, fid)
                    continue
                if _fn_id(child) not in self.nodes:
                    self._fn_node(child)
                    stack.append(child)
                self._edge(_fn_id(child), fid)

    def _fn_node(self, fn):
        fid = _fn_id(fn)
        name = type(fn).__name__
        if hasattr(fn, "variable"):  # AccumulateGrad: the leaf it accumulates into
            node = Node(fid, "accumulate", name, obj=fn)
            self.nodes[fid] = node
            var = fn.variable
            if var is None:  # an engine that lost its leaf: show it rather than fail
                node.lines.append("variable: None")
                node.alerts.add(0)
                return
            kind = "leaf" if var.requires_grad else "tensor"
            self._edge(self._tensor_node(var, kind), fid)
            return
        node = Node(fid, "function", name, obj=fn)
        self.nodes[fid] = node
        for attr in sorted(a for a in dir(fn) if a.startswith("_saved_")):
            if attr == "_saved_versions":
                continue
            line, alert = self._saved_line(fn, attr)
            if line is None:
                continue
            if alert:
                node.alerts.add(len(node.lines))
            node.lines.append(line)

    def _saved_line(self, fn, attr):
        """'saved self: x float32[2] v0', or why the saved tensor cannot be used."""
        short = attr[len("_saved_") :]
        try:
            saved = getattr(fn, attr)
        except Exception as err:  # engines raise different types here
            message = str(err)
            versions = _VERSION_ERROR.search(message)
            if versions:
                now, then = versions.groups()
                return _stale(short, self._describe(_raw_saved(fn, attr)), then, now), True
            if "freed" in message:
                return _("saved {name}: freed by backward()").format(name=short), False
            error = type(err).__name__
            return _("saved {name}: unreadable ({error})").format(name=short, error=error), True
        if not _is_tensor(saved):
            # None: not needed by this node; sizes, dims, scalars: engine details
            return None, False
        self.keep.append(saved)
        self.saved_by.setdefault(id(saved), _fn_id(fn))
        desc = self._describe(saved)
        then = _saved_version(fn, attr, short)
        now = _version_of(saved)
        if now is None:  # an engine that cannot count versions yet
            return _("saved {name}: {tensor}").format(name=short, tensor=desc), False
        if then is not None and then != now:
            return _stale(short, desc, then, now), True
        line = _("saved {name}: {tensor}, version {version}")
        return line.format(name=short, tensor=desc, version=now), False

    def _describe(self, t):
        """'x' for a labelled tensor, 'float32[2]' otherwise, None when unknown."""
        if t is None:
            return None
        return self.labels.get(id(t)) or _type_text(t)

    # -- tensors ---------------------------------------------------------------------------
    def _tensor_node(self, t, kind):
        tid = f"t{id(t)}"
        if tid in self.nodes:
            return tid
        flags = f"is_leaf={t.is_leaf} requires_grad={t.requires_grad}"
        lines = [flags]
        if _version_of(t):
            lines.append(f"_version={_version_of(t)}")
        if self.values and _numel(t) <= MAX_VALUES:
            lines.append("data: " + _values_text(t.detach()))
            grad_line = self._grad_line(t)
            if grad_line:
                lines.append(grad_line)
        title = _type_text(t)
        if type(t).__name__ == "Parameter":
            title = "Parameter " + title
        label = self.labels.get(id(t))
        self.nodes[tid] = Node(tid, kind, f"{label}: {title}" if label else title, lines, obj=t)
        return tid

    @staticmethod
    def _grad_line(t):
        """.grad, read only where the engine keeps it (reading it elsewhere warns)."""
        if t.is_leaf and t.requires_grad:
            grad = t.grad
            return "grad: None" if grad is None else "grad: " + _values_text(grad)
        if getattr(t, "retains_grad", False):
            grad = t.grad
            shown = "None" if grad is None else _values_text(grad)
            return f"grad (retain_grad): {shown}"
        return None

    def _array_node(self, a):
        aid = f"t{id(a)}"
        if aid in self.nodes:
            return
        label = self.labels.get(id(a))
        title = f"ndarray {a.dtype}{list(a.shape)}"
        lines = [_(LEGEND["array"])]
        if self.values and a.size <= MAX_VALUES:
            lines.append("data: " + _format_values(np.asarray(a)))
        title = f"{label}: {title}" if label else title
        self.nodes[aid] = Node(aid, "array", title, lines, {0}, obj=a)

    def classify_loose_tensors(self):
        """Next to a graph, a tensor without grad_fn or requires_grad is where backward()
        stops: the graph is cut there (values copied out, detach(), NumPy, or a constant).
        A node that saved it gets a dotted arrow from it. Alone, it is a plain tensor."""
        has_graph = any(n.kind != "array" for n in self.nodes.values())
        for t in self.loose:
            if not has_graph:
                self._tensor_node(t, "tensor")
                continue
            node = self.nodes[self._tensor_node(t, "cut")]
            node.lines.insert(0, _("graph cut here: no grad_fn, requires_grad=False"))
            node.alerts = {0}
            saver = self.saved_by.get(id(t))
            if saver is not None:
                self._take_none_slot(node.id, saver)

    def _take_none_slot(self, tid, saver):
        """Join a saved input without grad to the node that saved it. When that node has a
        single None slot, the input is what the slot stands for: it takes the slot's place."""
        nones = [e for e in self.edges if e.dst == saver and self.nodes[e.src].kind == "none"]
        if len(nones) == 1:
            self.edges.remove(nones[0])
            del self.nodes[nones[0].src]
        self._edge(tid, saver, "saved")

    def _edge(self, src, dst, kind="flow"):
        edge = Edge(src, dst, kind)
        if edge not in self.edges:
            self.edges.append(edge)


def _stale(name, tensor, then, now):
    """The line of a saved tensor modified in place since it was saved (`tensor`: None when
    the engine no longer shows it)."""
    if tensor is None:
        line = _("saved {name}: version {then}, now {now}: modified in place!")
    else:
        line = _("saved {name}: {tensor}, version {then}, now {now}: modified in place!")
    return line.format(name=name, tensor=tensor, then=then, now=now)


def _fn_id(fn):
    return f"f{id(fn)}"


def _is_tensor(x):
    return hasattr(x, "grad_fn") and hasattr(x, "_version")


def _raw_saved(fn, attr):
    """PyTorch's saved tensor read without its version check (None for other engines)."""
    raw = getattr(fn, "_raw" + attr, None)
    try:
        return raw.data if raw is not None else None
    except Exception:  # freed, or not a SavedTensor
        return None


def _saved_version(fn, attr, short):
    """The version a minigrad node saw at save time; None where the engine hides it
    (PyTorch checks it on every read of a saved tensor and raises instead)."""
    versions = getattr(fn, "_saved_versions", None)
    if not isinstance(versions, dict):
        return None
    for key in (attr, short):
        if key in versions:
            return versions[key]
    return None


def _numel(t):
    n = 1
    for s in t.shape:
        n *= int(s)
    return n


def _dtype_text(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _type_text(t):
    """'float32[2, 3]' plus the device when it is not the CPU."""
    text = f"{_dtype_text(t.dtype)}{[int(s) for s in t.shape]}"
    device = getattr(t, "device", None)
    if device is not None and getattr(device, "type", "cpu") != "cpu":
        text += f" on {device}"
    return text


def _values_text(t):
    return _format_values(np.asarray(t.tolist()))


def _format_values(a):
    return np.array2string(
        a, precision=4, floatmode="maxprec_equal", separator=", ", max_line_width=200
    )


# -- rendering ---------------------------------------------------------------------------

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
FONT_SIZE = 12
CHAR_W = 7.6  # advance of a 12 px monospace glyph, with room for wider fallback fonts
# A Chinese character (and full-width punctuation) is drawn from a CJK fallback font, one em
# wide: 12 px, with the same room
WIDE_W = 12.6
LINE_H = 15
PAD_X, PAD_Y = 8, 6
GAP_X, GAP_Y = 24, 38
MARGIN = 12

# fill, stroke, dash: explicit light colours on a white background read the same in light
# and dark Jupyter themes
STYLES = {
    "leaf": ("#e3f4e1", "#2e7d32", ""),
    "tensor": ("#e6f0fb", "#1f5fa8", ""),
    "function": ("#f1f2f4", "#5b6470", ""),
    "accumulate": ("#fff4d6", "#a66f00", ""),
    "none": ("#ffffff", "#9aa0a6", "4 3"),
    "cut": ("#fdecea", "#c62828", "6 3"),
    "array": ("#fdecea", "#c62828", "6 3"),
}
LEGEND = {  # translated where drawn
    "leaf": N_("leaf that requires grad"),
    "tensor": N_("tensor"),
    "function": N_("backward node (grad_fn)"),
    "accumulate": N_("AccumulateGrad (fills a leaf's .grad)"),
    "none": N_("None: input without grad"),
    "cut": N_("graph cut here: backward() stops"),
    "array": N_("NumPy array: no graph"),
}
LEGEND_TITLE = N_("arrows: forward flow; backward() walks them in reverse")
TEXT = "#1b1f24"
ALERT = "#c62828"


class Picture:
    """The drawn graph: `nodes`, `edges`, `svg()`, `to_dot()`; displays itself in Jupyter.
    `language`: the language of its legend (draw's), None: the one spoken where it is drawn."""

    def __init__(self, nodes, edges, layout="auto", language=None):
        self.nodes = nodes
        self.edges = edges
        self.layout = layout
        self.language = language
        self.left_out = 0  # boxes not drawn (draw's max_nodes)

    def node(self, title):
        """The node whose title is `title` or starts with `title + ':'` (a label)."""
        for n in self.nodes:
            if n.title == title or n.title.startswith(title + ": "):
                return n
        raise KeyError(title)

    def svg(self):
        if self.layout == "dot" or (self.layout == "auto" and graphviz_available()):
            return self._svg_from_dot()
        with _speaking(self.language):
            return _SvgLayout(self.nodes, self.edges).render()

    def _svg_from_dot(self):
        import graphviz

        return graphviz.Source(self.to_dot()).pipe(format="svg", encoding="utf-8")

    def to_dot(self):
        """Graphviz source of the same picture."""
        with _speaking(self.language):
            saved = _("saved")
        out = [
            "digraph autograd {",
            '  graph [bgcolor="white", rankdir=TB, nodesep=0.3, ranksep=0.4];',
            f'  node [shape=box, style="rounded,filled", fontname="{FONT}", fontsize=10,'
            ' margin="0.15,0.08"];',
            '  edge [color="#5b6470", arrowsize=0.7];',
        ]
        for n in self.nodes:
            fill, stroke, dash = STYLES[n.kind]
            style = "rounded,filled,dashed" if dash else "rounded,filled"
            stroke, width = (ALERT, 3) if n.marked else (stroke, 1)
            out.append(
                f'  "{n.id}" [label=<{_dot_label(n)}>, fillcolor="{fill}", color="{stroke}", '
                f'style="{style}", penwidth={width}];'
            )
        for e in self.edges:
            attrs = f' [style=dashed, label="{saved}"]' if e.kind == "saved" else ""
            out.append(f'  "{e.src}" -> "{e.dst}"{attrs};')
        out.append("}")
        return "\n".join(out)

    def save(self, path):
        """Write the SVG to `path`."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg())

    def _repr_svg_(self):
        return self.svg()

    def _repr_html_(self):
        return (
            '<div style="display:inline-block;background:#ffffff;padding:4px;'
            f'border-radius:4px">{self.svg()}</div>'
        )

    def __repr__(self):
        titles = {n.id: n.title for n in self.nodes}
        lines = [f"<autograd graph: {len(self.nodes)} nodes, {len(self.edges)} edges>"]
        for n in self.nodes:
            lines.append(f"  [{n.kind}] {n.title}" + "".join(f" | {x}" for x in n.lines))
        for e in self.edges:
            arrow = "..saved..>" if e.kind == "saved" else "->"
            lines.append(f"  {titles[e.src]} {arrow} {titles[e.dst]}")
        return "\n".join(lines)


def graphviz_available():
    return importlib.util.find_spec("graphviz") is not None and shutil.which("dot") is not None


def _dot_label(node):
    """A Graphviz HTML-like label: bold title, left-aligned lines, alerts in red."""
    parts = [f"<B>{html.escape(node.title)}</B>"]
    for i, line in enumerate(node.lines):
        text = html.escape(line)
        parts.append(f'<FONT COLOR="{ALERT}">{text}</FONT>' if i in node.alerts else text)
    return '<BR ALIGN="LEFT"/>'.join(parts) + '<BR ALIGN="LEFT"/>'


class _SvgLayout:
    """A small layered layout: ranks by longest path, order by barycentres, then SVG."""

    def __init__(self, nodes, edges):
        self.nodes = {n.id: n for n in nodes}
        self.edges = edges
        self.preds = {k: [] for k in self.nodes}
        self.succs = {k: [] for k in self.nodes}
        for e in edges:
            self.preds[e.dst].append(e.src)
            self.succs[e.src].append(e.dst)
        self.size = {k: self._box_size(n) for k, n in self.nodes.items()}

    @staticmethod
    def _box_size(n):
        longest = max(_text_width(x) for x in [n.title, *n.lines])
        return longest + 2 * PAD_X, (1 + len(n.lines)) * LINE_H + 2 * PAD_Y

    def _topological(self):
        indegree = {k: len(v) for k, v in self.preds.items()}
        ready = [k for k in self.nodes if indegree[k] == 0]
        order = []
        while ready:
            k = ready.pop(0)
            order.append(k)
            for s in self.succs[k]:
                indegree[s] -= 1
                if indegree[s] == 0:
                    ready.append(s)
        return order

    def _ranks(self, order):
        rank = {}
        for k in order:
            rank[k] = max((rank[p] + 1 for p in self.preds[k]), default=0)
        for k in reversed(order):  # pull inputs down next to the node that uses them
            if self.succs[k]:
                rank[k] = min(rank[s] for s in self.succs[k]) - 1
        bottom = max(rank.values())
        for k in order:  # cut tensors and arrays sit beside the outputs
            if not self.preds[k] and not self.succs[k] and self.nodes[k].kind in ("cut", "array"):
                rank[k] = bottom
        return rank

    def _order(self, rank, order):
        layers = [[] for _ in range(max(rank.values()) + 1)]
        for k in order:
            layers[rank[k]].append(k)
        for _ in range(4):
            for r in range(1, len(layers)):
                self._sort_by_neighbours(layers, r, self.preds)
            for r in range(len(layers) - 2, -1, -1):
                self._sort_by_neighbours(layers, r, self.succs)
        for layer in layers:  # boxes without arrows go to the right end
            layer.sort(key=lambda k: not (self.preds[k] or self.succs[k]))
        return layers

    @staticmethod
    def _sort_by_neighbours(layers, r, neighbours):
        where = {k: (i + 0.5) / len(layer) for layer in layers for i, k in enumerate(layer)}

        def key(k):
            near = [where[n] for n in neighbours[k]]
            return sum(near) / len(near) if near else where[k]

        layers[r].sort(key=key)

    def _place(self, layers):
        x = {}
        for layer in layers:  # packed, centred later
            left = 0.0
            for k in layer:
                x[k] = left + self.size[k][0] / 2
                left += self.size[k][0] + GAP_X
        for _ in range(2):
            for layer in layers[1:]:
                self._pull(layer, x, self.preds)
            for layer in reversed(layers[:-1]):
                self._pull(layer, x, self.succs)
        lowest = min(x[k] - self.size[k][0] / 2 for k in x)
        y, top = {}, MARGIN
        for layer in layers:
            height = max(self.size[k][1] for k in layer) if layer else 0
            for k in layer:
                x[k] += MARGIN - lowest
                y[k] = top + (height - self.size[k][1]) / 2
            top += height + GAP_Y
        return x, y, top - GAP_Y + MARGIN

    def _pull(self, layer, x, neighbours):
        """Move each box towards the mean of its neighbours, keeping the order and gaps: the
        mean of a left-to-right and a right-to-left packing keeps both constraints."""
        want = {}
        for k in layer:
            near = [x[n] for n in neighbours[k]]
            want[k] = sum(near) / len(near) if near else x[k]
        from_left, edge = {}, -float("inf")
        for k in layer:
            half = self.size[k][0] / 2
            from_left[k] = max(want[k], edge + GAP_X + half)
            edge = from_left[k] + half
        from_right, edge = {}, float("inf")
        for k in reversed(layer):
            half = self.size[k][0] / 2
            from_right[k] = min(want[k], edge - GAP_X - half)
            edge = from_right[k] - half
        for k in layer:
            x[k] = (from_left[k] + from_right[k]) / 2

    def render(self):
        order = self._topological()
        rank = self._ranks(order)
        layers = self._order(rank, [k for k in self.nodes if k in rank])
        x, y, height = self._place(layers)
        width = max(x[k] + self.size[k][0] / 2 for k in x) + MARGIN
        legend_kinds = [k for k in LEGEND if any(n.kind == k for n in self.nodes.values())]
        legend_h = LINE_H * (len(legend_kinds) + 1) + PAD_Y
        total_h = height + legend_h
        legend_w = max(
            _text_width(_(LEGEND_TITLE)),
            *(_text_width(_(LEGEND[k]), indent=4) for k in legend_kinds),  # after its swatch
        )
        width = max(width, legend_w + 2 * MARGIN)
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{total_h:.0f}" viewBox="0 0 {width:.0f} {total_h:.0f}" '
            f'font-family="{FONT}" font-size="{FONT_SIZE}">',
            "<defs><marker id='arrow' viewBox='0 0 10 10' refX='10' refY='5' "
            "markerWidth='7' markerHeight='7' orient='auto-start-reverse'>"
            "<path d='M0,0 L10,5 L0,10 z' fill='#5b6470'/></marker></defs>",
            '<rect width="100%" height="100%" fill="#ffffff"/>',
        ]
        parts += self._edges_svg(x, y)
        for k, node in self.nodes.items():
            parts += self._node_svg(node, x[k] - self.size[k][0] / 2, y[k], *self.size[k])
        parts += self._legend_svg(legend_kinds, height)
        parts.append("</svg>")
        return "\n".join(parts)

    def _edges_svg(self, x, y):
        out = []
        for e in self.edges:  # arrows attach in the order of their other ends: no crossings
            outs = sorted(self.succs[e.src], key=x.get)
            ins = sorted(self.preds[e.dst], key=x.get)
            x1 = x[e.src] + _spread(outs.index(e.dst), len(outs), self.size[e.src][0])
            x2 = x[e.dst] + _spread(ins.index(e.src), len(ins), self.size[e.dst][0])
            y1 = y[e.src] + self.size[e.src][1]
            y2 = y[e.dst]
            bend = max((y2 - y1) / 2, 10)
            dash = ' stroke-dasharray="4 3"' if e.kind == "saved" else ""
            out.append(
                f'<path d="M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + bend:.1f} {x2:.1f},'
                f'{y2 - bend:.1f} {x2:.1f},{y2:.1f}" fill="none" stroke="#5b6470" '
                f'stroke-width="1.3" marker-end="url(#arrow)"{dash}/>'
            )
        return out

    @staticmethod
    def _node_svg(node, left, top, w, h):
        fill, stroke, dash = STYLES[node.kind]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        radius = 10 if node.kind in ("function", "accumulate") else 3
        stroke, width = (ALERT, 3.5) if node.marked else (stroke, 1.5)
        out = [
            f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" '
            f'rx="{radius}" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash_attr}/>',
            _text(left + PAD_X, top + PAD_Y + 11, node.title, TEXT, bold=True),
        ]
        for i, line in enumerate(node.lines):
            colour = ALERT if i in node.alerts else TEXT
            out.append(_text(left + PAD_X, top + PAD_Y + 11 + LINE_H * (i + 1), line, colour))
        return out

    @staticmethod
    def _legend_svg(kinds, top):
        out = [_text(MARGIN, top + 11, _(LEGEND_TITLE))]
        for i, kind in enumerate(kinds):
            fill, stroke, dash = STYLES[kind]
            row = top + LINE_H * (i + 1)
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(
                f'<rect x="{MARGIN}" y="{row + 2}" width="18" height="10" fill="{fill}" '
                f'stroke="{stroke}"{dash_attr}/>'
            )
            out.append(_text(MARGIN + 26, row + 11, _(LEGEND[kind])))
        return out


def _text_width(text, indent=0):
    """How wide `text` is drawn, in pixels, after `indent` blank columns: a character East
    Asian scripts write wide (Chinese, full-width punctuation) takes WIDE_W, any other CHAR_W."""
    wide = sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)
    return CHAR_W * (len(text) - wide + indent) + WIDE_W * wide


def _spread(i, n, width):
    """Horizontal offset of the i-th of n arrows leaving or entering a box."""
    if n <= 1:
        return 0.0
    span = min(width * 0.6, 24.0 * (n - 1))
    return -span / 2 + span * i / (n - 1)


def _text(x, y, content, colour=TEXT, bold=False):
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" fill="{colour}"{weight} xml:space="preserve">'
        f"{html.escape(content, quote=False)}</text>"
    )


def _version_of(t):
    """t._version, or None where the engine cannot count yet (the class edition before
    assignment 3 raises NotImplementedError naming it): the picture leaves the version out."""
    try:
        return t._version
    except NotImplementedError:
        return None
