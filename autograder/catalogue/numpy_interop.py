"""Scenarios: detach and NumPy (rules D1-D4): numpy() refusing tensors that require grad,
memory shared both ways, tensor() copying, detach()/detach_(), and the float64-array story."""

import numpy as np

from autograder.catalogue._data import floats, scalar
from autograder.catalogue._statements import setitem, zero_
from autograder.scenarios import scenario

LECTURE = "course/03_detach_numpy.ipynb"
LEAF_LECTURE = "course/02_leaf_nodes.ipynb"  # the float64-array story is told there
CPU = ("cpu",)  # numpy() needs a CPU tensor: the device rules (V4) cover the other case


def _array(rng, n=3, dtype=np.float64):
    return rng.uniform(0.5, 2.0, size=n).astype(dtype)


# -- D1: numpy() and requires_grad ---------------------------------------------------------


@scenario(id="numpy.numpy_refuses_tensors_that_require_grad", rules=["D1"], topic="numpy",
          lecture=f"{LECTURE}#numpy-has-no-graph", devices=CPU)  # fmt: skip
def numpy_refuses_tensors_that_require_grad(T, record, rng):
    a = T.tensor(floats(rng, 3), requires_grad=True)
    record.call("a.numpy()", lambda: a.numpy())
    record.call("(a * 2).numpy()", lambda: (a * 2).numpy())
    record.call("np.asarray(a)", lambda: np.asarray(a))
    record.call("a.cpu().numpy()", lambda: a.cpu().numpy())
    record.call("a.cpu() is a", lambda: a.cpu() is a)
    record.call("a.tolist()", lambda: a.tolist())
    record.call("a.detach().numpy()", lambda: a.detach().numpy())
    record.call("a.detach().cpu().numpy()", lambda: a.detach().cpu().numpy())
    record.call("a.data.numpy()", lambda: a.data.numpy())


@scenario(id="numpy.numpy_inside_no_grad_shares", rules=["D1", "L9"], topic="numpy",
          lecture=f"{LECTURE}#no-grad-alternative", devices=CPU)  # fmt: skip
def numpy_inside_no_grad_shares(T, record, rng):
    a = T.tensor(floats(rng, 3), requires_grad=True)
    with T.no_grad():
        arr = record.call("a.numpy() inside no_grad", lambda: a.numpy())
    record.shares("the array shares memory with a", arr, a)
    s = scalar(rng, 5, 9)
    record.call("arr[1] = s", lambda: setitem(arr, 1, s))
    record.tensor("a after arr[1] = s", a)
    record.call("a.numpy() after no_grad", lambda: a.numpy())


@scenario(id="numpy.no_grad_makes_numpy_and_tensors_interchangeable", rules=["D1", "D3", "L9"],
          topic="numpy", lecture=f"{LECTURE}#no-grad-alternative", devices=CPU)  # fmt: skip
def no_grad_makes_numpy_and_tensors_interchangeable(T, record, rng):
    # Source document 003: under no_grad, a torch matmul and a NumPy dot give the same numbers.
    x = T.tensor(floats(rng, (3, 4)), requires_grad=True)
    y_np = _array(rng, (4, 2), np.float32)
    with T.no_grad():
        record.call("x @ from_numpy(y_np)", lambda: x @ T.from_numpy(y_np))
        record.call("np.dot(x.numpy(), y_np)", lambda: np.dot(x.numpy(), y_np))


# -- D2: detach() and detach_() --------------------------------------------------------------


@scenario(id="numpy.detach_shares_storage_and_version", rules=["D2", "I1"], topic="numpy",
          lecture=f"{LECTURE}#detach")  # fmt: skip
