"""The global random stream: PyTorch's distributions and dtypes, not its exact values."""

import numpy as np

_generator = np.random.default_rng()


class Generator:
    """What `manual_seed` returns (PyTorch returns its default generator)."""

    # A notebook cell ending in manual_seed(0) shows <torch._C.Generator object at 0x...>
    __module__ = "minigrad._C"

    def __init__(self, seed):
        self._seed = seed

    def initial_seed(self):
        return self._seed


def manual_seed(seed):
    global _generator
    _generator = np.random.default_rng(int(seed))
    return Generator(int(seed))


def generator():
    return _generator
