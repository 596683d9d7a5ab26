"""PyTorch 2.13's ``repr(tensor)``, re-implemented on NumPy.

The algorithm follows ``torch/_tensor_str.py`` with PyTorch's default print options
(precision 4, threshold 1000, edgeitems 3, linewidth 80) for dense float16/float32/float64,
int32/int64 and bool tensors of any number of dimensions:

* one formatter is chosen for the whole tensor (for a summarised tensor: from the elements
  that are shown) and pads every element to the same width;
* a float tensor prints in "int mode" (``2.``) when every finite non-zero value is integral,
  in scientific notation when those values span more than a factor 1000 or leave
  [1e-4, 1e8], otherwise with four decimals; nan, inf and zeros do not take part in the choice;
* rows wrap at 80 columns, tensors of more than 1000 elements show three items at each end
  of every dimension around ``...``;
* suffixes (``device=``, ``size=``, ``dtype=``, ``grad_fn=`` or ``requires_grad=True``) follow
  the closing bracket and wrap onto a new line, indented under the prefix, when too long.

Values are formatted through Python floats, exactly as PyTorch does (``item()``/``tolist()``
convert to double), so the decimal rounding is the same.
"""

from __future__ import annotations

import numpy as np

from ._messages import LIB

PRECISION = 4
THRESHOLD = 1000  # more elements than this are summarised
EDGEITEMS = 3  # items kept at each end of a summarised dimension
LINEWIDTH = 80

_NUMPY_DTYPES = {
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "int32": np.int32,
    "int64": np.int64,
    "bool": np.bool_,
    "uint8": np.uint8,
}
# Dtypes a non-empty tensor's repr leaves unnamed. An empty tensor names every dtype but
# float32, since there are no elements to tell an integer tensor from a float one.
_UNNAMED_DTYPES = {"float32", "int64", "bool"}


class _Formatter:
    """Picks one style and width for every element of a tensor (torch's ``_Formatter``)."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1

        flat = values.reshape(-1)
        if not self.floating:
            self.width = max([self.width] + [len(str(v)) for v in flat.tolist()])
            return

        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        # The mode is decided in double precision, as torch does (a float32 1e-4 is below the
        # double 1e-4 and so selects scientific notation).
        magnitudes = np.abs(shown).astype(np.float64)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        with np.errstate(over="ignore"):  # 1e300 / 1e-300 is inf, which torch also compares
            ratio = largest / smallest
        self.sci_mode = bool(ratio > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)

        numbers = shown.tolist()
        if self.sci_mode:
            widths = [len(f"{v:.{PRECISION}e}") for v in numbers]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in numbers]  # + 1 for the trailing "."
        else:
            widths = [len(f"{v:.{PRECISION}f}") for v in numbers]
        self.width = max([self.width] + widths)

    def format(self, value: float | int | bool) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if np.isfinite(value):
                text += "."  # marks the tensor as floating point: "2." not "2"
        else:
            text = f"{value:.{PRECISION}f}"
        return text.rjust(self.width)


def _shown_part(values: np.ndarray) -> np.ndarray:
    """The elements a summarised tensor displays: EDGEITEMS at each end of every dimension."""
    index = []
    for size in values.shape:
        if size > 2 * EDGEITEMS:
            index.append(np.r_[0:EDGEITEMS, size - EDGEITEMS : size])
        else:
            index.append(np.arange(size))
    return values[np.ix_(*index)]


def _vector_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.width + 2  # the element plus ", "
    per_line = max(1, (LINEWIDTH - indent) // element_length)
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        head, tail = values[:EDGEITEMS].tolist(), values[-EDGEITEMS:].tolist()
        items = [fmt.format(v) for v in head] + [" ..."] + [fmt.format(v) for v in tail]
    else:
        items = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector_str(values, indent, summarize, fmt)
    rows = values.shape[0]
    if summarize and rows > 2 * EDGEITEMS:
        head = [_nested_str(values[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
        tail = [
            _nested_str(values[i], indent + 1, summarize, fmt)
            for i in range(rows - EDGEITEMS, rows)
        ]
        parts = head + ["..."] + tail
    else:
        parts = [_nested_str(values[i], indent + 1, summarize, fmt) for i in range(rows)]
    # Blocks of a 3-D tensor are separated by a blank line, of 4-D by two, ...
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    # torch measures the last line two characters too long (len - rfind("\n") + 1) before the
    # first wrap and exactly after it; copied as is, since it decides where lines break.
    last_line_len = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        # Lines break where PyTorch's would: measure as if the library were named "torch".
        measured = len(suffix.replace(f"{LIB}.", "torch."))
        if last_line_len + measured + 2 > LINEWIDTH:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + measured
        else:
            pieces.append(", " + suffix)
            last_line_len += measured + 2
    pieces.append(")")
    return "".join(pieces)


def format_tensor(
    values: np.ndarray,
    *,
    dtype_name: str,
    device: str = "cpu",
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
) -> str:
    """The text PyTorch's ``repr`` gives a dense tensor holding ``values``.

    ``values`` is a host (NumPy) array; it is cast to ``dtype_name`` ("float16", "float32",
    "float64", "int32", "int64" or "bool") first. ``device`` is the tensor's device as
    ``str(t.device)`` gives it ("cpu", "cuda:0"; a bare "cuda" means "cuda:0").
    ``grad_fn_name`` (e.g. "MulBackward0") wins over ``requires_grad``, as in PyTorch, where
    only leaves show ``requires_grad=True``. ``prefix`` sets the opening text and with it the
    indentation of wrapped lines.
    """
    if dtype_name not in _NUMPY_DTYPES:
        raise ValueError(f"unsupported dtype {dtype_name!r}; expected one of {list(_NUMPY_DTYPES)}")
    values = np.asarray(values).astype(_NUMPY_DTYPES[dtype_name], copy=False)
    indent = len(prefix)

    suffixes = []
    if device != "cpu":
        suffixes.append(f"device='{'cuda:0' if device == 'cuda' else device}'")
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype_name != "float32":
            suffixes.append(f"dtype={LIB}.{dtype_name}")
        body = "[]"
    else:
        if dtype_name not in _UNNAMED_DTYPES:
            suffixes.append(f"dtype={LIB}.{dtype_name}")
        summarize = values.size > THRESHOLD
        fmt = _Formatter(_shown_part(values) if summarize else values)
        body = _nested_str(values, indent, summarize, fmt)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def format_parameter(values: np.ndarray, **kwargs) -> str:
    """``repr`` of an ``nn.Parameter``: a header line, then the tensor's repr unchanged."""
    return "Parameter containing:\n" + format_tensor(values, **kwargs)
