"""The detach_numpy exercise: its prose, the order of its answer cells and its visible tests.

`# %% [seam] NAME` cells are the student's answer cells: their starting text is the graded
function NAME of minigrad/seams/detach_numpy.py (signature, docstring, solution markers).
"""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: the bridge to NumPy
#
# Four functions of `minigrad/seams/detach_numpy.py`
# decide where a graph is cut and when memory is shared. A tensor holds its array in
# `tensor._data`, its device in `tensor._device`, its dtype in `tensor._dtype`, and counts its
# in-place changes on `tensor._version_counter` (an object with a `value`), which aliases of
# the same memory share. `Tensor._make(array, device, dtype)` wraps an array, without a copy,
# into a fresh leaf that does not require grad.
#
# **`detach(tensor)`** is `tensor.detach()`: the same memory and version counter, no history.

# %% [seam] detach

# %% [markdown]
# **`detach_(tensor)`** is `tensor.detach_()`: the tensor itself leaves the graph. A view
# cannot (its history is its base's).

# %% [seam] detach_

# %% [markdown]
# **`numpy(tensor, force)`** is `tensor.numpy()`: the tensor's own memory as a NumPy array,
# so that a write through either side shows in the other. PyTorch refuses a GPU tensor (NumPy
# arrays live in host memory) and a tensor that requires grad (the array would let you change
# values behind autograd's back), unless `force=True`.

# %% [seam] numpy

# %% [markdown]
# **`from_numpy(array)`** is `minigrad.from_numpy(array)`: a tensor on the array's own
# memory, with its dtype.

# %% [seam] from_numpy

# %% [markdown]
# ### Check: `numpy()` refuses what PyTorch refuses (D1)

# %% [test] D1
a = tensor([1.0, 2.0], requires_grad=True)
try:
    a.numpy()
except RuntimeError as error:
    assert str(error) == msg.NUMPY_REQUIRES_GRAD
else:
    raise AssertionError("numpy() of a tensor that requires grad must raise")
with no_grad():
    array = a.numpy()
array[0] = 5.0
assert a.tolist() == [5.0, 2.0]
assert a.detach().numpy().tolist() == [5.0, 2.0]

# %% [markdown]
# ### Check: `detach()` and `detach_()` (D2)

# %% [test] D2
a = tensor([1.0, 2.0, 3.0], requires_grad=True)
d = a.detach()
assert d.is_leaf and not d.requires_grad and d._base is None
with no_grad():
    d.zero_()
assert a.tolist() == [0.0, 0.0, 0.0] and a._version == d._version == 1
y = a * 2
assert y.detach_() is y and y.is_leaf and not y.requires_grad
try:
    (a * 2)[0:2].detach_()
except RuntimeError as error:
    assert str(error) == msg.DETACH_VIEW_INPLACE
else:
    raise AssertionError("detach_() of a view must raise")

# %% [markdown]
# ### Check: both directions share memory (D3)

# %% [test] D3
array = np.array([1.0, 2.0, 3.0])
t = minigrad.from_numpy(array)
assert t.dtype is float64 and t.is_leaf and not t.requires_grad
array[0] = 10.0
assert t.tolist() == [10.0, 2.0, 3.0]
t.add_(1)
assert array.tolist() == [11.0, 3.0, 4.0]
assert np.shares_memory(t.numpy(), array)

# %% [markdown]
# ### On a GPU
#
# A GPU tensor's memory is not NumPy's: `numpy()` refuses it and says how to copy it first.

# %% [cuda]
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
d = x.detach()
assert d.device == x.device and not d.requires_grad
try:
    d.numpy()
except TypeError as error:
    assert str(error).startswith("can't convert cuda:0 device type tensor to numpy")
else:
    raise AssertionError("numpy() of a GPU tensor must raise")
