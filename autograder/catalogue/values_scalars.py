"""Scenarios: scalars, dtypes and printing in the corners student code meets (rules N1-N3).

Formatting a loss in an f-string, NumPy scalars on either side of an operator, promotion in
`stack`/`cat`/`where`, exact `linspace`/`arange` values, and the errors PyTorch raises for
integer and bool tensors.
"""

import numpy as np

from autograder.catalogue._data import floats, ints, scalar
from autograder.scenarios import scenario

LECTURE = "course/01_tensors_memory.ipynb"


# -- N3: a 0-d tensor in an f-string prints as its number ---------------------------------------


@scenario(
    id="values.format_of_a_zero_dim_tensor",
    rules=["N3"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def format_of_a_zero_dim_tensor(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    loss = (a * 2).sum()
    k = T.tensor(int(rng.integers(-50, 50)), device=dev)
    record.value("f'{loss}' (requires grad: no warning)", f"{loss}")
    record.value("f'{loss:.3f}'", f"{loss:.3f}")
    record.value("f'{loss:>10.2e}'", f"{loss:>10.2e}")
    record.value("format(loss, '')", format(loss, ""))
    record.value("f'{k}' (int64)", f"{k}")
    record.value("f'{k:+05d}'", f"{k:+05d}")
    record.value("f'{a[0] > 1}' (bool)", f"{a[0] > 1}")
    record.value("f'{x}' of a float64 0-d", f"{T.tensor(scalar(rng), dtype=T.float64, device=dev)}")
    record.value("f'{a}' (1-D: the repr)", f"{a}")
    record.call("f'{a:.3f}' (1-D: refused)", lambda: f"{a:.3f}")
    record.call("f'{a[:1]:.2f}' (one element, 1-D: refused)", lambda: f"{a[:1]:.2f}")
    record.value("format(loss.detach(), '.4f')", format(loss.detach(), ".4f"))


# -- N1/N2: NumPy scalars behave as Python numbers, on either side ------------------------------


@scenario(
    id="values.numpy_scalars_on_either_side",
    rules=["N1", "N2"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
)
def numpy_scalars_on_either_side(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3)), requires_grad=True, device=dev)
    s64 = np.float64(scalar(rng))
    s32 = np.float32(scalar(rng))
    k = np.int64(rng.integers(2, 5))
    cases = [
        ("np.float64 * a", lambda: s64 * a),
        ("a * np.float64", lambda: a * s64),
        ("np.float64 + a", lambda: s64 + a),
        ("np.float32 - a", lambda: s32 - a),
        ("np.float64 / a", lambda: s64 / a),
        ("np.float64 ** a", lambda: s64**a),
        ("a ** np.float64", lambda: a**s64),
        ("np.int64 * a", lambda: k * a),
        ("np.int64 - a", lambda: k - a),
        ("np.sqrt(np.float64) * a", lambda: np.sqrt(s64) * a),
    ]
    w = T.tensor(floats(rng, (2, 3), -2, 2), device=dev)
    for label, make in cases:
        y = record.call(label, make)
        record.call(f"backward of {label}", lambda y=y: (y * w).sum().backward())
        record.grad(f"a.grad of {label}", a)
        a.grad = None
    x = T.tensor(floats(rng, 3, -2, 2), device=dev)
    i = T.tensor(ints(rng, 3), device=dev)
    b = x > 0
    z = T.tensor(scalar(rng), device=dev)
    record.call("np.float64 < x", lambda: s64 < x)
    record.call("np.float64 == x", lambda: s64 == x)
    record.call("np.int64 >= i", lambda: k >= i)
    record.call("np.float64 * i (int64 tensor)", lambda: s64 * i)
    record.call("np.int64 * i", lambda: k * i)
    record.call("np.int32 - i", lambda: np.int32(k) - i)
    record.call("np.float32 * b (bool tensor)", lambda: s32 * b)
    record.call("np.bool_ * i (a float to PyTorch)", lambda: np.bool_(k > 2) * i)
    record.call("np.float64 * 0-d tensor", lambda: s64 * z)
    record.call("0-d tensor * np.float64", lambda: z * s64)
    record.call("0-d tensor + np.int64", lambda: z + k)
    record.call("x.half() * np.float64", lambda: x.half() * s64)
    record.call("int 0-d tensor / np.int64", lambda: T.tensor(int(k) + 3, device=dev) / k)
    p = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    (p * w[0]).sum().backward()

    lr = np.float64(scalar(rng, 0.01, 0.1))

    def step(q=p):
        with T.no_grad():
            q -= lr * q.grad
        return q

    record.call("p -= np.float64 * p.grad under no_grad", step)
    record.call("i.mean(dtype=T.float32)", lambda: i.mean(dtype=T.float32))
    record.call("x.mean(dtype=T.float64)", lambda: x.mean(dtype=T.float64))
    record.call("i.mean(0, dtype=T.float64)", lambda: i.mean(0, dtype=T.float64))
    record.call("i.mean(dtype=T.int64) (refused)", lambda: i.mean(dtype=T.int64))


# -- N2: stack and cat promote as binary operators do --------------------------------------------


@scenario(
    id="values.stack_and_cat_promote_dtypes",
    rules=["N1", "N2"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
)
def stack_and_cat_promote_dtypes(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 2), requires_grad=True, device=dev)
    i = T.tensor(ints(rng, 2), device=dev)
    w = T.tensor(floats(rng, 4, -2, 2), device=dev)
    y = record.call("T.cat([a, int64]) (float32, not float64)", lambda: T.cat([a, i]))
    record.call("backward of the cat", lambda: (y * w).sum().backward())
    record.grad("a.grad", a)
    record.call("T.stack([a, int64])", lambda: T.stack([a, i]))
    record.call("T.stack([int64, a], dim=1)", lambda: T.stack([i, a], dim=1))
    record.call("T.cat([a.half(), int64])", lambda: T.cat([a.half(), i]))
    record.call("T.cat([a.double(), a])", lambda: T.cat([a.double(), a]))
    record.call("T.cat([int32, int64])", lambda: T.cat([i.int(), i]))
    record.call("T.cat([bool, int32])", lambda: T.cat([i > 0, i.int()]))
    record.call("T.stack([a[0], i[0]]) (0-d)", lambda: T.stack([a[0], i[0]]))
    record.call("T.stack([a[0].double(), a[1]])", lambda: T.stack([a[0].double(), a[1]]))


# -- N1/N2: where with numbers on either side, and its condition --------------------------------


@scenario(
    id="values.where_with_numbers",
    rules=["N1", "N2"],
    topic="values",
    lecture=f"{LECTURE}#operations-and-in-place",
)
def where_with_numbers(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 4, -2, 2), requires_grad=True, device=dev)
    i = T.tensor(ints(rng, 4), device=dev)
    c = a > 0
    s, k = scalar(rng), int(rng.integers(2, 9))
    record.call("T.where(c, 1., 0.)", lambda: T.where(c, 1.0, 0.0))
    record.call("T.where(c, s, -s)", lambda: T.where(c, s, -s))
    record.call("T.where(c, k, 0) (int64)", lambda: T.where(c, k, 0))
    record.call("T.where(c, k, 0.)", lambda: T.where(c, k, 0.0))
    record.call("T.where(c, True, False)", lambda: T.where(c, True, False))
    record.call("T.where(c, np.float64, 0.)", lambda: T.where(c, np.float64(s), 0.0))
    record.call("T.where(c, i, s)", lambda: T.where(c, i, s))
    record.call("T.where(c, i, k)", lambda: T.where(c, i, k))
    record.call("T.where(c, a.half(), s)", lambda: T.where(c, a.half(), s))
    record.call("T.where(c, i, a[0]) (0-d float)", lambda: T.where(c, i, a[0]))
    y = record.call("T.where(c, a, s)", lambda: T.where(c, a, s))
    w = T.tensor(floats(rng, 4, -2, 2), device=dev)
    record.call("backward of T.where(c, a, s)", lambda: (y * w).sum().backward())
    record.grad("a.grad", a)
    record.call("T.where(a, a, s) (float condition)", lambda: T.where(a, a, s))
    record.call("T.where(i, 1., 0.) (int condition)", lambda: T.where(i, 1.0, 0.0))


# -- N1/N3: linspace and arange give PyTorch's exact values (and so its repr) --------------------


@scenario(
    id="values.linspace_and_arange_exact_values",
    rules=["N1", "N3"],
    topic="values",
    lecture=f"{LECTURE}#creating-tensors",
)
def linspace_and_arange_exact_values(T, record, rng):
    dev = record.device
    # symmetric ranges whose step is not exact in binary: the middle element "should" be 0,
    # and PyTorch's rounding leaves something like -2.9802e-08 there (scientific repr)
    k = int(rng.integers(1, 4))
    n = 6 * int(rng.integers(1, 4)) + 1
    m = int(rng.choice([3, 5, 7]))
    lo, hi = scalar(rng, -3, 0), scalar(rng, 0.5, 3)
    for dt in ("float32", "float64"):
        d = getattr(T, dt)
        record.call(
            f"T.linspace(-k, k, n, {dt})", lambda d=d: T.linspace(-k, k, n, dtype=d, device=dev)
        )
        record.call(
            f"T.arange(-k, k, 1/m, {dt})", lambda d=d: T.arange(-k, k, 1 / m, dtype=d, device=dev)
        )
        record.call(
            f"T.linspace(lo, hi, 40, {dt})", lambda d=d: T.linspace(lo, hi, 40, dtype=d, device=dev)
        )
        record.call(
            f"T.arange(lo, hi, 0.1, {dt})", lambda d=d: T.arange(lo, hi, 0.1, dtype=d, device=dev)
        )
        mid = T.linspace(-k, k, n, dtype=d, device=dev)[n // 2]
        record.value(f"linspace(-k, k, n, {dt})[n // 2] == 0", bool(mid == 0))
    record.call("T.linspace(-k, k, n)", lambda: T.linspace(-k, k, n, device=dev))
    record.call(
        "T.linspace(-k, k, n, float16)", lambda: T.linspace(-k, k, n, dtype=T.float16, device=dev)
    )
    record.call(
        "T.linspace(-10 * k, 7, n, int64)",
        lambda: T.linspace(-10 * k, 7, n, dtype=T.int64, device=dev),
    )
    record.call(
        "T.arange(-k, k, 1/m, float16)", lambda: T.arange(-k, k, 1 / m, dtype=T.float16, device=dev)
    )
    record.call("T.arange(lo, 40 * hi, 1/m)", lambda: T.arange(lo, 40 * hi, 1 / m, device=dev))
    record.call("T.arange(-k, 3 * m, 2)", lambda: T.arange(-k, 3 * m, 2, device=dev))
    # ranges PyTorch refuses instead of returning an empty tensor
    record.call("T.arange(k, -k)", lambda: T.arange(k, -k, device=dev))
    record.call("T.arange(-k, k, -1/m)", lambda: T.arange(-k, k, -1 / m, device=dev))
    record.call("T.arange(0, k, 0)", lambda: T.arange(0, k, 0, device=dev))
    record.call("T.arange(lo, inf)", lambda: T.arange(lo, float("inf"), device=dev))


# -- N2: tensor() of NumPy scalars keeps their dtypes ---------------------------------------------


@scenario(
    id="values.tensor_of_numpy_scalars",
    rules=["N2"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
)
def tensor_of_numpy_scalars(T, record, rng):
    dev = record.device
    x, y = scalar(rng), scalar(rng)
    k = int(rng.integers(-9, 10))
    cases = [
        ("[np.float64]", [np.float64(x)]),
        ("[np.float32, np.float64]", [np.float32(x), np.float64(y)]),
        ("[float, np.float64]", [x, np.float64(y)]),
        ("[[np.float64], [float]]", [[np.float64(x)], [y]]),
        ("[np.float16]", [np.float16(x)]),
        ("[np.int32]", [np.int32(k)]),
        ("[np.int32, int]", [np.int32(k), k + 1]),
        ("[True, np.int32]", [True, np.int32(k)]),
        ("[np.int32, float]", [np.int32(k), x]),
        ("[np.int64, np.float16]", [np.int64(k), np.float16(x)]),
        ("[np.float64, 0-d int tensor]", [np.float64(x), T.tensor(k)]),
    ]
    for label, data in cases:
        record.call(f"T.tensor({label})", lambda data=data: T.tensor(data, device=dev))
    # data with no dtype is refused (NumPy would make None a nan)
    for label, data in [("None", None), ("[x, None]", [x, None]), ("[k, 'a']", [k, "a"])]:
        record.call(f"T.tensor({label})", lambda data=data: T.tensor(data, device=dev))
    # factories that read numbers as Python scalars: NumPy floats give the default float32
    record.call("T.full((2,), np.float64)", lambda: T.full((2,), np.float64(x), device=dev))
    record.call("T.full((2,), np.int32)", lambda: T.full((2,), np.int32(k), device=dev))
    record.call("T.arange(np.float64)", lambda: T.arange(np.float64(abs(k) + x), device=dev))


# -- N1: `.T` on tensors that are not matrices warns (once per process, as PyTorch does) --------


@scenario(
    id="values.transpose_property_warnings",
    rules=["N1", "N3"],
    topic="values",
    lecture=f"{LECTURE}#indexing-and-views",
    # both deprecation warnings are PyTorch warn-once: the first occurrence needs a fresh process
    fresh_process=True,
)
def transpose_property_warnings(T, record, rng):
    dev = record.device
    v = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    m = T.tensor(floats(rng, (2, 3)), device=dev)
    c = T.tensor(floats(rng, (2, 1, 3)), device=dev)
    s = T.tensor(scalar(rng), device=dev)
    record.call("m.T (2-D: no warning)", lambda: m.T)
    record.call("v.T (1-D: warns)", lambda: v.T)
    record.call("v.T again (warned once)", lambda: v.T)
    record.call("c.T (3-D: the same warning, already given)", lambda: c.T)
    record.call("s.T (0-D: its own warning)", lambda: s.T)
    record.call("s.T again", lambda: s.T)


# -- L5: integer tensors never require grad --------------------------------------------------------


@scenario(
    id="values.integer_tensors_never_require_grad",
    rules=["L5"],
    topic="values",
    lecture="course/02_leaf_nodes.ipynb#requires-grad-propagates",
)
def integer_tensors_never_require_grad(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3, 0.5, 9.5), requires_grad=True, device=dev)
    n = len(a)

    def fill_one():
        i = T.zeros(n, dtype=T.long, device=dev)
        i[0] = a[0]
        return i

    def fill_row():
        i = T.zeros(2, n, dtype=T.long, device=dev)
        i[1] = a
        return i

    def copy_all():
        i = T.zeros(n, dtype=T.long, device=dev)
        return i.copy_(a)

    def copy_into_view():
        i = T.zeros(n, dtype=T.int32, device=dev)
        v = i[1:]
        v.copy_(a[1:] * 2)
        return i, v

    def fill_bool():
        b = T.zeros(n, dtype=T.bool, device=dev)
        b[2] = a[2]
        return b

    record.call("i[0] = a[0] (int64: a leaf, no CopySlices)", fill_one)
    record.call("i2[1] = a", fill_row)
    record.call("i.copy_(a)", copy_all)
    record.call("i[1:].copy_(a[1:] * 2)", copy_into_view)
    record.call("b[2] = a[2] (bool)", fill_bool)
    record.call("fill_one()[0]", lambda: fill_one()[0])

    def set_data(t, dtype):
        t.data = T.zeros(n, dtype=dtype, device=dev)
        return t

    leaf = T.tensor(floats(rng, n), requires_grad=True, device=dev)
    record.call("leaf.data = int64 tensor (refused)", lambda: set_data(leaf, T.long))
    record.call("(leaf * 2).data = int64 tensor (refused)", lambda: set_data(leaf * 2, T.long))
    record.call("leaf.data = float64 tensor", lambda: set_data(leaf, T.float64))
    plain = T.tensor(floats(rng, n), device=dev)
    record.call("plain.data = int64 tensor", lambda: set_data(plain, T.long))


# -- N1: integer powers and bool operands raise PyTorch's errors --------------------------------


@scenario(
    id="values.integer_and_bool_operand_errors",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
)
def integer_and_bool_operand_errors(T, record, rng):
    dev = record.device
    i = T.tensor(ints(rng, 4, 1, 6), device=dev)
    e = T.tensor(ints(rng, 4, -3, 3), device=dev)
    signs = T.tensor([-1, 0, 1, int(rng.integers(2, 5))], device=dev)
    k = int(rng.integers(1, 4))
    x = T.tensor(floats(rng, 4, -2, 2), device=dev)
    b = x > 0
    record.call("i ** -k (refused)", lambda: i**-k)
    record.call("i.pow(-k)", lambda: i.pow(-k))
    record.call("i ** np.int64(-k)", lambda: i ** np.int64(-k))
    record.call("i.int() ** -k", lambda: i.int() ** -k)
    record.call("b ** -k", lambda: b**-k)
    record.call("i ** k", lambda: i**k)
    record.call("i ** -1.0 (a float: fine)", lambda: i**-1.0)
    record.call("signs ** e (negative exponents in a tensor)", lambda: signs**e)
    record.call("k ** e", lambda: k**e)
    record.call("b - b", lambda: b - b)
    record.call("b - True", lambda: b - True)
    record.call("True - b", lambda: True - b)
    record.call("b - k", lambda: b - k)
    record.call("i - True", lambda: i - True)
    record.call("True - i", lambda: True - i)
    record.call("x - True", lambda: x - True)
    record.call("i.sub(True)", lambda: i.sub(True))
    record.call("b.relu()", lambda: b.relu())
    record.call("T.relu(b)", lambda: T.relu(b))
    record.call("b.abs()", lambda: b.abs())
    record.call("b.argmax()", lambda: b.argmax())
    record.call("b.argmax(0)", lambda: b.argmax(0))
    record.call("b.argmin()", lambda: b.argmin())
    record.call("b.sum(), b.max() (allowed)", lambda: (b.sum(), b.max()))


# -- N1: no NumPy RuntimeWarning where PyTorch is silent ----------------------------------------


@scenario(
    id="values.no_numpy_warnings_at_overflow_and_nan",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
)
def no_numpy_warnings_at_overflow_and_nan(T, record, rng):
    dev = record.device
    big = scalar(rng, 2.0, 3.0) * 1e38
    f = T.tensor([big, -big], device=dev)
    h = T.tensor([scalar(rng, 4e4, 6e4)], dtype=T.float16, device=dev)
    t = T.tensor([0.0, -scalar(rng), scalar(rng)], requires_grad=True, device=dev)
    record.call("f * 10 (overflow to inf)", lambda: f * 10)
    record.call("f * f", lambda: f * f)
    record.call("f.max() * 10", lambda: f.max() * 10)
    record.call("h + h (float16)", lambda: h + h)
    record.call("h ** 2", lambda: h**2)
    record.call("(f / 1e30).half() (cast overflow)", lambda: (f / 1e30).half())
    # the integers a NaN or an out-of-range float becomes are the platform's: only the shape
    record.call(
        "T.tensor([nan, big]).long().shape",
        lambda: T.tensor([float("nan"), big], device=dev).long().shape,
    )
    record.call("f.int().shape (out of range)", lambda: f.int().shape)
    record.call("(-8) ** t", lambda: (-8) ** t)
    record.call("0 ** t", lambda: 0**t)
    record.call("T.tensor([]).mean()", lambda: T.tensor([], device=dev).mean())
    record.call("T.zeros(0, 2).mean(0)", lambda: T.zeros(0, 2, device=dev).mean(0))
    record.call("1 / T.zeros(2)", lambda: 1 / T.zeros(2, device=dev))
    record.call("inf / inf", lambda: (f * 10) / (f * 10))
    record.call("f.exp()", lambda: f.exp())
    record.call("T.tensor([big * 1e10])", lambda: T.tensor([big * 1e10], device=dev))


# -- N1: float16 elementwise functions are computed in float32 and rounded once -----------------


@scenario(
    id="values.float16_elementwise_functions",
    rules=["N1"],
    topic="values",
    lecture=f"{LECTURE}#dtypes-and-promotion",
)
def float16_elementwise_functions(T, record, rng):
    dev = record.device
    s = scalar(rng, 0.1, 3.0)
    cases = [
        ("x.sigmoid()", lambda x: x.sigmoid()),
        ("T.sigmoid(x)", lambda x: T.sigmoid(x)),
        ("x.tanh()", lambda x: x.tanh()),
        ("F.softplus(x)", lambda x: T.nn.functional.softplus(x)),
        ("1 / x", lambda x: 1 / x),
        ("x.exp()", lambda x: x.exp()),
        # a number meets float16 values in float (mul, div) or rounded to half (add, sub)
        ("x * s", lambda x: x * s),
        ("x / s", lambda x: x / s),
        ("s / x", lambda x: s / x),
        ("x.abs() ** s", lambda x: x.abs() ** s),
        ("s ** x", lambda x: s**x),
        ("x * np.float64(s)", lambda x: x * np.float64(s)),
        ("x + np.float32(s)", lambda x: x + np.float32(s)),
    ]
    for label, f in cases:
        x = T.tensor(_halves(_away_from_zero(rng, 8, 6.0)), dtype=T.float16, requires_grad=True,
                     device=dev)  # fmt: skip
        g = T.tensor(floats(rng, 8, -2, 2), dtype=T.float16, device=dev)
        y = record.call(f"{label} (float16)", lambda f=f, x=x: f(x))
        record.call(f"backward of {label}", lambda y=y, g=g: y.backward(g))
        record.grad(f"x.grad of {label}", x)


def _halves(values):
    """The float16 values nearest to `values`, as Python floats, so that both engines start
    from the same float16 tensor: the scenario is about how float16 values meet functions and
    numbers (rule N1's tolerance for it is none: every value exact). How a float64 becomes a
    float16 is apart: PyTorch rounds it through float32 (twice), NumPy once, so a float64
    within 2**-24 of a tie between two float16 values lands one unit apart in about 1 draw in
    30,000 (measured), which failed this scenario on 1 seed in 40."""
    return np.asarray(values, dtype=np.float16).astype(np.float64).tolist()


def _away_from_zero(rng, n, high):
    return (rng.choice([-1.0, 1.0], size=n) * rng.uniform(0.1, high, size=n)).tolist()
