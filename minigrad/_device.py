"""Devices and the one array-module lookup: every op asks `xp(device)` for NumPy or CuPy.

"cpu" is NumPy. "cuda" is CuPy when CuPy sees a GPU. Tests can enable a stand-in "cuda"
backed by NumPy or by a strict CuPy look-alike (`standin_cuda()`), so the device logic
(copies, leaves, mismatch errors, `numpy()` refusing) and the CUDA path's use of CuPy are
exercised on machines without a GPU; nothing else enables it.
"""

import contextlib
import re

import numpy as np

from . import _messages as msg
from ._cnames import CName

_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")
_standin = None  # the array module of the stand-in "cuda", while tests enable one
_cupy = None
_cupy_checked = False


class device(metaclass=CName):
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - PyTorch's argument name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):  # an accelerator's index
            if not cuda_is_available():
                raise RuntimeError(msg.NO_ACCELERATOR)
            type, index = "cuda", type
        elif isinstance(type, str):
            # PyTorch's grammar: a type name, then optionally ":" and an index without a sign
            # or leading zeros; anything else is not a device string at all
            parsed = _DEVICE_STRING.fullmatch(type)
            if parsed is None:
                raise RuntimeError(msg.INVALID_DEVICE_STRING.format(type))
            type, written = parsed.groups()
            if written is not None:
                index = int(written)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(msg.UNKNOWN_DEVICE_TYPE.format(type))
        if index is not None and index < 0:
            raise RuntimeError(msg.NEGATIVE_DEVICE_INDEX)
        self.type = type
        self.index = index

    def __eq__(self, other):
        # A device never equals a string in PyTorch: x.device == "cpu" is False.
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")
CUDA0 = device("cuda", 0)


def _load_cupy():
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0:
                _cupy = cupy
        except Exception:  # no CuPy, no driver, or no GPU: CUDA is simply unavailable
            _cupy = None
    return _cupy


def cuda_is_available():
    return _standin is not None or _load_cupy() is not None


def canonical(dev):
    """The tensor-side device for a user's `device=` argument (cuda means cuda:0)."""
    if dev is None:
        return CPU
    d = device(dev) if not isinstance(dev, device) else dev
    if d.type == "cpu":
        return CPU
    if not cuda_is_available():
        raise AssertionError(
            "minigrad has no CUDA device here: "
            + ("CuPy sees no GPU" if _cupy_checked else "CuPy is not installed or sees no GPU")
            + " (PyTorch's CPU build says: Torch not compiled with CUDA enabled)"
        )
    return CUDA0 if d.index in (None, 0) else d


def xp(dev):
    """The array module (NumPy or CuPy) that holds tensors on `dev`."""
    if dev.type == "cpu":
        return np
    return _load_cupy() if _standin is None else _standin


def to_device_array(arr, dev):
    """Copy an array of either module onto `dev`'s module."""
    mod = xp(dev)
    if mod is np:
        return arr.get() if hasattr(arr, "get") and not isinstance(arr, np.ndarray) else arr
    return mod.asarray(arr)


@contextlib.contextmanager
def standin_cuda(module=np):
    """Tests only: pretend "cuda" exists, its arrays held by `module`: NumPy, or a module that
    behaves like CuPy (tests/cupy_standin.py)."""
    global _standin
    previous = _standin
    _standin = module
    try:
        yield
    finally:
        _standin = previous
