"""minigrad.viz.draw: the graph it extracts is PyTorch's own (next_functions), and it renders."""

import ast
import html
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET

import pytest
import torch

from minigrad import viz
from minigrad.viz import draw

SVG_NS = "{http://www.w3.org/2000/svg}"


def torch_graph(*outputs):
    """Nodes and edges read straight from PyTorch: {id(node): name}, {(id(child), id(node))}."""
    names, edges, stack = {}, set(), [t.grad_fn for t in outputs]
    while stack:
        fn = stack.pop()
        if id(fn) in names:
            continue
        names[id(fn)] = type(fn).__name__
        for child, _ in fn.next_functions:
            if child is not None:
                edges.add((id(child), id(fn)))
                stack.append(child)
    return names, edges


def picture_graph(picture):
    """The same view of a Picture: its backward nodes and the arrows between them."""
    by_id = {n.id: n for n in picture.nodes}
    fns = {id(n.obj): n.title for n in picture.nodes if n.kind in ("function", "accumulate")}
    edges = {
        (id(by_id[e.src].obj), id(by_id[e.dst].obj))
        for e in picture.edges
        if by_id[e.src].kind in ("function", "accumulate")
        and by_id[e.dst].kind in ("function", "accumulate")
    }
    return fns, edges


def shown_values(line, prefix):
    """The list of numbers a picture shows after `prefix`."""
    assert line.startswith(prefix), line
    return ast.literal_eval(line[len(prefix) :])


def structure(picture):
    """Engine-independent shape of a picture: (kind, title) of nodes, titled edges."""
    titles = {n.id: n.title for n in picture.nodes}
    return (
        sorted((n.kind, n.title) for n in picture.nodes),
        sorted((titles[e.src], titles[e.dst], e.kind) for e in picture.edges),
    )


