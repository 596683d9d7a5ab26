"""The values of `linspace` and `arange`, bit for bit as PyTorch's CPU kernels compute them.

The last bits show: `linspace(-1, 1, 7)[3]` is -2.9802e-08, not 0, so the repr switches to
scientific notation. PyTorch's kernels (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp)
are built with fused multiply-adds, so each element is one rounding of `a * k + c`:

- linspace, in the output dtype (double for integer dtypes, truncated at the end):
  `start + step * i` for the first half, `end - step * (steps - 1 - i)` for the rest, with
  `step = (end - start) / (steps - 1)` and the endpoints exact;
- arange, in the accumulate type (double for float32 and float64, float for float16, int64
  for integers): `start + step * i`, except that the vectorised loop (AVX2 vectors of
  32 bytes, two at a time) computes a vector's elements as `base + k * step` from its first
  element `base`, rounded to the output dtype first.

Everything here is NumPy on the host; factories move the result to the device.
"""

import math

import numpy as np

_VECTOR_BYTES = 32  # AVX2: PyTorch runs its AVX2 kernels for these ops on AVX-512 machines too


def _two_sum(a, b):
    """s + t == a + b exactly, s = fl(a + b)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """p + e == a * b exactly, p = fl(a * b) (Dekker's product)."""
    p = a * b
    c = 134217729.0  # 2**27 + 1 splits a double into two 26-bit halves
    ah = c * a
    ah = ah - (ah - a)
    bh = c * b
    bh = bh - (bh - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma64(a, b, c):
    """a * b + c with one rounding, in float64 (double-double arithmetic)."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    p, e = _two_prod(a, b)
    s, t = _two_sum(p, c)
    return s + (t + e)


def _fma32(a, b, c):
    """a * b + c with one rounding to float32, for float32 a, c and an integer-valued b.

    a * b is exact in float64; the sum is rounded to odd in float64 (the exact error decides
    the last bit), which makes its rounding to float32 the correct one."""
    p = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
    s, t = _two_sum(p, np.asarray(c, dtype=np.float64))
    s = np.array(s, dtype=np.float64)  # a writable copy
    bits = s.view(np.int64)
    inexact_even = (t != 0) & ((bits & 1) == 0)
    away = (t > 0) == (s > 0)
    bits[inexact_even & away] += 1
    bits[inexact_even & ~away] -= 1
    return s.astype(np.float32)


def linspace_values(start, end, steps, np_dtype):
    np_dtype = np.dtype(np_dtype)
    if steps == 0:
        return np.zeros(0, dtype=np_dtype)
    i = np.arange(steps)
    first = i < steps // 2
    if np_dtype.kind in "iub":  # integer dtypes step in double from truncated endpoints
        s, e = float(np.int64(start)), float(np.int64(end))
        step = (e - s) / (steps - 1) if steps > 1 else 0.0
        lo = _fma64(step, i, s)
        hi = _fma64(-step, steps - 1 - i, e)
        out = np.trunc(np.where(first, lo, hi))
    elif np_dtype == np.float16:  # Half arithmetic: each operation rounded to half
        h = np.float16
        s, e = h(start), h(end)
        step = h(np.float32(h(np.float32(e) - np.float32(s))) / np.float32(h(max(steps - 1, 1))))
        k = np.where(first, i, steps - 1 - i).astype(np.float16).astype(np.float32)
        term = (np.float32(step) * k).astype(np.float16).astype(np.float32)
        out = np.where(first, np.float32(s) + term, np.float32(e) - term)
    else:
        f = np_dtype.type
        s, e = f(start), f(end)
        step = (e - s) / f(steps - 1) if steps > 1 else f(0)
        fma = _fma32 if np_dtype == np.float32 else _fma64
        lo = fma(step, i, s)
        hi = fma(-step, steps - 1 - i, e)
        out = np.where(first, lo, hi)
    out = out.astype(np_dtype)
    out[0] = start if np_dtype.kind == "f" else np.trunc(start)  # the endpoints are exact
    if steps > 1:
        out[-1] = end if np_dtype.kind == "f" else np.trunc(end)
    return out


def arange_size(start, end, step, np_dtype):
    """PyTorch's length: ceil((end - start) / step) in double (exactly for int64), after
    PyTorch's checks of the range."""
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")  # C++ stream format
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if np.dtype(np_dtype) == np.int64:
        s, e, d = int(start), int(end), int(step)
        sign = (d > 0) - (d < 0)
        num = e - s + d - sign
        return max(0, abs(num) // abs(d) * (1 if (num >= 0) == (d > 0) else -1))  # C's `/`
    return max(0, math.ceil((float(end) - float(start)) / float(step)))


def arange_values(start, end, step, np_dtype):
    np_dtype = np.dtype(np_dtype)
    n = arange_size(start, end, step, np_dtype)
    i = np.arange(n)
    if np_dtype.kind in "iub":  # exact integer arithmetic
        return (int(start) + int(step) * i).astype(np_dtype)
    if np_dtype == np.float16:  # the accumulate type: float for half, double otherwise
        acc, fma = np.float32, _fma32
    else:
        acc, fma = np.float64, _fma64
    s, d = acc(start), acc(step)
    out = fma(d, i, s).astype(np_dtype)
    width = _VECTOR_BYTES // np_dtype.itemsize
    vectorised = (n // (2 * width)) * 2 * width
    if vectorised:
        j = i[:vectorised]
        first = j - j % width
        base = fma(d, first, s).astype(np_dtype).astype(acc)
        out[:vectorised] = fma(d, j % width, base).astype(np_dtype)
    return out
