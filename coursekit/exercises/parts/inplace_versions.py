"""The inplace_versions exercise: its prose, the order of its answer cells and its visible
tests.

`# %% [seam] NAME` cells are the student's answer cells: their starting text is the graded
function NAME of minigrad/seams/inplace_versions.py (signature, docstring, solution markers).
"""
# ruff: noqa: F821, E501

# %% [markdown]
# ## Your part: version counters
#
# Every tensor counts the in-place changes of its memory on `tensor._version_counter` (an
# object with one integer, `.value`; `tensor._version` reads it). Tensors on the same memory
# (a view, a detached alias) must share one counter, and every in-place write counts once.
# The engine calls your functions of
# `minigrad/seams/inplace_versions.py` for both.

# %% [seam] share_version

# %% [seam] bump_version

# %% [markdown]
# ## Your part: the checks on them
#
# A node that saved a tensor for its backward (`y = x ** 2` saves `x`) keeps, in a `Saved`,
# the array, the counter and its value at saving time. At backward it asks `unpack_saved`
# for the array; a tensor changed since is refused with PyTorch's most famous message, whose
# text `version_error` composes.

# %% [seam] unpack_saved

# %% [seam] version_error

# %% [markdown]
# Some in-place writes are refused before they happen: into a leaf that requires grad (its
# values are what the gradient is about), or into a view of one.

# %% [seam] check_inplace

# %% [markdown]
# ### Check: one counter per memory, one count per write (I1)

# %% [test] I1
x = tensor([[1.0, 2.0], [3.0, 4.0]])
row, d = x[0], x.detach()
row.add_(1)
assert x._version == row._version == d._version == 1
x.mul_(2)
d[1, 1] = 0.0
assert x._version == row._version == d._version == 3
assert x.tolist() == [[4.0, 6.0], [6.0, 0.0]]

# %% [markdown]
# ### Check: a saved tensor changed in place is refused at backward (I2)

# %% [test] I2
a = tensor([1.0, 2.0, 3.0], requires_grad=True)
x = a * 2
y = x**2  # PowBackward0 saves x
x.add_(1)
try:
    y.sum().backward()
except RuntimeError as error:
    message = str(error)
else:
    raise AssertionError("backward must refuse: x changed after y's node saved it")
assert message.startswith(
    "one of the variables needed for gradient computation has been modified by an inplace "
    f"operation: [{msg.LIB}.FloatTensor [3]], which is output 0 of Add, is at version 1; "
    "expected version 0 instead. Hint:"
), message

# %% [markdown]
# ### Check: in-place on a leaf that requires grad is refused (I3)

# %% [test] I3
a = tensor([1.0, 2.0], requires_grad=True)
attempts = [
    (lambda: a.add_(1), msg.LEAF_INPLACE),
    (lambda: a[0].mul_(2), msg.VIEW_OF_LEAF_INPLACE),
]
for attempt, expected in attempts:
    try:
        attempt()
    except RuntimeError as error:
        assert str(error) == expected, str(error)
    else:
        raise AssertionError(f"must raise: {expected}")
with no_grad():
    a.add_(1)
assert a.tolist() == [2.0, 3.0] and a.is_leaf

# %% [markdown]
# ### On a GPU
#
# Version counters do not care where the memory is.

# %% [cuda]
x = tensor([1.0, 2.0], device="cuda", requires_grad=True) * 1
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as error:
    assert f"[{msg.LIB}.cuda.FloatTensor [2]], which is output 0 of Exp," in str(error)
else:
    raise AssertionError("backward must refuse: exp's saved result was changed")
