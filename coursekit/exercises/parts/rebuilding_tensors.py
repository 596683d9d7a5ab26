"""Student part of the rebuilding_tensors assignment: tensor(), stack(), cat(), x[i] = v."""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: `tensor()`, `stack()`, `cat()` and `x[i] = v`
#
# Four ways to put values together, and only some of them keep the graph.
#
# **`tensor(data, dtype=None, device=None, requires_grad=False)`** always **copies values**
# into a new leaf. `data` may be a number, a (nested) list or tuple, a NumPy array or a
# tensor:
#
# - a tensor given directly is copied (values only) with the warning `COPY_CONSTRUCT_WARNING`
#   (a `UserWarning`); the copy keeps its dtype and device unless asked otherwise;
# - a NumPy array keeps its dtype;
# - in a list, each element that is a tensor is turned into a Python number with `float()`,
#   `int()` or `bool()` by its dtype. That is where the graph is cut, and where PyTorch's
#   checks already live in the skeleton (`Tensor._scalar`): a tensor of more than one
#   element is refused, and one that requires grad warns (once per process);
# - the dtype, when not given, is inferred: Python floats give float32, ints int64, bools
#   bool; tensors and NumPy values in a list bring their own dtype; mixing promotes
#   (`promote(*dtypes)`, `infer_dtype(value)`, `dtype_of(array)` help);
# - `requires_grad=True` is refused for non-floating dtypes with
#   `Only Tensors of floating point and complex dtype can require gradients`
#   (`factory(array, dtype, device, requires_grad)` builds the leaf and checks that).

# %%
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor)."
)


# %% [solution]
def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf holding a copy of `data`'s values: never part of any graph."""
    ### BEGIN SOLUTION
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
        values = to_host(data._data).copy()
        return factory(values, dtype or data.dtype, device or data.device, requires_grad)
    if isinstance(data, (np.ndarray, np.generic)):
        return factory(np.array(data), dtype, device, requires_grad)
    kinds = []

    def number(x):
        if isinstance(x, (list, tuple)):
            return [number(v) for v in x]
        if isinstance(x, Tensor):
            kinds.append(x.dtype)
            convert_scalar = {"f": float, "i": int, "b": bool}[x.dtype.kind]
            return convert_scalar(x)
        kinds.append(infer_dtype(x))
        return x.item() if isinstance(x, np.generic) else x

    values = number(data)
    kind = dtype or (promote(*kinds) if kinds else DEFAULT_FLOAT)
    return factory(np.array(values, dtype=kind.numpy), kind, device, requires_grad)
    ### END SOLUTION


# %% [test] R1
a = tensor([1.0, 2.0], requires_grad=True)
parts = [a[0] * 2, a[1] ** 2]
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    rebuilt = tensor(parts)
assert rebuilt.is_leaf and not rebuilt.requires_grad and rebuilt.tolist() == [2.0, 4.0]
try:
    tensor([a, a])
except ValueError as error:
    assert str(error) == "only one element tensors can be converted to Python scalars"
else:
    raise AssertionError("tensor() of tensors with two elements must raise")


# %% [markdown]
# **`stack(tensors, dim=0)`** and **`cat(tensors, dim=0)`** build one tensor out of several
# and **keep the graph**: the result's node (`StackBackward0`, `CatBackward0`) has one edge
# per input, and its backward hands each input its slice of the gradient (in the input's
# dtype). `record_history` links the result to the graph, as for any operation.
#
# - `stack` puts equally shaped tensors along a new dimension `dim` (0-d parts are fine);
# - `cat` joins tensors along an existing dimension `dim`; a 0-d tensor has no dimension to
#   join along: refuse it with `zero-dimensional tensor (at position i) cannot be concatenated`
#   (a `RuntimeError`, `i` the position of the first 0-d part).
#
# Both promote dtypes (`result_dtype(*tensors)`) and use the array library of the tensors'
# device: `xp = array_module(device)` then `xp.stack`, `xp.concatenate`, `xp.split`.


# %% [solution]
class StackBackward0(Node):
    def __init__(self, tensors, dim):
        super().__init__(*tensors)
        self.dim = dim
        self.dtypes = [t.dtype for t in tensors]

    def backward(self, grad):
        ### BEGIN SOLUTION
        xp = array_module_of(grad)
        parts = xp.split(grad, len(self.dtypes), axis=self.dim)
        return tuple(p.squeeze(self.dim).astype(d.numpy) for p, d in zip(parts, self.dtypes))
        ### END SOLUTION


def wrap_dim(dim, rank):
    """`dim` counted from the front (negative dims count from the back), or PyTorch's error."""
    ### BEGIN SOLUTION
    if not -rank <= dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})"
        )
    return dim % rank
    ### END SOLUTION


