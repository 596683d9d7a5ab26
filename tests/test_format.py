"""minigrad._format.format_tensor against PyTorch's own repr (rule N3)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minigrad import _format

# minigrad writes its own name where PyTorch writes "torch" ("dtype=minigrad.float64"); the
# comparison sets the library name aside, as the rules' observations do (autograder/compare.py).


def format_tensor(*args, **kwargs):
    return _format.format_tensor(*args, **kwargs).replace("minigrad.", "torch.")


def format_parameter(*args, **kwargs):
    return _format.format_parameter(*args, **kwargs).replace("minigrad.", "torch.")


DTYPES = {
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}
FLOATS = ("float16", "float32", "float64")


def torch_repr(array: np.ndarray, dtype_name: str, grad: str | None = None) -> str:
    """repr of the torch tensor holding `array`: a plain tensor, a leaf requiring grad
    (grad="leaf") or a non-leaf made by `x * 1` (grad="mul")."""
    t = torch.tensor(array, dtype=DTYPES[dtype_name])
    if grad is not None:
        t.requires_grad_()
    if grad == "mul":
        t = t * 1
    return repr(t)


def ours(array: np.ndarray, dtype_name: str, grad: str | None = None) -> str:
    return format_tensor(
        array,
        dtype_name=dtype_name,
        requires_grad=grad is not None,
        grad_fn_name="MulBackward0" if grad == "mul" else None,
    )


rng = np.random.default_rng(0)

HAND_PICKED = {
    "integral floats": [1.0, 2.0, 3.0],
    "integral floats mixed widths": [5.0, 12.0, -21.0],
    "decimals mixed signs": [-0.5382, 0.588, 1.6059],
    "decimals rounding": [0.1, 0.25, 2 / 3, -1 / 3],
    "scalar": 38.0,
    "scalar decimal": -0.123456,
    "scalar tiny": 1e-7,
    "ratio above 1000": [1.0, 1001.0],
    "ratio exactly 1000": [0.001, 1.0],
    "above 1e8": [1e9],
    "integral above 1e8": [3.0, 2e8],
    "below 1e-4": [1e-5, 0.5],
    "boundary 1e-4": [1e-4, 2e-4],
    "huge and tiny": [1e-300, 1e300],
    "nan inf": [float("nan"), float("inf"), -float("inf"), 1.5],
    "nan inf integral": [float("nan"), float("inf"), 2.0],
    "only nonfinite": [float("nan"), float("inf")],
    "nan inf sci": [float("nan"), 1e-9, 3.0],
    "zeros": [0.0, 0.0],
    "negative zero": [-0.0, 1.0],
    "negative zero alone": [-0.0],
    "negative zero decimals": [-0.0, 0.5],
    "negative zero sci": [-0.0, 1e-6, 1.0],
    "long row integral": np.arange(40.0),
    "long row decimals": rng.standard_normal(30),
    "long row sci": rng.standard_normal(25) * 1e6,
    "matrix": rng.standard_normal((2, 3)),
    "wide matrix": rng.standard_normal((3, 17)),
    "tall matrix": rng.standard_normal((12, 2)),
    "matrix mixed": [[1.0, -200.0], [0.0, 3.5]],
    "3-D": rng.standard_normal((2, 3, 4)),
    "summarised vector": rng.standard_normal(1001),
    "summarised vector integral": np.arange(2000.0),
    "summarised matrix": rng.standard_normal((40, 30)),
    "summarised matrix few rows": rng.standard_normal((5, 300)),
    "summarised matrix few cols": rng.standard_normal((300, 4)),
    "summarised ends decide mode": np.r_[[1.0, 2.0, 3.0], np.full(1000, 0.5), [4.0, 5.0, 6.0]],
    "summarised 3-D": rng.standard_normal((10, 10, 11)),
    "exactly threshold": rng.standard_normal(1000),
}


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("case", list(HAND_PICKED))
def test_hand_picked_values(case, dtype_name):
    values = np.asarray(HAND_PICKED[case], dtype=np.float64)
    if dtype_name not in FLOATS:
        if not np.all(np.isfinite(values)) or np.abs(values).max(initial=0) > 2**31:
            pytest.skip("no integer form of these values")
        values = np.trunc(values)
    with np.errstate(over="ignore"):  # float16 overflows to inf, as torch's conversion does
        array = values.astype(dtype_name)
    assert ours(array, dtype_name) == torch_repr(array, dtype_name)
    if dtype_name in FLOATS:
        for grad in ("leaf", "mul"):
            assert ours(array, dtype_name, grad) == torch_repr(array, dtype_name, grad)


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4)])
def test_empty(shape, dtype_name):
    array = np.zeros(shape, dtype=dtype_name)
    assert ours(array, dtype_name) == torch_repr(array, dtype_name)


def test_empty_requires_grad():
    array = np.zeros((0, 2), dtype=np.float64)
    assert ours(array, "float64", "leaf") == torch_repr(array, "float64", "leaf")


def test_integer_and_bool_widths():
    for values in ([-5, 3, 120], [[1, -1], [100000, 0]], [2**40, -(2**40)]):
        array = np.asarray(values, dtype=np.int64)
        assert ours(array, "int64") == torch_repr(array, "int64")
    for values in ([True, False], [[True], [False]], True, np.ones(1500, dtype=bool)):
        array = np.asarray(values, dtype=bool)
        assert ours(array, "bool") == torch_repr(array, "bool")


@pytest.mark.parametrize("grad_fn", ["MulBackward0", "ToCopyBackward0"])
def test_suffix_wrapping_with_dtype_and_grad_fn(grad_fn):
    # The suffix list wraps onto a new line, aligned under "tensor(", when the last line
    # would pass 80 columns; try every row length so the break point is crossed.
    for n in range(1, 12):
        array = rng.standard_normal(n)
        leaf = torch.tensor(array, requires_grad=True)  # float64
        t = leaf * 1 if grad_fn == "MulBackward0" else leaf.float().double()
        assert type(t.grad_fn).__name__ == grad_fn
        got = format_tensor(array, dtype_name="float64", grad_fn_name=grad_fn)
        assert got == repr(t)


def test_observed_reference_texts():
    # Texts recorded from PyTorch 2.13.
    got = format_tensor(
        np.array([-0.5382, 0.5880, 1.6059]), dtype_name="float64", grad_fn_name="ToCopyBackward0"
    )
    assert got == (
        "tensor([-0.5382,  0.5880,  1.6059], dtype=torch.float64,\n"
        "       grad_fn=<ToCopyBackward0>)"
    )
    assert format_tensor(np.float32(38.0), dtype_name="float32", grad_fn_name="SumBackward0") == (
        "tensor(38., grad_fn=<SumBackward0>)"
    )


def test_parameter():
    array = rng.standard_normal((2, 3)).astype(np.float32)
    p = torch.nn.Parameter(torch.from_numpy(array.copy()))
    assert format_parameter(array, dtype_name="float32", requires_grad=True) == repr(p)
    q = torch.nn.Parameter(torch.from_numpy(array.copy()), requires_grad=False)
    assert format_parameter(array, dtype_name="float32") == repr(q)


class Wide(torch.Tensor):
    """A subclass: torch's repr opens with the class name, which moves the indentation."""


