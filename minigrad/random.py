"""The global random stream, as PyTorch's CPU generator: the same numbers, bit for bit.

PyTorch's CPU generator is an MT19937 seeded as `init_genrand(seed & 0xffffffff)` (the
seeding of NumPy's legacy `RandomState(seed)` for 32-bit seeds); NumPy's MT19937 bit
generator, given that state, produces the same 32-bit stream, vectorised. On it this
module rebuilds PyTorch's transforms (ATen/core/TransformationHelper.h,
DistributionsHelper.h, native/cpu/DistributionTemplates.h, avx_mathfun.h):

- a float32 uniform takes the low 24 bits of one 32-bit draw times 2^-24; a float64 uniform
  the low 53 bits of a 64-bit draw made of two 32-bit ones, the first as the high half;
  `x * (to - from) + from` is one fused multiply-add in the tensor's dtype;
- `normal_` of fewer than 16 elements (or a non-contiguous tensor) draws pairs of float64
  uniforms (Box-Muller with log1p, glibc's functions), returns the cosine and keeps the sine
  for the next element, across calls, until `manual_seed` clears it;
- `normal_` of 16 elements or more first draws one uniform per element, transforms blocks of
  16 (8 pairs) and redraws the last 16 when the size is not a multiple of 16; float32 uses
  avx_mathfun's log/sincos with the FMAs GCC contracts (the AVX2/AVX512 builds of PyTorch,
  not its no-AVX build), float64 glibc's log/cos/sin;
- `randint` is `draw % range + low` (a 64-bit draw when range >= 2^28); `randperm` swaps as
  PyTorch's Fisher-Yates with `draw % (n - i)`.

CUDA tensors keep the former behaviour: PyTorch's distributions, shapes and dtypes from a
separate NumPy stream (seeded by `manual_seed` too, drawing from it does not move the CPU
stream), not the values of PyTorch's Philox generator.
"""

import math
import os

import numpy as np

_MASK64 = (1 << 64) - 1


class Generator:
    """What `manual_seed` returns (PyTorch returns its default generator)."""

    # A notebook cell ending in manual_seed(0) shows <torch._C.Generator object at 0x...>
    __module__ = "minigrad._C"

    def __init__(self, seed):
        self._seed = seed

    def initial_seed(self):
        return self._seed