def square_of_dot(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x @ w
    z = y**2
    return x, w, y, z


def test_square_of_dot_matches_next_functions():
    x, w, y, z = square_of_dot(torch)
    picture = draw(z, names={"x": x, "w": w, "y": y})
    assert picture_graph(picture) == torch_graph(z)
    assert sorted(picture_graph(picture)[0].values()) == [
        "AccumulateGrad",
        "AccumulateGrad",
        "DotBackward0",
        "PowBackward0",
    ]


def test_leaves_hang_from_their_accumulate_grad_nodes():
    x, w, y, z = square_of_dot(torch)
    picture = draw(z, names={"x": x, "w": w})
    by_id = {n.id: n for n in picture.nodes}
    leaf_of = {
        by_id[e.dst].obj: by_id[e.src].obj
        for e in picture.edges
        if by_id[e.dst].kind == "accumulate"
    }
    assert {id(t) for t in leaf_of.values()} == {id(x), id(w)}
    for acc, leaf in leaf_of.items():
        assert acc.variable is leaf
    assert picture.node("x").kind == "leaf"
    assert "grad: None" in picture.node("x").lines


def test_output_tensor_hangs_from_its_grad_fn():
    x, w, y, z = square_of_dot(torch)
    picture = draw(z, names=["z"])
    by_id = {n.id: n for n in picture.nodes}
    z_node = picture.node("z")
    (into_z,) = [e for e in picture.edges if e.dst == z_node.id]
    assert by_id[into_z.src].obj is z.grad_fn
    assert "is_leaf=False requires_grad=True" in z_node.lines


def test_saved_tensors_are_named_with_their_versions():
    x, w, y, z = square_of_dot(torch)
    picture = draw(z, names={"x": x, "w": w, "y": y})
    assert picture.node("DotBackward0").lines == [
        "saved self: x, version 0",
        "saved tensor: w, version 0",
    ]
    assert picture.node("PowBackward0").lines == ["saved self: y, version 0"]


def test_in_place_change_of_a_saved_tensor_is_flagged_with_both_versions():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = b**2
    b.add_(1)
    b.add_(1)
    picture = draw(c, names={"b": b})
    pow_node = picture.node("PowBackward0")
    assert pow_node.lines == ["saved self: b, version 0, now 2: modified in place!"]
    assert pow_node.alerts == {0}
    with pytest.raises(RuntimeError, match="is at version 2; expected version 0"):
        c.sum().backward()


def test_saved_tensors_freed_by_backward():
    x, w, y, z = square_of_dot(torch)
    z.backward()
    picture = draw(z, names={"x": x})
    assert picture.node("PowBackward0").lines == ["saved self: freed by backward()"]
    assert shown_values(picture.node("x").lines[-1], "grad: ") == x.grad.tolist()


def test_none_slots_of_next_functions_are_drawn():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a * torch.tensor([3.0, 4.0])
    picture = draw(y)
    assert [n for n, _ in y.grad_fn.next_functions].count(None) == 1
    nones = [n for n in picture.nodes if n.kind == "none"]
    assert len(nones) == 1
    (edge,) = [e for e in picture.edges if e.src == nones[0].id]
    assert picture.node("MulBackward0").id == edge.dst


def test_rebuilt_tensor_is_drawn_as_a_cut():
    a = torch.nn.Parameter(torch.tensor([0.5, 1.5]))
    parts = [a[0] * 2, a[1] ** 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's warning for tensor(parts) is not the subject
        cut = torch.tensor(parts)
    kept = torch.stack(parts)
    picture = draw(cut, kept, names=["cut", "kept"])
    assert picture.node("cut").kind == "cut"
    assert picture.node("cut").lines[0].startswith("graph cut here")
    assert not any(
        e.src == picture.node("cut").id or e.dst == picture.node("cut").id for e in picture.edges
    )
    assert picture.node("kept").kind == "tensor"
    assert picture.node("Parameter float32[2]").kind == "leaf"


def test_a_saved_input_without_grad_is_a_cut_linked_to_its_node():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    y = a * b
    picture = draw(y, b, names=["y", "b"])
    assert y.grad_fn._saved_other is b
    assert picture.node("b").kind == "cut"
    (edge,) = [e for e in picture.edges if e.src == picture.node("b").id]
    assert (edge.kind, edge.dst) == ("saved", picture.node("MulBackward0").id)
    # b is what MulBackward0's None slot stands for: it takes the slot's place
    assert [n for n, _ in y.grad_fn.next_functions].count(None) == 1
    assert not [n for n in picture.nodes if n.kind == "none"]


def test_plain_tensor_alone_is_not_a_cut():
    picture = draw(torch.ones(2), names=["t"])
    assert picture.node("t").kind == "tensor"


def test_numpy_array_is_drawn_apart():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    arr = t.detach().numpy()
    picture = draw(t, arr, names=["t", "arr"])
    assert picture.node("arr").kind == "array"
    assert picture.node("arr").title == "arr: ndarray float32[2]"
    assert picture.edges == []
    assert picture.node("arr").obj is arr and not picture.node("arr").marked
    assert 'stroke-width="3.5"' not in picture.svg()  # nothing marked, and it draws


def test_non_leaf_grad_is_read_only_when_retained():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    kept = y * 1
    kept.retain_grad()
    (kept * y).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading y.grad would warn
        picture = draw(kept, y, names=["kept", "y"])
    grad_line = picture.node("kept").lines[-1]
    assert shown_values(grad_line, "grad (retain_grad): ") == kept.grad.tolist()
    assert not any(line.startswith("grad") for line in picture.node("y").lines)


def test_svg_is_well_formed_and_boxes_do_not_overlap():
    a = torch.nn.Parameter(torch.tensor([0.5, 1.5, 2.0]))
    parts = [a[0] * 2, torch.log(a[1] + 1), a[2] ** 2]
    picture = draw(torch.stack(parts).sum(), names=["loss"])
    root = ET.fromstring(picture.svg())
    assert root.tag == SVG_NS + "svg"
    boxes = [r for r in root.iter(SVG_NS + "rect") if r.get("stroke-width") == "1.5"]
    assert len(boxes) == len(picture.nodes)
    rects = [tuple(float(r.get(k)) for k in ("x", "y", "width", "height")) for r in boxes]
    for i, (x1, y1, w1, h1) in enumerate(rects):
        for x2, y2, w2, h2 in rects[i + 1 :]:
            apart = x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
            assert apart, "two boxes overlap"
    texts = "".join(t.text or "" for t in root.iter(SVG_NS + "text"))
    for name in ("SumBackward0", "StackBackward0", "LogBackward0", "AccumulateGrad"):
        assert name in texts


def test_html_has_white_background_and_the_svg():
    x, w, y, z = square_of_dot(torch)
    picture = draw(z)
    page = picture._repr_html_()
    assert "background:#ffffff" in page
    assert "<svg" in page and "PowBackward0" in page
    assert picture._repr_svg_().startswith("<svg") or picture._repr_svg_().startswith("<?xml")


def test_dot_source_names_every_node_and_edge():
    x, w, y, z = square_of_dot(torch)
    picture = draw(z, names={"x": x})
    dot = picture.to_dot()
    assert dot.startswith("digraph")
    for n in picture.nodes:
        assert f'"{n.id}" [label=<<B>{html.escape(n.title)}</B>' in dot
    for e in picture.edges:
        assert f'"{e.src}" -> "{e.dst}"' in dot


@pytest.mark.skipif(not viz.graphviz_available(), reason="graphviz package or dot not installed")
def test_graphviz_layout_when_installed():
    x, w, y, z = square_of_dot(torch)
    root = ET.fromstring(draw(z, layout="dot").svg())
    assert root.tag == SVG_NS + "svg"


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one tensor"):
        draw()
    with pytest.raises(ValueError, match="names has 1 entries for 2 tensors"):
        draw(torch.ones(1), torch.ones(1), names=["a"])
    with pytest.raises(ValueError, match="layout"):
        draw(torch.ones(1), layout="neato")


def test_importing_viz_does_not_import_torch():
    code = "import sys, minigrad.viz; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def minigrad_or_skip():
    try:
        import minigrad

        minigrad.tensor([1.0]).sum()
    except Exception as err:  # any failure means the engine is not there yet
        pytest.skip(f"minigrad is not usable yet: {err!r}")
    return minigrad


def test_minigrad_picture_has_the_same_structure_as_torch():
    minigrad = minigrad_or_skip()
    pictures = []
    for T in (torch, minigrad):
        x, w, y, z = square_of_dot(T)
        pictures.append(draw(z, names={"x": x, "w": w, "y": y, "z": z}))
    assert structure(pictures[1]) == structure(pictures[0])
    for picture in pictures:
        assert picture.node("DotBackward0").lines == [
            "saved self: x, version 0",
            "saved tensor: w, version 0",
        ]


def test_minigrad_stale_saved_tensor_is_flagged():
    minigrad = minigrad_or_skip()
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = b**2
    b.add_(1)
    picture = draw(c, names={"b": b})
    assert picture.node("PowBackward0").lines == [
        "saved self: b, version 0, now 1: modified in place!"
    ]


def test_minigrad_cut_and_stack():
    minigrad = minigrad_or_skip()
    pictures = []
    for T in (torch, minigrad):
        a = T.nn.Parameter(T.tensor([0.5, 1.5]))
        parts = [a[0] * 2, a[1] ** 2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cut = T.tensor(parts)
        pictures.append(draw(cut, T.stack(parts), names=["cut", "kept"]))
    assert structure(pictures[1]) == structure(pictures[0])
