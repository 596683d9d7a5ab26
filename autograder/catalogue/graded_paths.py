"""Scenarios for paths of the exercises' seams that no other scenario reached (issue #14: of
single-point mutants of the reference answers, these paths let a quarter keep full marks):
tensor() of a tensor, assignment through an advanced index, a number assigned into a slice,
detach_() clearing requires_grad, negative dims in stack/cat, the .grad version bump when
gradients accumulate, and dtype inference when rebuilding from tensors of mixed dtypes."""

from autograder.catalogue._data import floats, ints, scalar
from autograder.catalogue._statements import setitem
from autograder.scenarios import scenario

LEAF = "course/02_leaf_nodes.ipynb"
NUMPY = "course/03_detach_numpy.ipynb"
REBUILD = "course/05_rebuilding_tensors.ipynb"


@scenario(id="rebuild.tensor_of_a_tensor_warns_and_copies", rules=["R1", "D3"],
          topic="rebuild", lecture=f"{REBUILD}#why-tensor-cuts-the-graph")  # fmt: skip
def tensor_of_a_tensor_warns_and_copies(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, 3), requires_grad=True, device=dev)
    plain = T.tensor(floats(rng, (2, 2)), device=dev)
    for label, source in (("a (requires grad)", a), ("plain", plain), ("a * 2", a * 2)):
        copy = record.call(f"tensor({label})", lambda s=source: T.tensor(s, device=dev))
        record.shares(f"tensor({label}) shares memory with it", copy, source)
        if copy is not None:
            record.call(f"tensor({label}).add_(1)", lambda c=copy: c.add_(1))
            record.tensor(f"{label} after its copy changed", source)
    record.call("tensor(a, requires_grad=True)",
                lambda: T.tensor(a, requires_grad=True, device=dev))  # fmt: skip
    record.call("tensor(plain, dtype=float64)",
                lambda: T.tensor(plain, dtype=T.float64, device=dev))  # fmt: skip


@scenario(id="rebuild.mixed_dtype_parts", rules=["R1"], topic="rebuild",
          lecture=f"{REBUILD}#why-tensor-cuts-the-graph")  # fmt: skip
def mixed_dtype_parts(T, record, rng):
    dev = record.device
    i0, i1 = (T.tensor(v, device=dev) for v in ints(rng, 2, 1, 9))
    f0 = T.tensor(scalar(rng), device=dev)
    d0 = T.tensor(scalar(rng), dtype=T.float64, device=dev)
    b0 = T.tensor(True, device=dev)
    cases = {
        "[int, int]": [i0, i1],
        "[int, float32]": [i0, f0],
        "[float32, int]": [f0, i0],
        "[float64, float32]": [d0, f0],
        "[bool, int]": [b0, i0],
        "[int tensor, Python float]": [i0, scalar(rng)],
        "[float64 tensor, Python int]": [d0, int(ints(rng, 1, 1, 9)[0])],
    }
    for label, parts in cases.items():
        record.call(f"tensor({label})", lambda p=parts: T.tensor(p, device=dev))


@scenario(id="rebuild.assignment_through_an_advanced_index", rules=["R3", "I4"], topic="rebuild",
          lecture=f"{REBUILD}#fill-by-index")  # fmt: skip
def assignment_through_an_advanced_index(T, record, rng):
    dev = record.device
    a = T.nn.Parameter(T.tensor(floats(rng, 4), device=dev))
    out = T.zeros(5, device=dev)
    index = [0, 3, 4]
    record.call("out[[0, 3, 4]] = a[:3] * k", lambda: setitem(out, index, a[:3] * scalar(rng)))
    record.tensor("out", out)
    mask = T.tensor([True, False, True, False, False], device=dev)
    record.call("out[mask] = a[3]", lambda: setitem(out, mask, a[3]))
    record.tensor("out after the mask", out)
    record.call("(out * out).sum().backward()", lambda: (out * out).sum().backward())
    record.grad("a.grad", a)