def detach_shares_storage_and_version(T, record, rng):
    a = T.tensor(floats(rng, 3), requires_grad=True, device=record.device)
    d = a.detach()
    record.tensor("a.detach()", d)
    record.shares("a.detach() shares memory with a", d, a)
    record.same("a.detach() is a", d, a)
    s = scalar(rng, 5, 9)
    record.call("d[0] = s", lambda: setitem(d, 0, s))
    record.tensor("a after d[0] = s", a)
    record.tensor("d after d[0] = s", d)


@scenario(id="numpy.detach_edit_breaks_backward", rules=["D2", "I2"], topic="numpy",
          lecture=f"{LECTURE}#detach")  # fmt: skip
def detach_edit_breaks_backward(T, record, rng):
    n = int(rng.integers(2, 5))
    a = T.tensor(floats(rng, n), requires_grad=True, device=record.device)
    y = (a * a).sum()
    d = a.detach()
    # a's version first: it counts the change only through a shared counter, and a sealed
    # run (versions uncounted until inplace_versions is built) can read it only when not
    record.call("d.zero_() (d = a.detach())", lambda: zero_(d))
    record.value("a._version", a._version)
    record.tensor("d after d.zero_()", d)
    record.call("y.backward()", lambda: y.backward())


@scenario(id="numpy.detach_then_requires_grad_is_a_new_leaf", rules=["D2", "L5"],
          topic="numpy", lecture=f"{LECTURE}#detach")  # fmt: skip
def detach_then_requires_grad_is_a_new_leaf(T, record, rng):
    a = T.tensor(floats(rng, 3), requires_grad=True, device=record.device)
    b = a * scalar(rng)
    c = record.call("b.detach().requires_grad_()", lambda: b.detach().requires_grad_())
    record.call("(c * c).sum().backward()", lambda: (c * c).sum().backward())
    record.grad("c.grad", c)
    record.grad("a.grad (cut off by detach)", a)


@scenario(id="numpy.detach_in_place", rules=["D2"], topic="numpy",
          lecture=f"{LECTURE}#detach")  # fmt: skip
def detach_in_place(T, record, rng):
    a = T.tensor(floats(rng, (2, 3)), requires_grad=True, device=record.device)
    y = a * scalar(rng)
    ret = record.call("y.detach_()", lambda: y.detach_())
    record.same("y.detach_() returns y", ret, y)
    record.tensor("y after detach_()", y)
    view = (a * 2)[0]
    record.call("view.detach_()", lambda: view.detach_())
    record.tensor("the view after the refused detach_()", view)
    record.call("(a * 3).view(6).detach_()", lambda: (a * 3).view(6).detach_())


# -- D3: shared memory and copies ----------------------------------------------------------


@scenario(id="numpy.from_numpy_and_numpy_share_both_ways", rules=["D3"], topic="numpy",
          lecture=f"{LECTURE}#shared-memory", devices=CPU)  # fmt: skip
def from_numpy_and_numpy_share_both_ways(T, record, rng):
    arr = _array(rng)
    t = record.call("t = from_numpy(arr)", lambda: T.from_numpy(arr))
    record.shares("t shares memory with arr", t, arr)
    record.call("arr[0] = s", lambda: setitem(arr, 0, scalar(rng, 5, 9)))
    record.tensor("t after arr[0] = s", t)
    record.call("t[1] = s", lambda: setitem(t, 1, scalar(rng, -9, -5)))
    record.value("arr after t[1] = s", arr.tolist())
    back = record.call("t.numpy()", lambda: t.numpy())
    record.shares("t.numpy() shares memory with arr", back, arr)
    record.call("t.add_(1)", lambda: t.add_(1))
    record.value("arr after t.add_(1)", arr.tolist())
    record.value("t._version (NumPy writes do not count)", t._version)


@scenario(id="numpy.numpy_writes_show_in_the_tensor", rules=["D3", "D2"], topic="numpy",
          lecture=f"{LECTURE}#shared-memory", devices=CPU)  # fmt: skip
