"""The leaf_nodes exercise: its prose, the order of its answer cells and its visible tests.

`# %% [seam] NAME` cells are the student's answer cells: their starting text is the graded
function NAME of minigrad/seams/leaf_nodes.py (signature, docstring, solution markers).
"""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: who keeps a gradient
#
# minigrad calls four functions whenever a gradient is read, set or delivered: they are in
# `minigrad/seams/leaf_nodes.py`, and here you write
# them. A tensor's raw gradient slot is `tensor._grad`; `tensor.grad_fn` is None for a leaf;
# `tensor._retains_grad` says whether `retain_grad()` was called on it.
#
# **`read_grad(tensor)`** is what `tensor.grad` returns. Reading the `.grad` of a non-leaf
# that does not retain its gradient, while it has none, is the classic mistake: PyTorch
# returns None *and* warns, with the text `msg.NONLEAF_GRAD_ACCESS` (use `warn(...)`, which
# points the warning at the user's line).

# %% [zh-CN]
# ## 你的部分：谁保留梯度
#
# 每当读取、设置或传递梯度时，minigrad 都会调用四个函数：它们位于 `minigrad/seams/leaf_nodes.py`，你在这里编写它们。张量的原始梯度槽是 `tensor._grad`；叶子节点的 `tensor.grad_fn` 为 None；`tensor._retains_grad` 表示是否对它调用过 `retain_grad()`。
#
# **`read_grad(tensor)`** 就是 `tensor.grad` 返回的东西。读取一个不保留梯度、也还没有梯度的非叶子节点的 `.grad`，是经典的错误：PyTorch 返回 None，*并且*发出警告，文本为 `msg.NONLEAF_GRAD_ACCESS`（请使用 `warn(...)`，它让警告指向用户的那一行代码）。

# %% [seam] read_grad

# %% [zh-CN]
# `tensor.grad` 返回的东西：存储的梯度；一个不保留梯度的非叶子节点在还没有梯度时被读取，
# 则同时发出 PyTorch 的警告（L3）。

# %% [markdown]
# **`retain_grad(tensor)`** asks a non-leaf to keep its gradient. On a leaf it changes
# nothing (a leaf keeps its gradient anyway, and `retains_grad` stays False); on a tensor
# that does not require grad it raises `RuntimeError(msg.RETAIN_GRAD_NO_GRAD)`. A non-leaf's
# node hands the gradient on during `backward()` to the tensors listed in its `_retained`
# (a list of `(output number, tensor)` pairs, or None): add `(tensor._output_nr, tensor)`.

# %% [zh-CN]
# **`retain_grad(tensor)`** 让一个非叶子节点保留它的梯度。对叶子节点它什么都不改变（叶子节点本来就保留梯度，`retains_grad` 仍为 False）；对不需要梯度的张量，它抛出 `RuntimeError(msg.RETAIN_GRAD_NO_GRAD)`。在 `backward()` 期间，非叶子节点所对应的节点会把梯度交给它的 `_retained` 中列出的张量（一个由 `(output number, tensor)`，即（输出编号, 张量）对组成的列表，或 None）：把 `(tensor._output_nr, tensor)` 加进去。

# %% [seam] retain_grad

# %% [zh-CN]
# `tensor.retain_grad()`：非叶子节点从此保留它的梯度；叶子节点本来就保留（什么都不改变）；
# 对不需要梯度的张量则拒绝（L4）。

# %% [markdown]
# **`accumulate_grad(tensor, grad, version, retained)`** is called by `backward()` with the
# gradient (a NumPy or CuPy array) of each leaf that requires grad and each non-leaf that
# retains its gradient. The rules, each one a line or two:
#
# - a leaf whose `requires_grad` was turned off after the graph was built gets nothing;
# - the gradient is stored in the tensor's dtype (`grad.astype(...)`, then `version` is 0);
# - a leaf's first gradient becomes `.grad`: a new tensor
#   (`Tensor._make(array, tensor._device, tensor._dtype)`) on the engine's buffer, whose
#   version counter (`_version_counter.value`) starts at `version`. `version` None means the
#   buffer is shared with something else (the gradient you passed to `backward()`, say):
#   copy it, and that copy counts as one change (version 1). Two leaves never share a gradient;
# - a leaf's later gradients are added *in place*: the same object stays `.grad`, its version
#   goes up by one;
# - a retained non-leaf gets a new tensor every time: a copy the first time, then the sum of
#   the old gradient and the new one (version 0).

