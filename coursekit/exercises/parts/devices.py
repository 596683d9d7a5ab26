"""Student part of the devices assignment: .to(device / dtype) and its gradient."""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: `.to()`, a recorded copy
#
# `t.to(...)`, `t.cuda()`, `t.cpu()`, `t.float()`, `t.double()`, `t.long()` all end in
# **`convert(t, where, kind, copy)`**: `where` is the target device (or None: unchanged),
# `kind` the target dtype (or None: unchanged), `copy` asks for a copy even when nothing
# changes.
#
# - When nothing changes (same device, same dtype, no `copy`), PyTorch returns **the tensor
#   itself**: the same object, still a leaf if it was one.
# - Otherwise it returns a **copy**: new memory on the target device, in the target dtype
#   (`move_array(array, from_device, to_device)` moves an array; `.astype(kind.numpy)`
#   converts it). The copy is the result of an operation on `t`, so it goes through
#   `record_history` with a `ToCopyBackward0` node: when `t` requires grad, the copy is a
#   **non-leaf**, and `t.cuda()` of a leaf is no longer the leaf you made.
# - `ToCopyBackward0.backward` returns the gradient **to the source**: on the source's device
#   and in the source's dtype (the node remembers both).
#
# Converting to an integer dtype or to bool is not differentiable: such a result never
# requires grad (it stays a leaf).


# %% [solution]
class ToCopyBackward0(Node):
    def __init__(self, source):
        super().__init__(source)
        self.source_device = source.device
        self.source_dtype = source.dtype

    def backward(self, grad):
        ### BEGIN SOLUTION
        here = "cpu" if isinstance(grad, np.ndarray) else "cuda"
        back = move_array(grad, here, self.source_device)
        return (back.astype(self.source_dtype.numpy, copy=False),)
        ### END SOLUTION


def convert(t, where=None, kind=None, copy=False):
    """t.to(device=where, dtype=kind): t itself when nothing changes, else a recorded copy."""
    ### BEGIN SOLUTION
    where = t.device if where is None else as_device(where)
    kind = t.dtype if kind is None else kind
    if where == t.device and kind is t.dtype and not copy:
        return t
    array = move_array(t._data, t.device, where)
    array = array_module(where).array(array, dtype=kind.numpy, copy=True)
    if not kind.is_floating_point:
        return wrap(array, where)
    return make_result(array, where, [t], lambda: ToCopyBackward0(t))
    ### END SOLUTION


# %% [test] V1
x = tensor([1.0, 2.0], requires_grad=True)
assert x.to("cpu") is x and x.float() is x and x.to(float32) is x
y = x.double()
assert y is not x and y.dtype is float64
assert not y.is_leaf and type(y.grad_fn).__name__ == "ToCopyBackward0"

# %% [test] V2
x = tensor([1.0, 2.0], requires_grad=True)
(x.double() * 3).sum().backward()
assert x.grad.dtype is float32 and x.grad.tolist() == [3.0, 3.0]

# %% [test] V3
z = tensor([1.0, 2.0], device="cpu", requires_grad=True)
assert z.is_leaf
m = tensor([1, 2]).double().requires_grad_()
assert m.is_leaf and m.requires_grad and m.dtype is float64

# %% [test] V5
model = nn.Linear(2, 1)
weight = model.weight
assert model.to(float64) is model
assert model.weight is weight and weight.dtype is float64 and weight.is_leaf

# %% [markdown]
# ### On a GPU
#
# `.cuda()` of a leaf is a non-leaf copy; its gradient comes back to the CPU leaf.

# %% [cuda]
require_gpu()
x = tensor([1.0, 2.0], requires_grad=True)
y = x.cuda()
assert y.device == device("cuda:0") and not y.is_leaf
(y * 2).sum().backward()
assert x.grad.device == device("cpu") and x.grad.tolist() == [2.0, 2.0]