def numpy_writes_show_in_the_tensor(T, record, rng):
    # Source document 003: a tensor and its numpy() array are two views of one memory.
    t = T.tensor(floats(rng, 2))
    arr = t.numpy()
    record.call("t[0] = s", lambda: setitem(t, 0, scalar(rng, 5, 9)))
    record.value("arr after t[0] = s", arr.tolist())
    a = T.tensor(floats(rng, 3), requires_grad=True)
    shared = a.detach().numpy()
    record.call("a.detach().numpy()[1] = s", lambda: setitem(shared, 1, scalar(rng, 5, 9)))
    record.tensor("a after the NumPy write (no version bump)", a)


@scenario(id="numpy.tensor_copies_an_array", rules=["D3", "N2"], topic="numpy",
          lecture=f"{LECTURE}#shared-memory", devices=CPU)  # fmt: skip
def tensor_copies_an_array(T, record, rng):
    arr = _array(rng)
    copy = record.call("tensor(arr)", lambda: T.tensor(arr))
    shared = record.call("as_tensor(arr)", lambda: T.as_tensor(arr))
    converted = record.call("as_tensor(arr, dtype=float32)",
                            lambda: T.as_tensor(arr, dtype=T.float32))  # fmt: skip
    record.call("Tensor(arr)", lambda: T.Tensor(arr))
    record.shares("tensor(arr) shares memory with arr", copy, arr)
    record.shares("as_tensor(arr) shares memory with arr", shared, arr)
    record.shares("as_tensor(arr, dtype=float32) shares memory with arr", converted, arr)
    record.call("arr[0] = s", lambda: setitem(arr, 0, scalar(rng, 5, 9)))
    record.tensor("tensor(arr) after arr[0] = s", copy)
    record.tensor("as_tensor(arr) after arr[0] = s", shared)


@scenario(id="numpy.tensor_of_a_tensor_copies_and_warns", rules=["D3"], topic="numpy",
          lecture=f"{LECTURE}#tensor-copies")  # fmt: skip