@pytest.mark.parametrize("shape", [(3, 30), (25,), (2, 2)])
def test_prefix_sets_indentation(shape):
    array = rng.standard_normal(shape)
    t = torch.Tensor._make_subclass(Wide, torch.from_numpy(array.copy()), True)
    got = format_tensor(array, dtype_name="float64", requires_grad=True, prefix="Wide(")
    assert got == repr(t)


def test_device_suffix():
    # No CUDA build here: expected texts follow torch/_tensor_str.py, where the device comes
    # first among the suffixes and reads as str(t.device).
    one_two = np.array([1.0, 2.0])
    assert format_tensor(one_two, dtype_name="float32", device="cuda:0") == (
        "tensor([1., 2.], device='cuda:0')"
    )
    assert format_tensor(one_two, dtype_name="float32", device="cuda", requires_grad=True) == (
        "tensor([1., 2.], device='cuda:0', requires_grad=True)"
    )
    assert format_tensor(
        np.array([-0.5382, 0.5880, 1.6059]),
        dtype_name="float64",
        device="cuda:0",
        grad_fn_name="ToCopyBackward0",
    ) == (
        "tensor([-0.5382,  0.5880,  1.6059], device='cuda:0', dtype=torch.float64,\n"
        "       grad_fn=<ToCopyBackward0>)"
    )
    assert format_tensor(np.zeros((0, 2)), dtype_name="int64", device="cuda:1") == (
        "tensor([], device='cuda:1', size=(0, 2), dtype=torch.int64)"
    )


def test_values_cast_to_dtype():
    assert format_tensor([1.7, 2.2], dtype_name="int32") == "tensor([1, 2], dtype=torch.int32)"
    with pytest.raises(ValueError, match="unsupported dtype"):
        format_tensor([1.0], dtype_name="complex64")


# --- generated arrays -----------------------------------------------------------------------


def scaled_floats(width: int) -> st.SearchStrategy[float]:
    """Mantissa times a power of ten, so that every formatting mode is reached often."""
    exponent_limit = {16: 3, 32: 30, 64: 200}[width]  # stays below each dtype's maximum
    return st.builds(
        lambda m, e: m * 10.0**e,
        st.floats(-10, 10, allow_nan=False),
        st.integers(-exponent_limit, exponent_limit),
    ).filter(math.isfinite)


def float_elements(width: int) -> st.SearchStrategy[float]:
    return st.one_of(
        st.floats(width=width),  # anything, nan, inf and -0. included
        st.integers(-3000, 3000).map(float),  # int mode
        scaled_floats(width),
        st.sampled_from([0.0, -0.0, 0.5, 1e-4, 1e4, float("nan"), float("inf")]),
    )


SHAPES = st.one_of(
    hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=12),
    hnp.array_shapes(min_dims=3, max_dims=3, min_side=0, max_side=4),
)


@st.composite
def arrays_with_dtype(draw):
    dtype_name = draw(st.sampled_from(list(DTYPES)))
    if dtype_name in FLOATS:
        width = int(dtype_name[-2:])
        elements = float_elements(width)
    elif dtype_name == "bool":
        elements = st.booleans()
    else:
        info = np.iinfo(dtype_name)
        elements = st.one_of(st.integers(-20, 20), st.integers(int(info.min), int(info.max)))
    array = draw(hnp.arrays(dtype_name, SHAPES, elements=elements))
    grad = draw(st.sampled_from([None, "leaf", "mul"])) if dtype_name in FLOATS else None
    return array, dtype_name, grad


@settings(max_examples=200, deadline=None)
@given(arrays_with_dtype())
def test_generated_arrays(case):
    array, dtype_name, grad = case
    assert ours(array, dtype_name, grad) == torch_repr(array, dtype_name, grad)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(FLOATS),
    st.sampled_from([(1001,), (2, 600), (40, 30), (1200, 1)]),
    st.integers(-8, 8),
    st.integers(0, 2**32 - 1),
)
def test_generated_summarised(dtype_name, shape, exponent, seed):
    values = np.random.default_rng(seed).standard_normal(shape) * 10.0**exponent
    with np.errstate(over="ignore"):  # large float16 values become inf, as in torch
        array = values.astype(dtype_name)
    assert ours(array, dtype_name) == torch_repr(array, dtype_name)
