"""Assignment 3, inplace_versions: version counters, and the checks that keep in-place safe.

Every tensor has a `_version_counter` (one integer, `.value`; `tensor._version` reads it).
Tensors that share memory share one counter, every in-place write counts one change, and a
node that saved a tensor for its backward compares versions before it uses it.

The engine calls these five functions; the exercise `exercises/inplace_versions` is where you
write them. In the self-paced edition the bodies below are the reference answers (read them
after you tried); in the class edition they are stubs that say which assignment builds them.

Where the engine calls them:
- `share_version` whenever a new tensor is made on another's memory: every view (`_view` in
  minigrad/ops/views.py: `x[0]`, `x.view(6)`, `x.t()`, ...), the legacy alias `Tensor(t)`
  (`_alias`, minigrad/factories.py) and `nn.Parameter(t)` (minigrad/nn/parameter.py);
- `bump_version` once an in-place operation has written into a tensor's memory (`_write`
  and `_write_directly` in minigrad/ops/inplace.py: `add_`, `+=`, `x[i] = v`, `copy_`, `zero_`,
  ...; an `out=` result; the in-place squeeze inside `vector @ matrix`);
- `check_inplace` before an in-place operation that autograd records writes (`_inplace`,
  minigrad/ops/inplace.py: grad mode on and the target or an operand requires grad);
- `unpack_saved` at backward, for each tensor a node saved (`Node.unpack`,
  minigrad/autograd/graph.py), and `version_error` for its message when the check fails.
"""

from .. import _messages as msg
from ..autograd.graph import Saved, producer_name
from ..tensor import Tensor
from . import not_built  # noqa: F401  (what the class edition's stubs raise)

# What an exercise notebook imports (`from minigrad.seams.inplace_versions import *`) to
# write these functions: the helpers, never the graded functions themselves.
__all__ = ["Saved", "Tensor", "msg", "producer_name"]


def share_version(alias, source):
    """Make `alias`, a tensor just made on `source`'s memory, count its changes on `source`'s
    version counter (the same object), so that a write through either is seen by both (I1)."""
    ### BEGIN SOLUTION
    alias._version_counter = source._version_counter
    ### END SOLUTION


def bump_version(tensor):
    """Record one in-place change of `tensor`'s memory: its counter goes up by one (I1)."""
    ### BEGIN SOLUTION
    tensor._version_counter.value += 1
    ### END SOLUTION


def check_inplace(tensor):
    """Refuse, before it happens, an in-place write that autograd would record into a
    tensor it must keep intact (PyTorch's check_inplace; the engine calls it only with grad
    mode on and something requiring grad). In order:
    - a view (`_base` set) that PyTorch won't write through (`_view_flags` set: made under
      `no_grad()`, or one of several outputs): `tensor._view_rebase_message(indirect=False)`;
    - a view that requires grad of a base that has no `grad_fn` (a leaf):
      `msg.VIEW_OF_LEAF_INPLACE`;
    - a leaf (no `grad_fn`) that requires grad: `msg.LEAF_INPLACE`.
    All of them are `RuntimeError`s (I3)."""
    ### BEGIN SOLUTION
    base = tensor._base
    if base is not None:
        if tensor._view_flags is not None:
            raise RuntimeError(tensor._view_rebase_message(indirect=False))
        if tensor.requires_grad and base.grad_fn is None:
            raise RuntimeError(msg.VIEW_OF_LEAF_INPLACE)
    if tensor.requires_grad and tensor.grad_fn is None:
        raise RuntimeError(msg.LEAF_INPLACE)
    ### END SOLUTION


def unpack_saved(saved, node):
    """The array a node saved (`saved`, a `Saved`: `.data`, `.counter` the tensor's version
    counter, `.version` its value at saving time), at backward. If the tensor was changed in
    place since, its values are not the ones the forward pass used: refused with a
    `RuntimeError` whose text is `version_error(saved, node)` (I2)."""
    ### BEGIN SOLUTION
    if saved.counter.value != saved.version:
        raise RuntimeError(version_error(saved, node))
    return saved.data
    ### END SOLUTION


def version_error(saved, node):
    """PyTorch's text for a saved tensor changed in place, `msg.version_mismatch(type_name,
    shape, producer, current, expected)`: the tensor's type (`saved.type_name`,
    "torch.FloatTensor"), its shape, the operation that produced it (`producer_name(n)`:
    for the node's own saved output (`saved.is_output`), the node that saved it, else the
    tensor's `grad_fn` now; None, and no such part, for a tensor without one), the version
    now and the version at saving time (I2)."""
    ### BEGIN SOLUTION
    node = node if saved.is_output else saved.tensor.grad_fn
    producer = producer_name(node) if node is not None else None
    return msg.version_mismatch(
        saved.type_name, saved.data.shape, producer, saved.counter.value, saved.version
    )
    ### END SOLUTION


def _uncounted(tensor):
    """A change not counted: reading the version now says assignment 3 is not built."""
    tensor._version_counter.uncounted = True


def _share_uncounted(alias, source):
    """Without a shared counter a write through one alias would leave the other's version
    silently wrong: neither version is readable (no version is ever read wrong)."""
    alias._version_counter.uncounted = source._version_counter.uncounted = True


# What the class edition's engine does until a student builds these functions: the engine
# without the rule (nothing counts, nothing is checked), so that the assignments before this
# one run; reading a version after an uncounted change stops with the assignment's name, and
# this one's rules fail until it is built.
UNTIL_BUILT = {
    "share_version": _share_uncounted,
    "bump_version": _uncounted,
    "check_inplace": lambda tensor: None,
    "unpack_saved": lambda saved, node: saved.data,
}


# The graded functions and the rules whose scenarios each decides (a test cell for a rule
# binds the student's functions of that rule and keeps the engine's for the others).
GRADED = {
    "share_version": ("I1",),
    "bump_version": ("I1",),
    "check_inplace": ("I3",),
    "unpack_saved": ("I2",),
    "version_error": ("I2",),
}
