"""Student part of the detach_numpy assignment: detach(), detach_(), numpy(), from_numpy()."""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: `detach()`, `detach_()`, `numpy()` and `from_numpy()`
#
# NumPy has no graph, so the bridge between the two libraries is where graphs get cut. Four
# functions make that bridge; the Tensor's methods call them.
#
# **`detach_tensor(t)`** is `t.detach()`: a new tensor, outside the graph (a leaf that does
# not require grad), that **shares** `t`'s memory (use `wrap(t._data, t.device)`: the same
# array object, no copy) **and its version counter** (`share_version(alias, t)`), so that an
# in-place change through either is seen by both, and by any node that saved `t`. It is
# not a view: its `_base` stays None.
#
# **`detach_tensor_(t)`** is `t.detach_()`: it turns `t` itself into a leaf that does not
# require grad (drop its `_grad_fn`, clear `_requires_grad`) and returns `t`. A view cannot
# be detached in place: refuse it (`t._base is not None`) with `DETACH_VIEW_ERROR`.

# %%
DETACH_VIEW_ERROR = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
    "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
    "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
    "torch/optim/optimizer.py as the solution."
)


# %% [solution]
def detach_tensor(t):
    """t.detach(): same memory and version counter, no history."""
    ### BEGIN SOLUTION
    alias = wrap(t._data, t.device)
    share_version(alias, t)
    return alias
    ### END SOLUTION


def detach_tensor_(t):
    """t.detach_(): t itself becomes a leaf that does not require grad; views refuse."""
    ### BEGIN SOLUTION
    if t._base is not None:
        raise RuntimeError(DETACH_VIEW_ERROR)
    set_grad_fn(t, None)
    t._requires_grad = False
    return t
    ### END SOLUTION


# %% [test] D2
a = tensor([1.0, 2.0, 3.0], requires_grad=True)
d = a.detach()
assert d.is_leaf and not d.requires_grad and d._base is None
d.zero_()
assert a.tolist() == [0.0, 0.0, 0.0] and a._version == d._version == 1
y = a * 2
assert y.detach_() is y and y.is_leaf and not y.requires_grad
try:
    (a * 2)[0:2].detach_()
except RuntimeError as error:
    assert str(error) == DETACH_VIEW_ERROR
else:
    raise AssertionError("detach_() of a view must raise")


# %% [markdown]
# **`tensor_to_numpy(t, force)`** is `t.numpy()`. It returns the tensor's own array (no copy:
# writing into the array changes the tensor, and the other way round). It refuses:
#
# - a tensor that is not on the CPU, first of all, with a `TypeError`:
#   `can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.`
#   (with the tensor's device in place of `cuda:0`);
# - a tensor that requires grad, with a `RuntimeError`: `NUMPY_WITH_GRAD_ERROR`, except
#   when grad mode is off (inside `no_grad()`, PyTorch allows it) or when `force=True`
#   (which returns the values of `t.detach().cpu()`).
#
# **`from_numpy(array)`** makes a tensor on the CPU that **shares** the array's memory and
# keeps its dtype (a float64 array gives a float64 tensor). PyTorch refuses arrays with
# negative strides (`array[::-1]`) with `NEGATIVE_STRIDES_ERROR` (a `ValueError`), and warns
# about a read-only array (`array.flags.writeable` False) that the tensor could write
# into anyway: `READ_ONLY_WARNING`, once per process (`warn_once(message)`).

# %%
NUMPY_WITH_GRAD_ERROR = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)
NEGATIVE_STRIDES_ERROR = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) "
)
READ_ONLY_WARNING = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor. This "
    "type of warning will be suppressed for the rest of this program."
)


# %% [solution]
def tensor_to_numpy(t, force=False):
    """t.numpy(): the tensor's own array; refused for GPU tensors and tensors needing grad."""
    ### BEGIN SOLUTION
    if force:
        return to_host(t._data)
    if t.device.type != "cpu":
        raise TypeError(
            f"can't convert {t.device} device type tensor to numpy. Use Tensor.cpu() to copy "
            "the tensor to host memory first."
        )
    if t.requires_grad and is_grad_enabled():
        raise RuntimeError(NUMPY_WITH_GRAD_ERROR)
    return t._data
    ### END SOLUTION


def from_numpy(array):
    """A CPU tensor sharing `array`'s memory, with its dtype."""
    ### BEGIN SOLUTION
    if any(stride < 0 for stride in array.strides):
        raise ValueError(NEGATIVE_STRIDES_ERROR)
    if not array.flags.writeable:
        warn_once(READ_ONLY_WARNING)
    return wrap(array, CPU)
    ### END SOLUTION


# %% [test] D1
a = tensor([1.0, 2.0], requires_grad=True)
try:
    a.numpy()
except RuntimeError as error:
    assert str(error) == NUMPY_WITH_GRAD_ERROR
else:
    raise AssertionError("numpy() of a tensor that requires grad must raise")
with no_grad():
    array = a.numpy()
array[0] = 5.0
assert a.tolist() == [5.0, 2.0]
assert a.detach().numpy().tolist() == [5.0, 2.0]

# %% [test] D3
array = np.array([1.0, 2.0, 3.0])
t = from_numpy(array)
assert t.dtype is float64 and t.is_leaf and not t.requires_grad
array[0] = 10.0
assert t.tolist() == [10.0, 2.0, 3.0]
t.add_(1)
assert array.tolist() == [11.0, 3.0, 4.0]
assert np.shares_memory(t.numpy(), array)

# %% [markdown]
# ### On a GPU
#
# A GPU tensor's data is a CuPy array; `numpy()` refuses it before anything else.

# %% [cuda]
require_gpu()
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
d = x.detach()
assert d.device == x.device and not d.requires_grad
try:
    d.numpy()
except TypeError as error:
    assert str(error).startswith("can't convert cuda:0 device type tensor to numpy")
else:
    raise AssertionError("numpy() of a GPU tensor must raise")
