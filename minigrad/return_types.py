"""What max(dim) and min(dim) return: tuples named as PyTorch's `torch.return_types.max`."""

from ._messages import LIB


class _ValuesIndices(tuple):
    """(values, indices), also readable by name; like PyTorch's, it has no `_fields`."""

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        name = type(self).__name__
        return f"{LIB}.return_types.{name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class max(_ValuesIndices):  # noqa: A001, N801 - PyTorch's names
    pass


class min(_ValuesIndices):  # noqa: A001, N801
    pass