# %% [zh-CN]
# **`accumulate_grad(tensor, grad, version, retained)`** 由 `backward()` 调用，传入每个需要梯度的叶子节点、以及每个保留梯度的非叶子节点的梯度（一个 NumPy 或 CuPy 数组）。规则如下，每条一两行：
#
# - 计算图建好之后才关掉 `requires_grad` 的叶子节点，什么也得不到；
# - 梯度以张量自己的 dtype 存储（`grad.astype(...)`，此时 `version` 为 0）；
# - 叶子节点的第一个梯度成为 `.grad`：一个建立在引擎缓冲区上的新张量（`Tensor._make(array, tensor._device, tensor._dtype)`），它的版本计数器（`_version_counter.value`）从 `version` 开始。`version` 为 None 表示这个缓冲区与别的东西共享（比如你传给 `backward()` 的梯度）：复制它，而这次复制算作一次修改（版本 1）。两个叶子节点绝不共享同一个梯度；
# - 叶子节点之后的梯度以*原地*方式累加：`.grad` 仍是同一个对象，它的版本加一；
# - 保留梯度的非叶子节点每次都得到一个新张量：第一次是一份副本，之后是旧梯度与新梯度之和（版本 0）。

# %% [seam] accumulate_grad

# %% [zh-CN]
# 把传入的梯度（一个数组）以张量自己的 dtype 加进 `tensor.grad`。
#
# 对保留梯度的非叶子节点，`retained` 为 True；对叶子节点为 False。计算图建好之后才关掉
# `requires_grad` 的叶子节点什么也得不到（L12）。叶子节点的第一个梯度接管引擎的缓冲区；
# `version` 是这个缓冲区经历过的原地加法次数，缓冲区与别的东西共享时为 None（这时复制它，
# 而这次复制算作一次修改）。叶子节点之后的梯度以原地方式累加，每次一个版本（L8、L11）。
# 保留梯度的非叶子节点的梯度第一次被复制，之后以非原地方式求和，存入一个新张量（L12）。

# %% [markdown]
# **`set_grad(tensor, value)`** is `tensor.grad = value`. None is always allowed. Otherwise
# PyTorch checks, in this order, and raises with its own words (all in `msg`): a `Tensor`
# (`TypeError(msg.GRAD_NOT_TENSOR.format(msg.type_name(value)))`), not the tensor itself
# (`msg.GRAD_SELF`), the same dtype (`msg.grad_dtype(cpp_dtype_name(value._dtype),
# scalar_type_name(tensor._dtype))`), the same device (`msg.grad_device`) and the same shape
# (`msg.grad_size`).

# %% [zh-CN]
# **`set_grad(tensor, value)`** 就是 `tensor.grad = value`。None 总是允许的。否则 PyTorch 按以下顺序检查，并用它自己的原话抛出异常（都在 `msg` 中）：是一个 `Tensor`（`TypeError(msg.GRAD_NOT_TENSOR.format(msg.type_name(value)))`），不是该张量本身（`msg.GRAD_SELF`），dtype 相同（`msg.grad_dtype(cpp_dtype_name(value._dtype), scalar_type_name(tensor._dtype))`），设备相同（`msg.grad_device`），形状相同（`msg.grad_size`）。

# %% [seam] set_grad

# %% [zh-CN]
# `tensor.grad = value`：None，或者一个 dtype、设备和形状都相同、且不是 `tensor` 本身的张量；
# 其他任何值都以 PyTorch 的消息拒绝（L13）。