def stack(tensors, dim=0):
    """One tensor with the inputs along a new dimension `dim`, keeping the graph."""
    ### BEGIN SOLUTION
    tensors = list(tensors)
    kind = result_dtype(*tensors)
    dim = wrap_dim(dim, tensors[0].ndim + 1)  # the result has one dimension more
    xp = array_module(tensors[0].device)
    out = xp.stack([t._data.astype(kind.numpy) for t in tensors], axis=dim)
    return make_result(out, tensors[0].device, tensors, lambda: StackBackward0(tensors, dim))
    ### END SOLUTION


class CatBackward0(Node):
    def __init__(self, tensors, dim):
        super().__init__(*tensors)
        self.dim = dim
        self.sizes = [t.shape[dim] for t in tensors]
        self.dtypes = [t.dtype for t in tensors]

    def backward(self, grad):
        ### BEGIN SOLUTION
        xp = array_module_of(grad)
        cuts = list(itertools.accumulate(self.sizes))[:-1]
        parts = xp.split(grad, cuts, axis=self.dim)
        return tuple(p.astype(d.numpy) for p, d in zip(parts, self.dtypes))
        ### END SOLUTION


def cat(tensors, dim=0):
    """The inputs joined along dimension `dim`, keeping the graph; 0-d inputs refused."""
    ### BEGIN SOLUTION
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kind = result_dtype(*tensors)
    dim = wrap_dim(dim, tensors[0].ndim)
    xp = array_module(tensors[0].device)
    out = xp.concatenate([t._data.astype(kind.numpy) for t in tensors], axis=dim)
    return make_result(out, tensors[0].device, tensors, lambda: CatBackward0(tensors, dim))
    ### END SOLUTION


# %% [test] R2
u = tensor([1.0, 2.0], requires_grad=True)
s = stack([u[0] * 2, u[1] ** 2])
assert type(s.grad_fn).__name__ == "StackBackward0" and s.tolist() == [2.0, 4.0]
c = cat([u, u * 3])
assert type(c.grad_fn).__name__ == "CatBackward0" and c.shape == (4,)
(s.sum() + c.sum()).backward()
assert u.grad.tolist() == [6.0, 8.0]
try:
    cat([u[0], u[1]])
except RuntimeError as error:
    assert str(error) == "zero-dimensional tensor (at position 0) cannot be concatenated"
else:
    raise AssertionError("cat() of 0-d tensors must raise")


# %% [markdown]
# **`setitem(t, index, value)`** is `t[index] = value`. Filling a tensor by index is an
# in-place change, so it goes through `inplace(target, compute, others, make_node)` (the
# skeleton's one path for in-place operations: PyTorch's checks, the write, the version
# bump, and the rewriting of history). Writing through the path is what keeps the graph: a
# filled value that requires grad gets an edge from the filled tensor's new history.
#
# - a value that is a Python number becomes a tensor of `t`'s dtype first
#   (`as_operand(value, t, t.dtype)`);
# - with a basic index (integers, slices, `None`, `...`), the target is the view `t[index]`;
#   `compute` returns the value (broadcast to the view's shape, in its dtype), and the node
#   is `CopyBackwards(view, value, old=old)`. Since the target is a view, the skeleton
#   records it on the base as `CopySlices`;
# - with an advanced index (`is_advanced(item)` for an item of `split_index(index)`), the
#   target is `t` itself: `compute` returns a copy of `t`'s values with the indexed ones
#   replaced, and the node is `IndexPutBackward0(t, value, arrays, old=old)` where `arrays`
#   is `index_arrays(t, split_index(index))`.


# %% [solution]
def setitem(t, index, value):
    """t[index] = value, recorded in t's history (CopySlices or IndexPutBackward0)."""
    ### BEGIN SOLUTION
    value = as_operand(value, t, t.dtype)
    parts = split_index(index)
    if any(is_advanced(item) for item in parts):
        arrays = index_arrays(t, parts)

        def put(old_values):
            new = old_values.copy()
            new[arrays] = value._data.astype(old_values.dtype)
            return new

        return inplace(t, put, [value], lambda old: IndexPutBackward0(t, value, arrays, old=old))
    target = getitem(t, index)
    xp = array_module(t.device)
    values = xp.broadcast_to(value._data, target.shape).astype(target._data.dtype)
    return inplace(
        target,
        lambda old_values: values,
        [value],
        lambda old: CopyBackwards(target, value, old=old),
    )
    ### END SOLUTION


# %% [test] R3
p = tensor([1.0, 2.0], requires_grad=True)
filled = zeros(3)
filled[0] = p[0] * 2
filled[1] = p[1]
assert type(filled.grad_fn).__name__ == "CopySlices" and filled._version == 2
(filled * tensor([1.0, 1.0, 1.0])).sum().backward()
assert p.grad.tolist() == [2.0, 1.0]

# %% [markdown]
# ### On a GPU
#
# `stack` and `cat` work on any device through `array_module`.

# %% [cuda]
require_gpu()
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
s = stack([x[0], x[1] * 2])
s.sum().backward()
assert s.device == device("cuda:0") and x.grad.tolist() == [1.0, 2.0]
