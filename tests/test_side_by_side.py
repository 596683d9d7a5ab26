"""autograder.side_by_side: PyTorch and an engine in two columns; disagreement raises."""

import types
import xml.etree.ElementTree as ET

import pytest
import torch

from autograder.side_by_side import compare_engines, show, side_by_side


class TorchStandIn(types.ModuleType):
    """An engine that is PyTorch under another name (so fns can tell the engines apart)."""

    def __getattr__(self, name):
        return getattr(torch, name)


STAND_IN = TorchStandIn("standin")


def leaf_and_product(T, record, rng):
    a = T.tensor(rng.uniform(-2, 2, size=3).tolist(), requires_grad=True)
    record.tensor("a", a)
    b = record.call("b = a * 2", lambda: a * 2)
    record.grad("b.grad (non-leaf)", b)
    b.sum().backward()
    record.grad("a.grad", a)


def doubles_on_other_engines(T, record, rng):
    a = T.tensor([1.0, 2.0], requires_grad=True)
    factor = 2.0 if T.__name__ == "torch" else 3.0
    record.call("a * factor", lambda: a * factor)
    record.value("is torch", T.__name__ == "torch")


def raises_on_other_engines(T, record, rng):
    a = T.tensor([1.0, 2.0])

    def numpy_of_a():
        if T.__name__ != "torch":
            raise RuntimeError("not here")
        return a.numpy()

    record.call("a.numpy()", numpy_of_a)


def test_agreeing_function_passes_and_lists_every_observation(capsys):
    side_by_side(leaf_and_product, engine=STAND_IN)
    printed = capsys.readouterr().out
    assert "all 4 observations agree" in printed
    rows = compare_engines(leaf_and_product, engine=STAND_IN).rows()
    assert [r[0] for r in rows] == ["a", "b = a * 2", "b.grad (non-leaf)", "a.grad"]
    for label, left, right, diffs in rows:
        assert left == right and not diffs
        assert f"= {label}" in printed
    grad_cell = rows[2][1]
    assert grad_cell.startswith("None\nwarns UserWarning: The .grad attribute of a Tensor")


def test_diverging_function_raises_naming_each_difference(capsys):
    with pytest.raises(AssertionError) as err:
        side_by_side(doubles_on_other_engines, engine=STAND_IN)
    message = str(err.value)
    assert "difference(s) in 2 observation(s)" in message  # how many per row is compare's call
    assert "a * factor: values" in message
    assert "is torch: value: PyTorch True; your engine False" in message
    assert "≠" in capsys.readouterr().out  # the table was shown before raising


def test_exception_on_one_side_only_is_a_difference():
    comparison = compare_engines(raises_on_other_engines, engine=STAND_IN)
    (diff,) = comparison.differences
    assert diff["field"] == "outcome"
    (row,) = comparison.rows()
    assert row[1] == "ndarray(dtype=float32, shape=[2], values=[1.0, 2.0])"
    assert row[2] == "raised RuntimeError: not here"


def test_same_seed_gives_both_engines_the_same_values():
    comparison = compare_engines(leaf_and_product, seed=7, engine=STAND_IN)
    assert comparison.agree
    other = compare_engines(leaf_and_product, seed=8, engine=STAND_IN)
    assert comparison.rows()[0][1] != other.rows()[0][1]


def test_html_table_has_both_columns_and_marks_differences():
    comparison = compare_engines(doubles_on_other_engines, engine=STAND_IN)
    page = comparison._repr_html_()
    root = ET.fromstring(page)  # well-formed
    headers = [th.text for th in root.iter("th")]
    assert headers[1:] == ["PyTorch", "standin"]
    flagged = [tr for tr in root.iter("tr") if "#fdecea" in (tr.get("style") or "")]
    assert len(flagged) == 2


def test_show_puts_objects_in_columns():
    from minigrad.viz import draw

    a = torch.tensor([1.0], requires_grad=True)
    page = show({"picture": draw(a * 2), "number": 42})._repr_html_()
    assert "<svg" in page and "42" in page
    assert "== number ==\n42" in repr(show([("number", 42)]))


def test_minigrad_agrees_on_a_simple_function():
    try:
        import minigrad

        minigrad.tensor([1.0]).sum()
    except Exception as err:  # any failure means the engine is not there yet
        pytest.skip(f"minigrad is not usable yet: {err!r}")
    assert compare_engines(leaf_and_product).agree


def words_it_otherwise(T, record, rng):
    def refuse():
        said = "in PyTorch's words" if T.__name__ == "torch" else "in other words"
        raise RuntimeError(f"refused, {said}")

    record.call("refuse()", refuse)


def test_another_releases_wording_is_said_in_a_line_and_behaviour_still_raises(monkeypatch, capsys):
    """minigrad copies PyTorch 2.13's texts: with another release (a GPU machine's), a lecture
    goes on past a difference in wording alone, and stops at any other."""
    with pytest.raises(AssertionError):
        side_by_side(words_it_otherwise, engine=STAND_IN)
    monkeypatch.setattr(torch, "__version__", "2.11.0+cu128")
    side_by_side(words_it_otherwise, engine=STAND_IN)
    assert "worded differently by PyTorch 2.11.0+cu128" in capsys.readouterr().out
    for differs_in_behaviour in (doubles_on_other_engines, raises_on_other_engines):
        with pytest.raises(AssertionError):
            side_by_side(differs_in_behaviour, engine=STAND_IN)