# %% [markdown]
# ### Check: who gets `.grad` (L3) and `retain_grad` (L4)

# %% [zh-CN]
# ### 检查：谁得到 `.grad`（L3）与 `retain_grad`（L4）

# %% [test] L3
x = tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * x
h.sum().backward()
assert x.grad.tolist() == [2.0, 4.0, 6.0]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert h.grad is None
assert [str(w.message) for w in caught] == [msg.NONLEAF_GRAD_ACCESS]

# %% [test] L4
x = tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.retain_grad()
(h * h).sum().backward()
assert h.retains_grad and h.grad.tolist() == [6.0, 12.0]
x.retain_grad()
assert not x.retains_grad
try:
    tensor([1.0]).retain_grad()
except RuntimeError as error:
    assert str(error) == "can't retain_grad on Tensor that has requires_grad=False"
else:
    raise AssertionError("retain_grad() on a tensor that does not require grad must raise")

# %% [markdown]
# ### Check: accumulation (L8), gradients that own their memory (L11), late changes (L12)

# %% [zh-CN]
# ### 检查：累加（L8）、拥有自己内存的梯度（L11）、迟到的修改（L12）

# %% [test] L8
x = tensor([1.0, 2.0], requires_grad=True)
(x * 3).sum().backward()
first = x.grad
(x * x).sum().backward()
assert x.grad is first and x.grad.tolist() == [5.0, 7.0]
x.grad = None
(x * 3).sum().backward()
assert x.grad.tolist() == [3.0, 3.0]

# %% [test] L11
a = tensor([1.0, 2.0], requires_grad=True)
b = tensor([3.0, 4.0], requires_grad=True)
(a + b).sum().backward()
a.grad.add_(10)
assert b.grad.tolist() == [1.0, 1.0], "a.grad and b.grad must be two tensors"
seed = tensor([1.0, 1.0])
(a * 1).backward(seed)
assert a.grad.tolist() == [12.0, 12.0] and seed.tolist() == [1.0, 1.0]

# %% [test] L12
w = tensor([1.0, 2.0], requires_grad=True)
y = (w * 2).sum()
w.requires_grad_(False)
y.backward()
assert w.grad is None, "a leaf turned off before backward() gets no gradient"
x = tensor([1.0, 2.0], requires_grad=True)
h = x * 2
h.retain_grad()
(h * 3).sum().backward(retain_graph=True)
(h * 3).sum().backward()
assert h.grad.tolist() == [6.0, 6.0], "a retained non-leaf's .grad accumulates too"

# %% [markdown]
# ### Check: the `.grad` setter (L13)

# %% [zh-CN]
# ### 检查：`.grad` 的设置器（L13）

# %% [test] L13
x = tensor([1.0, 2.0], requires_grad=True)
x.grad = tensor([0.5, 0.5])
assert x.grad.tolist() == [0.5, 0.5]
for value, error in [("0.5", TypeError), (x, RuntimeError), (tensor([1, 2]), RuntimeError),
                     (tensor([1.0]), RuntimeError)]:  # fmt: skip
    try:
        x.grad = value
    except error:
        pass
    else:
        raise AssertionError(f"x.grad = {value!r} must raise {error.__name__}")

# %% [markdown]
# ### On a GPU
#
# The same engine runs on a GPU when CuPy and a CUDA device are present: the gradient
# arrays are then CuPy's, and nothing in your functions changes.

# %% [zh-CN]
# ### 在 GPU 上
#
# 有 CuPy 和 CUDA 设备时，同一个引擎就在 GPU 上运行：这时梯度数组是 CuPy 的数组，而你的函数一处都不用改。

# %% [cuda]
x = tensor([1.0, 2.0], device="cuda", requires_grad=True)
(x * x).sum().backward()
assert x.grad.device == device("cuda:0") and x.grad.tolist() == [2.0, 4.0]
