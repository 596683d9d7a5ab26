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


# -- the picture's words in the lecture's language (issue 35) ------------------------------

LEGEND_ZH = {  # what a Chinese lecture's legend says, as the glossary renders its terms
    "leaf": "需要梯度的叶子节点",
    "tensor": "张量",
    "function": "反向节点（grad_fn）",
    "accumulate": "AccumulateGrad（填入叶子节点的 .grad）",
    "cut": "计算图在此切断：backward() 到此为止",
    "array": "NumPy 数组：没有计算图",
}


def stale_saved_and_cut(language=None):
    """One graph with a saved tensor modified in place, a cut input and a NumPy array."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.sigmoid()
    c = b * 3
    b.mul_(2)
    k = torch.tensor([3.0, 4.0])
    y = c * k
    arr = a.detach().numpy()
    return draw(y, k, arr, names={"a": a, "b": b, "y": y, "k": k, "arr": arr}, language=language)


def svg_texts(svg):
    return [t.text or "" for t in ET.fromstring(svg).iter(SVG_NS + "text")]


def chinese_lecture_folder(folder):
    """A folder holding a lecture made in Chinese, as `minigrad-course start --lang zh-CN`."""
    import nbformat

    from coursekit.languages import in_language

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("A leaf.")])
    nbformat.write(in_language(nb, "zh-CN"), str(folder / "01_lecture.ipynb"))
    return folder


def test_a_chinese_picture_says_its_words_in_chinese_and_names_nodes_as_pytorch(monkeypatch):
    monkeypatch.delenv("MINIGRAD_COURSE_LANG", raising=False)
    en, zh = stale_saved_and_cut("en"), stale_saved_and_cut("zh-CN")
    assert structure(zh) == structure(en)  # same boxes, titles (grad_fn names) and arrows
    assert zh.node("SigmoidBackward0").lines == [
        "保存的 result：float32[2]，版本 0，现为 1：已被原地修改！"
    ]
    assert en.node("SigmoidBackward0").lines == [
        "saved result: float32[2], version 0, now 1: modified in place!"
    ]
    assert zh.node("k").lines[0] == "计算图在此切断：没有 grad_fn，requires_grad=False"
    assert zh.node("arr").lines[0] == "NumPy 数组：没有计算图"
    # what PyTorch names stays as it writes it: flags, values, grad
    for name in ("a", "y", "k"):
        words = 1 if name == "k" else 0
        assert zh.node(name).lines[words:] == en.node(name).lines[words:]
    texts = svg_texts(zh.svg())
    for kind, words in LEGEND_ZH.items():
        assert words in texts and viz.LEGEND[kind] not in texts
    assert "箭头：前向的数据流向；backward() 沿箭头反向而行" in texts
    assert 'label="保存"' in zh.to_dot()
    assert all(name in "".join(texts) for name in ("MulBackward0", "SigmoidBackward0"))


def test_the_english_picture_keeps_its_words(monkeypatch):
    monkeypatch.delenv("MINIGRAD_COURSE_LANG", raising=False)
    picture = stale_saved_and_cut()  # the tests' folder holds no notebook: English
    assert picture.language == "en"
    assert picture.node("k").lines[0] == "graph cut here: no grad_fn, requires_grad=False"
    texts = svg_texts(picture.svg())
    for kind in LEGEND_ZH:
        assert viz.LEGEND[kind] in texts
    assert "arrows: forward flow; backward() walks them in reverse" in texts
    assert 'label="saved"' in picture.to_dot()


def test_a_lecture_kernel_draws_in_its_folders_language(tmp_path, monkeypatch):
    monkeypatch.delenv("MINIGRAD_COURSE_LANG", raising=False)
    monkeypatch.chdir(chinese_lecture_folder(tmp_path))
    picture = stale_saved_and_cut()
    assert picture.language == "zh-CN"
    assert picture.node("k").lines[0].startswith("计算图在此切断")
    assert stale_saved_and_cut("en").node("k").lines[0].startswith("graph cut here")  # override
    with pytest.raises(ValueError, match="language must be one of 'en', 'zh-CN' or None, not 'fr'"):
        stale_saved_and_cut("fr")


def test_a_picture_made_from_nodes_speaks_the_language_it_is_drawn_in(monkeypatch):
    """The feedback's pictures (graph_diff) are built from nodes: their legend follows the
    language spoken where they are drawn (the class's, the lecture's)."""
    from coursekit.i18n import speaking

    monkeypatch.delenv("MINIGRAD_COURSE_LANG", raising=False)
    picture = viz.Picture([viz.Node("n0", "leaf", "float32[2]")], [])
    with speaking("zh-CN"):
        assert LEGEND_ZH["leaf"] in svg_texts(picture.svg())
    assert viz.LEGEND["leaf"] in svg_texts(picture.svg())


@pytest.fixture(scope="module")
def monospace_advance():
    """The advance of a 12 px glyph of DejaVu Sans Mono (the picture's first font), read from
    the font itself (matplotlib ships it)."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    font = FT2Font(font_manager.findfont("DejaVu Sans Mono", fallback_to_default=False))
    font.set_size(viz.FONT_SIZE, 72)  # 72 dpi: points are pixels
    return font.load_char(ord("M")).linearHoriAdvance / 65536  # 16.16 fixed point


def drawn_width(text, advance):
    """How wide a browser draws `text`: a monospace advance per character, one em (the font
    size) for a character a CJK font draws (Chinese, full-width punctuation)."""
    import unicodedata

    wide = [unicodedata.east_asian_width(ch) in "WF" for ch in text]
    return sum(viz.FONT_SIZE if w else advance for w in wide)


def texts_outside_their_boxes(svg, advance):
    """Each text whose drawn right edge passes its box's (or, outside boxes, the picture's)."""
    root = ET.fromstring(svg)
    boxes = [
        tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
        for r in root.iter(SVG_NS + "rect")
        if r.get("stroke-width")
    ]
    outside = []
    for t in root.iter(SVG_NS + "text"):
        x, y = float(t.get("x")), float(t.get("y"))
        inside = [b for b in boxes if b[0] <= x <= b[0] + b[2] and b[1] <= y <= b[1] + b[3]]
        right = inside[0][0] + inside[0][2] if inside else float(root.get("width"))
        if x + drawn_width(t.text, advance) > right:
            outside.append(t.text)
    return outside


def test_boxes_and_legend_are_wide_enough_for_chinese_words(monospace_advance):
    assert 7.0 < monospace_advance < viz.CHAR_W  # DejaVu Sans Mono: 0.6 em
    zh = stale_saved_and_cut("zh-CN")
    zh.nodes[0].title = "损失函数的输出张量: float32[2]"  # a label written in Chinese
    for picture in (zh, stale_saved_and_cut("en")):
        assert texts_outside_their_boxes(picture.svg(), monospace_advance) == []


def test_minigrad_alone_draws_in_english(tmp_path, monkeypatch):
    """Without the course's catalogue (a sealed run stages minigrad without it), the words
    are English, whatever the folder or `language` asks."""
    monkeypatch.chdir(chinese_lecture_folder(tmp_path))
    monkeypatch.setitem(sys.modules, "autograder", None)  # `import autograder` fails
    viz._words.cache_clear()
    try:
        for language in (None, "zh-CN"):
            picture = stale_saved_and_cut(language)
            assert picture.language == "en"
            assert picture.node("k").lines[0].startswith("graph cut here")
            assert viz.LEGEND["leaf"] in svg_texts(picture.svg())
    finally:
        viz._words.cache_clear()  # the next draw finds the catalogue again