@scenario(id="rebuild.number_into_a_slice", rules=["R3"], topic="rebuild",
          lecture=f"{REBUILD}#fill-by-index")  # fmt: skip
def number_into_a_slice(T, record, rng):
    dev = record.device
    a = T.nn.Parameter(T.tensor(floats(rng, 3), device=dev))
    out = T.zeros(4, device=dev)
    record.call("out[0] = a.sum()", lambda: setitem(out, 0, a.sum()))
    k = scalar(rng)
    record.call("out[1:3] = k", lambda: setitem(out, slice(1, 3), k))
    record.call("out[3] = 2 (an int)", lambda: setitem(out, 3, 2))
    record.tensor("out", out)
    h = a * scalar(rng)
    record.call("h[1:] = 0.0", lambda: setitem(h, slice(1, None), 0.0))
    record.tensor("h", h)
    record.call("(out.sum() + h.sum()).backward()", lambda: (out.sum() + h.sum()).backward())
    record.grad("a.grad", a)


@scenario(id="numpy.detach_in_place_stops_requiring_grad", rules=["D2"], topic="numpy",
          lecture=f"{NUMPY}#detach")  # fmt: skip
def detach_in_place_stops_requiring_grad(T, record, rng):
    a = T.tensor(floats(rng, 3), requires_grad=True, device=record.device)
    y = a * scalar(rng)
    record.call("y.detach_()", lambda: y.detach_())
    record.value("y.requires_grad", y.requires_grad)
    record.value("y.is_leaf", y.is_leaf)
    record.call("y * 2 (computed from a detached y)", lambda: y * 2)
    record.call("y.requires_grad_()", lambda: y.requires_grad_())
    record.call("(y * y).sum().backward()", lambda: (y * y).sum().backward())
    record.grad("y.grad (a leaf again)", y)
    record.grad("a.grad (cut off)", a)


@scenario(id="rebuild.stack_and_cat_with_negative_dims", rules=["R2"], topic="rebuild",
          lecture=f"{REBUILD}#stack-and-cat")  # fmt: skip
def stack_and_cat_with_negative_dims(T, record, rng):
    dev = record.device
    a = T.tensor(floats(rng, (2, 3)), requires_grad=True, device=dev)
    b = T.tensor(floats(rng, (2, 3)), requires_grad=True, device=dev)
    calls = {
        "stack([a, b], dim=-1)": lambda: T.stack([a, b], dim=-1),
        "stack([a, b], dim=-3)": lambda: T.stack([a, b], dim=-3),
        "stack([a, b], dim=-4)": lambda: T.stack([a, b], dim=-4),
        "cat([a, b], dim=-1)": lambda: T.cat([a, b], dim=-1),
        "cat([a, b], dim=-2)": lambda: T.cat([a, b], dim=-2),
        "cat([a, b], dim=-3)": lambda: T.cat([a, b], dim=-3),
    }
    weight = T.tensor(floats(rng, 12), device=dev)
    for label, make in calls.items():
        out = record.call(label, make)
        if out is not None:
            loss = (out.reshape(12) * weight).sum()
            record.call(f"{label}: backward", lambda loss=loss: loss.backward())
    record.grad("a.grad", a)
    record.grad("b.grad", b)


@scenario(id="leaf.grad_version_counts_accumulation", rules=["L8"], topic="leaf",
          lecture=f"{LEAF}#accumulate-and-zero")  # fmt: skip
def grad_version_counts_accumulation(T, record, rng):
    a = T.tensor(floats(rng, 3), requires_grad=True, device=record.device)
    w = T.tensor(floats(rng, 3), device=record.device)
    for step in ("first", "second", "third"):
        record.call(f"{step} backward", lambda: (a * w).sum().backward())
        record.value(f"a.grad._version after the {step}", a.grad._version)
        record.grad(f"a.grad after the {step}", a)
