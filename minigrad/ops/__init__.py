"""Every operation of the course subset, written once for NumPy and CuPy alike, one module
per family; each op's forward sits beside its node class (named as PyTorch names it) and
the node's backward.

An op computes its result array, then, when grad mode is on and an input requires grad,
builds its node with the edges of its inputs. In-place ops reuse the same out-of-place code
on an alias of the old values and then rewrite history (inplace.py). Each family's METHODS
are attached to Tensor here.
"""

from .. import _signatures
from .._cnames import builtin_method
from ..tensor import Tensor, _read_only
from . import arithmetic, copies, indexing, inplace, joining, linalg, reductions, unary, views
from .views import T

for _family in (arithmetic, inplace, unary, reductions, linalg, copies, views, indexing, joining):
    for _name, _fn in _family.METHODS.items():
        setattr(Tensor, _name, _fn)
# Named methods answer a call PyTorch's parser refuses with its text (operators stay as they
# are: they hand an operand they cannot read back to Python).
from .. import factories  # noqa: E402 - new_ones and new_zeros are attached there, before they are wrapped

for _name in _signatures.SIGNATURES.keys() - {"new"}:
    setattr(Tensor, _name, _signatures.parsed(_name, getattr(Tensor, _name)))
# The methods a student mistakes for attributes (x.size[0]) are built-in methods to Python,
# as PyTorch's are.
for _name in ("size", "dim", "numel", "item", "tolist"):
    setattr(Tensor, _name, builtin_method(getattr(Tensor, _name)))
Tensor.T = property(T).setter(_read_only("T"))
Tensor.__hash__ = object.__hash__  # __eq__ returns a tensor; hashing stays by identity