def _mt_key(seed):
    """init_genrand: MT19937's state for a 32-bit seed (PyTorch's mt19937::init_with_uint32)."""
    key = [seed & 0xFFFFFFFF]
    for j in range(1, 624):
        p = key[-1]
        key.append((1812433253 * (p ^ (p >> 30)) + j) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class _CPUStream:
    """PyTorch's CPUGeneratorImpl: the MT19937 engine and the cached float64 normal."""

    def __init__(self, seed):
        self.seed = seed & _MASK64
        self.bits = np.random.MT19937()
        state = {"key": _mt_key(self.seed), "pos": 624}
        self.bits.state = {"bit_generator": "MT19937", "state": state}
        self.next_normal = None  # next_double_normal_sample_

    def draws32(self, n):
        """n 32-bit draws (random()), as uint64."""
        return self.bits.random_raw(n) if n else np.zeros(0, dtype=np.uint64)

    def draws64(self, n):
        """n 64-bit draws (random64()): two 32-bit draws each, the first the high half."""
        raw = self.draws32(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    def uniform01(self, n, np_dtype):
        """uniform_real_distribution(0, 1) in float32 or float64 (np_dtype)."""
        if np_dtype == np.float64:
            return (self.draws64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53
        return (self.draws32(n) & np.uint64(0xFFFFFF)).astype(np.float32) * np.float32(2**-24)


_cpu = _CPUStream(int.from_bytes(os.urandom(8), "little"))
_cuda = np.random.default_rng()


def manual_seed(seed):
    global _cpu, _cuda
    seed = int(seed)
    _cpu = _CPUStream(seed)
    _cuda = np.random.default_rng(seed & _MASK64)
    return Generator(seed & _MASK64)


def initial_seed():
    return _cpu.seed


def generator():
    """The NumPy stream for CUDA tensors (distributions only)."""
    return _cuda


# -- exact fused multiply-add, vectorised ---------------------------------------------------


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _to_odd(v, err):
    """Round-to-odd of the exact v + err (v the rounded sum): nudge an even v toward err."""
    even = (v.view(np.int64) & 1) == 0
    nudge = even & (err != 0)
    if nudge.any():
        v = np.where(nudge, np.nextafter(v, np.where(err > 0, np.inf, -np.inf)), v)
    return v


def fma32(a, b, c):
    """fmaf(a, b, c) on float32 arrays/scalars, correctly rounded: a*b is exact in float64,
    the sum is rounded to odd in float64, then to float32 (no double rounding)."""
    a, b, c = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    s, err = _two_sum(a * b, c)
    return _to_odd(np.asarray(s), np.asarray(err)).astype(np.float32)


def _split(x):
    big = x * 134217729.0  # Veltkamp: 2^27 + 1
    hi = big - (big - x)
    return hi, x - hi


def fma64(a, b, c):
    """fma(a, b, c) on float64, correctly rounded (Boldo-Melquiond: exact product and sum,
    the low parts added with rounding to odd)."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    a, b, c = np.broadcast_arrays(a, b, c)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    th, tl = _two_sum(c, p)
    v, w = _two_sum(tl, e)
    return th + _to_odd(np.asarray(v), np.asarray(w))


# -- PyTorch's CPU distributions --------------------------------------------------------------


def uniform(n, np_dtype, low=0.0, high=1.0):
    """uniform_(low, high) of n elements in storage order (float16 computes in float32)."""
    np_dtype = np.dtype(np_dtype).type
    wide = np.float64 if np_dtype == np.float64 else np.float32
    x = _cpu.uniform01(n, wide)
    frm, to = wide(low), wide(high)
    if frm == 0.0 and to == 1.0:
        out = x
    else:
        out = (fma64 if wide == np.float64 else fma32)(x, to - frm, frm)
    out = out.astype(np_dtype)
    to_s, frm_s = np_dtype(high), np_dtype(low)
    return np.where(out == to_s, frm_s, out).astype(np_dtype)  # rounded up to `to`


def _serial_normal(n):
    """n standard normals from normal_distribution<double>, with the cached sine."""
    out = []
    if n and _cpu.next_normal is not None:
        out.append(_cpu.next_normal)
        _cpu.next_normal = None
    pairs = (n - len(out) + 1) // 2
    if pairs:
        u = _cpu.uniform01(2 * pairs, np.float64).tolist()
        for u1, u2 in zip(u[0::2], u[1::2]):
            r = math.sqrt(-2.0 * math.log1p(-u2))
            theta = 2.0 * math.pi * u1
            out.append(r * math.cos(theta))
            out.append(r * math.sin(theta))
        if len(out) > n:
            _cpu.next_normal = out.pop()
    return np.array(out, dtype=np.float64)


_F = np.float32


def _log256(x):
    """avx_mathfun's log256_ps, with GCC's contractions into FMA."""
    x = np.maximum(x, np.array(0x00800000, np.int32).view(np.float32))
    bits = x.view(np.int32)
    e = ((bits.view(np.uint32) >> 23).astype(np.int32) - 0x7F).astype(np.float32) + _F(1)
    x = ((bits & ~0x7F800000) | np.array(0.5, np.float32).view(np.int32)).view(np.float32)
    small = x < _F(0.707106781186547524)
    tmp = np.where(small, x, _F(0))
    x = x - _F(1)
    e = e - np.where(small, _F(1), _F(0))
    x = x + tmp
    z = x * x
    coefs = (
        7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
        -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
    )  # fmt: skip
    y = np.full_like(x, _F(coefs[0]))
    for c in coefs[1:]:
        y = fma32(y, x, _F(c))
    y = y * x
    y = fma32(y, z, e * _F(-2.12194440e-4))
    y = fma32(z, _F(-0.5), y)
    x = x + y
    return fma32(e, _F(0.693359375), x)


def _sincos256(x):
    """avx_mathfun's sincos256_ps, with GCC's contractions into FMA."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _F(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    sign_cos = (~(j - 2) & 4) != 0
    poly_mask = (j & 2) == 0
    x = fma32(y, _F(-0.78515625), x)
    x = fma32(y, _F(-2.4187564849853515625e-4), x)
    x = fma32(y, _F(-3.77489497744594108e-8), x)
    z = x * x
    yc = fma32(_F(2.443315711809948e-005), z, _F(-1.388731625493765e-003))
    yc = fma32(yc, z, _F(4.166664568298827e-002))
    yc = yc * z
    yc = fma32(yc, z, -(z * _F(0.5)))
    yc = yc + _F(1)
    ys = fma32(_F(-1.9515295891e-4), z, _F(8.3321608736e-3))
    ys = fma32(ys, z, _F(-1.6666654611e-1))
    ys = ys * z
    ys = fma32(ys, x, x)
    s = np.where(poly_mask, ys, yc)
    c = np.where(poly_mask, yc, ys)
    return np.where(sign_sin, -s, s), np.where(sign_cos, -c, c)


def _box_muller16(d, np_dtype, mean, std):
    """NormalFill16 on rows of 16 uniforms: the first 8 give u1, the last 8 u2."""
    if np_dtype == np.float64:
        u1 = (1.0 - d[:, :8]).ravel().tolist()
        u2 = d[:, 8:].ravel().tolist()
        radius = np.array([math.sqrt(-2.0 * math.log(v)) for v in u1])
        theta = [2.0 * math.pi * v for v in u2]
        cos = radius * np.array([math.cos(t) for t in theta])
        sin = radius * np.array([math.sin(t) for t in theta])
        out = np.concatenate([cos.reshape(-1, 8), sin.reshape(-1, 8)], axis=1)
        if mean == 0.0 and std == 1.0:
            return out + 0.0  # fma(x, 1, 0): -0.0 becomes 0.0
        return fma64(out, std, mean)
    u1 = _F(1) - d[:, :8]
    radius = np.sqrt(_F(-2) * _log256(u1))
    sin, cos = _sincos256(_F(2.0 * math.pi) * d[:, 8:])
    out = np.concatenate([radius * cos, radius * sin], axis=1)
    mean, std = _F(mean), _F(std)
    if mean == 0.0 and std == 1.0:
        return out + _F(0)  # fma(x, 1, 0): -0.0 becomes 0.0
    return fma32(out, std, mean)


def normal(n, np_dtype, mean=0.0, std=1.0, contiguous=True):
    """normal_(mean, std) of n elements in storage order (float16 computes in float32, with
    its own draws: no uniform for the elements of a last partial block of 16)."""
    np_dtype = np.dtype(np_dtype).type
    if n < 16 or not contiguous:
        return fma64(_serial_normal(n), float(std), float(mean)).astype(np_dtype)
    wide = np.float64 if np_dtype == np.float64 else np.float32
    full = n // 16 * 16
    data = _cpu.uniform01(n if wide == np_dtype else full, wide)
    out = np.empty(n, dtype=np_dtype)
    out[:full] = _box_muller16(data[:full].reshape(-1, 16), wide, mean, std).ravel()
    if n % 16:
        tail = _cpu.uniform01(16, wide).reshape(1, 16)
        out[n - 16 :] = _box_muller16(tail, wide, mean, std).ravel()
    return out


def _storage_order(values, shape, strides):
    """Lay out values drawn in memory order (PyTorch's TensorIterator visits a permuted
    tensor's elements as they lie in memory) into a C-ordered array of `shape`."""
    out = np.empty(shape, dtype=values.dtype)
    if strides is None or len(shape) < 2:
        out[...] = values.reshape(shape)
        return out
    axes = sorted(range(len(shape)), key=lambda a: -abs(strides[a]) if shape[a] > 1 else 0)
    view = out.transpose(axes)
    view[...] = values.reshape(view.shape)
    return out


def sample(kind, shape, dtype, device, *params, strides=None):
    """Values for rand/randn/uniform_/normal_ of a tensor: PyTorch's CPU stream on the cpu,
    PyTorch's distribution only on cuda (see the module's docstring)."""
    if device.type != "cpu":
        draw = _cuda.uniform if kind == "uniform" else _cuda.normal
        return draw(*params, size=shape).astype(dtype)
    n = math.prod(shape)
    dtype = np.dtype(dtype)
    contiguous = strides is None or _is_contiguous(shape, strides, dtype.itemsize)
    if kind == "uniform":
        values = uniform(n, dtype, *params)
    else:
        values = normal(n, dtype, *params, contiguous=contiguous)
    return _storage_order(values, shape, None if contiguous else strides)


def _is_contiguous(shape, strides, itemsize):
    expected = itemsize
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def random_int64():
    """`torch.empty((), dtype=torch.int64).random_()`: a 64-bit draw, in [0, 2**63)."""
    return int(_cpu.draws64(1)[0]) & ((1 << 63) - 1)


def randint(n, low, high):
    """random_from_to: n int64 values in [low, high)."""
    span = high - low
    raw = _cpu.draws64(n) if span >= 1 << 28 else _cpu.draws32(n)
    return (raw % np.uint64(span)).astype(np.int64) + np.int64(low)


def randperm(n, stream=None):
    """randperm_cpu's Fisher-Yates: swap i with i + random() % (n - i), drawing from `stream`
    (a _CPUStream: a generator of its own), by default the global one."""
    out = np.arange(n, dtype=np.int64)
    if n < 2:
        return out
    steps = ((stream or _cpu).draws32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    perm = out.tolist()
    for i, z in enumerate(steps):
        k = i + z
        perm[i], perm[k] = perm[k], perm[i]
    return np.array(perm, dtype=np.int64)
