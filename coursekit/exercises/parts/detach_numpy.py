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

# %% [zh-CN]
# ## 你的部分：通往 NumPy 的桥梁
#
# `minigrad/seams/detach_numpy.py` 中的四个函数决定计算图在哪里被切断、内存何时被共享。张量把它的
# 数组存放在 `tensor._data` 中，设备在 `tensor._device` 中，dtype 在 `tensor._dtype` 中，并在
# `tensor._version_counter`（一个带有 `value` 的对象）上计数它的原地修改，同一块内存的各个别名共享
# 这个计数器。`Tensor._make(array, device, dtype)` 把一个数组不经复制地包装成一个不需要梯度的新叶子
# 节点。
#
# **`detach(tensor)`** 就是 `tensor.detach()`：同样的内存和版本计数器，没有历史。

# %% [seam] detach

# %% [zh-CN]
# `tensor.detach()`：一个位于计算图之外的新张量（一个不需要梯度的叶子节点），持有同一个数组
# （不复制：`Tensor._make(array, device, dtype)`），并共享源张量的版本计数器，使得通过任何一方做的
# 原地修改都能被双方、以及保存了源张量的任何节点看到。它不是视图：它的 `_base` 仍为 None（D2、I1）。

# %% [markdown]
# **`detach_(tensor)`** is `tensor.detach_()`: the tensor itself leaves the graph. A view
# cannot (its history is its base's).

# %% [zh-CN]
# **`detach_(tensor)`** 就是 `tensor.detach_()`：张量本身离开计算图。视图做不到（它的历史属于它的
# 基张量）。

# %% [seam] detach_

# %% [zh-CN]
# `tensor.detach_()`：张量本身变成一个不需要梯度的叶子节点（没有 `_grad_fn`，`_requires_grad`
# 为 False），并被返回。视图（设置了 `_base`）不能以原地方式分离：以 `msg.DETACH_VIEW_INPLACE`
# 拒绝（D2）。

# %% [markdown]
# **`numpy(tensor, force)`** is `tensor.numpy()`: the tensor's own memory as a NumPy array,
# so that a write through either side shows in the other. PyTorch refuses a GPU tensor (NumPy
# arrays live in host memory) and a tensor that requires grad (the array would let you change
# values behind autograd's back), unless `force=True`.

# %% [zh-CN]
# **`numpy(tensor, force)`** 就是 `tensor.numpy()`：把张量自己的内存作为 NumPy 数组，使得通过任何
# 一边的写入都在另一边显现。PyTorch 拒绝 GPU 张量（NumPy 数组存放在主机内存中）以及需要梯度的张量
# （数组会让你背着自动微分修改数值），除非 `force=True`。

# %% [seam] numpy

# %% [zh-CN]
# `tensor.numpy(force=...)`：一个与张量共享内存的 NumPy 数组（它自己数组的一个视图，这样写入就是
# 双向的）。首先，对不在 CPU 上的张量拒绝（`TypeError`，`msg.numpy_of_device(device)`），除非
# `force`，这时返回 `tensor.detach().cpu()` 的数值；然后，在梯度模式开启时
# （`grad_mode._enabled`：在 `no_grad()` 里面 PyTorch 允许这样做）对需要梯度的张量拒绝，
# `msg.NUMPY_REQUIRES_GRAD`，除非 `force`（D1、D3、V4）。

# %% [markdown]
# **`from_numpy(array)`** is `minigrad.from_numpy(array)`: a tensor on the array's own
# memory, with its dtype.

# %% [zh-CN]
# **`from_numpy(array)`** 就是 `minigrad.from_numpy(array)`：一个建立在数组自己内存上的张量，
# dtype 与数组相同。

# %% [seam] from_numpy

# %% [zh-CN]
# `minigrad.from_numpy(array)`：一个位于 CPU 上、持有 `array` 本身的叶子节点（共享内存，dtype
# 与数组相同）。拒绝不是 ndarray 的东西（`TypeError: expected np.ndarray (got
# list)`）以及步长为负的数组（`ValueError`，`msg.NEGATIVE_STRIDES`）；对一个只读、但张量仍可能
# 写入的数组，每个进程警告一次（`warn(text, once_key=...)`）：`msg.NON_WRITABLE_NUMPY`（D3）。

# %% [markdown]
# ### Check: `numpy()` refuses what PyTorch refuses (D1)

# %% [zh-CN]
# ### 检查：`numpy()` 拒绝 PyTorch 拒绝的东西（D1）

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

# %% [zh-CN]
# ### 检查：`detach()` 与 `detach_()`（D2）

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

# %% [zh-CN]
# ### 检查：两个方向都共享内存（D3）

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

# %% [zh-CN]
# ### 在 GPU 上
#
# GPU 张量的内存不是 NumPy 的：`numpy()` 拒绝它，并说明如何先把它复制过来。

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