def tensor_of_a_tensor_copies_and_warns(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    b = T.tensor(floats(rng, 2), device=dev)
    c = record.call("tensor(a) (a requires grad)", lambda: T.tensor(a))
    record.shares("tensor(a) shares memory with a", c, a)
    record.call("tensor(b) (b does not)", lambda: T.tensor(b))
    record.call("tensor(a, requires_grad=True)", lambda: T.tensor(a, requires_grad=True))
    record.call("as_tensor(a)", lambda: T.as_tensor(a))
    record.call("as_tensor(a) is a", lambda: T.as_tensor(a) is a)
    record.call("as_tensor(a, dtype=float64)", lambda: T.as_tensor(a, dtype=T.float64))


@scenario(id="numpy.clone_copies", rules=["D3", "D2"], topic="numpy",
          lecture=f"{LECTURE}#tensor-copies")  # fmt: skip
def clone_copies(T, record, rng):
    a = T.tensor(floats(rng, 3), requires_grad=True, device=record.device)
    c = record.call("a.clone()", lambda: a.clone())
    record.shares("a.clone() shares memory with a", c, a)
    dc = record.call("a.detach().clone()", lambda: a.detach().clone())
    record.shares("a.detach().clone() shares memory with a", dc, a)
    record.call("(c * c).sum().backward()", lambda: (c * c).sum().backward())
    record.grad("a.grad through clone", a)


@scenario(id="numpy.from_numpy_dtypes_and_requires_grad", rules=["D3", "L5"], topic="numpy",
          lecture=f"{LECTURE}#shared-memory", devices=CPU)  # fmt: skip
def from_numpy_dtypes_and_requires_grad(T, record, rng):
    record.call("from_numpy(float64).requires_grad_()",
                lambda: T.from_numpy(_array(rng)).requires_grad_())  # fmt: skip
    record.call("from_numpy(float32)", lambda: T.from_numpy(_array(rng, 3, np.float32)))
    ints = rng.integers(0, 9, size=3)
    record.call("from_numpy(int64)", lambda: T.from_numpy(ints))
    record.call("from_numpy(int array).requires_grad_()",
                lambda: T.from_numpy(ints).requires_grad_())  # fmt: skip
    record.call("from_numpy(arr[::-1]) (negative stride)",
                lambda: T.from_numpy(_array(rng)[::-1]))  # fmt: skip
    record.call("from_numpy(arr[::2]) (positive stride)",
                lambda: T.from_numpy(_array(rng, 6)[::2]))  # fmt: skip


@scenario(id="numpy.from_numpy_of_a_read_only_array_warns_once", rules=["D3"], topic="numpy",
          lecture=f"{LECTURE}#shared-memory", devices=CPU, fresh_process=True)  # fmt: skip
def from_numpy_of_a_read_only_array_warns_once(T, record, rng):
    # A once-only warning: observed as its first occurrence in a fresh process.
    arr = _array(rng)
    arr.flags.writeable = False
    record.call("from_numpy(read-only array)", lambda: T.from_numpy(arr))
    record.call("from_numpy(read-only array) again", lambda: T.from_numpy(arr))


@scenario(id="numpy.python_number_of_a_grad_tensor_warns_once", rules=["R1"], topic="numpy",
          lecture=f"{LECTURE}#numpy-has-no-graph", fresh_process=True)  # fmt: skip
def python_number_of_a_grad_tensor_warns_once(T, record, rng):
    # Converting a tensor that requires grad to a Python number leaves the graph; PyTorch warns
    # once per process (observed in a fresh process), and not at all for item()/tolist().
    a0 = T.tensor(scalar(rng), requires_grad=True, device=record.device)
    record.call("a0.item()", lambda: a0.item())
    record.call("a0.tolist()", lambda: a0.tolist())
    record.call("float(a0.detach())", lambda: float(a0.detach()))
    record.call("float(a0)", lambda: float(a0))
    record.call("float(a0) again", lambda: float(a0))
    record.call("float(a0 * 2) (other tensor)", lambda: float(a0 * 2))


# -- D4: the float64-array story -----------------------------------------------------------


@scenario(id="numpy.float64_array_then_float_is_a_copy", rules=["D4"], topic="numpy",
          lecture=f"{LEAF_LECTURE}#why-grad-is-none")  # fmt: skip
def float64_array_then_float_is_a_copy(T, record, rng):
    t = T.tensor(_array(rng), requires_grad=True, device=record.device)
    record.tensor("t = tensor(float64 array, requires_grad=True)", t)
    tf = t.float()
    record.tensor("t.float()", tf)
    record.same("t.float() is t", tf, t)
    k = T.tensor(floats(rng, 3), device=record.device)
    record.call("(tf * k).sum().backward()", lambda: (tf * k).sum().backward())
    record.grad("tf.grad", tf)
    record.grad("t.grad (float64)", t)


@scenario(id="numpy.float32_array_then_float_is_the_leaf", rules=["D4"], topic="numpy",
          lecture=f"{LEAF_LECTURE}#why-grad-is-none")  # fmt: skip
def float32_array_then_float_is_the_leaf(T, record, rng):
    t = T.tensor(_array(rng, 3, np.float32), requires_grad=True, device=record.device)
    tf = t.float()
    record.tensor("tensor(float32 array, requires_grad=True).float()", tf)
    record.same("t.float() is t", tf, t)
    k = T.tensor(floats(rng, 3), device=record.device)
    record.call("(tf * k).sum().backward()", lambda: (tf * k).sum().backward())
    record.grad("tf.grad", tf)


@scenario(id="numpy.convert_before_requiring_grad", rules=["D4", "L5"], topic="numpy",
          lecture=f"{LEAF_LECTURE}#why-grad-is-none")  # fmt: skip
def convert_before_requiring_grad(T, record, rng):
    dev = record.device
    record.call("tensor(float64 array, dtype=float32, requires_grad=True)",
                lambda: T.tensor(_array(rng), dtype=T.float32, requires_grad=True,
                                 device=dev))  # fmt: skip
    record.call("tensor(float64 array).float().requires_grad_()",
                lambda: T.tensor(_array(rng), device=dev).float().requires_grad_())  # fmt: skip
    record.call("tensor(float64 array, requires_grad=True).to(float32)",
                lambda: T.tensor(_array(rng), requires_grad=True, device=dev).to(
                    T.float32))  # fmt: skip
    a = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    record.call("a.double()", lambda: a.double())
    record.call("a.to(float32) is a", lambda: a.to(T.float32) is a)
    record.call("a.float() is a", lambda: a.float() is a)


@scenario(id="numpy.from_numpy_then_float_then_requires_grad", rules=["D4", "D3"],
          topic="numpy", lecture=f"{LEAF_LECTURE}#why-grad-is-none", devices=CPU)  # fmt: skip
def from_numpy_then_float_then_requires_grad(T, record, rng):
    arr = _array(rng)
    z = record.call("from_numpy(float64).float().requires_grad_()",
                    lambda: T.from_numpy(arr).float().requires_grad_())  # fmt: skip
    record.shares("the float32 copy shares memory with arr", z, arr)
    go = T.tensor(floats(rng, 3))
    k = scalar(rng)
    record.call("(z * k).backward(go)", lambda: (z * k).backward(go))
    record.grad("z.grad", z)


@scenario(id="numpy.detach_in_place_of_a_leaf", rules=["D2"], topic="numpy",
          lecture=f"{LECTURE}#detach")  # fmt: skip
def detach_in_place_of_a_leaf(T, record, rng):
    # A leaf that requires grad, detached in place, stops requiring it: detach_() clears the
    # flag itself, not only the history (a non-leaf has no flag of its own to clear).
    x = T.tensor(floats(rng, (int(rng.integers(2, 5)),)), requires_grad=True, device=record.device)
    ret = record.call("x.detach_() (a leaf that requires grad)", lambda: x.detach_())
    record.same("x.detach_() returns x", ret, x)
    record.value("x.requires_grad after detach_()", x.requires_grad)
    record.value("x.is_leaf after detach_()", x.is_leaf)
    record.call("x * s (computed from the detached leaf)", lambda: x * scalar(rng))
    record.call("x.mul_(s) (in place: no longer refused)", lambda: x.mul_(scalar(rng)))


@scenario(id="numpy.from_numpy_takes_arrays_only", rules=["D3"], topic="numpy",
          lecture=f"{LECTURE}#shared-memory", devices=CPU)  # fmt: skip
def from_numpy_takes_arrays_only(T, record, rng):
    # from_numpy refuses anything that is not an ndarray (PyTorch's TypeError), and of the
    # arrays only those with a negative stride: a zero stride (a row shown several times) or
    # an empty array's zero strides are taken, memory shared.
    n = int(rng.integers(2, 5))
    values = floats(rng, (n,))
    others = {
        "a list": values,
        "a tuple": tuple(values),
        "a float": values[0],
        "None": None,
        "a tensor": T.tensor(values),
    }
    for label, obj in others.items():
        record.call(f"from_numpy({label})", lambda obj=obj: T.from_numpy(obj))
    row = _array(rng)
    rows = np.lib.stride_tricks.as_strided(row, (n, row.size), (0, row.strides[0]))
    t = record.call("from_numpy(a row repeated by a zero stride)", lambda: T.from_numpy(rows))
    row[int(rng.integers(0, row.size))] = scalar(rng, 5, 9)
    record.tensor("that tensor after a write into the row", t)
    record.call("from_numpy(np.empty((n, 0))) (zero strides)",
                lambda: T.from_numpy(np.empty((n, 0))).shape)  # fmt: skip
