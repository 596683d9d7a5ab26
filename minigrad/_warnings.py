"""PyTorch's warnings, including the ones it gives only once per process."""

import warnings

_already = set()


def warn(message, category=UserWarning, once_key=None):
    """Warn like PyTorch; with `once_key`, only the first time in this process."""
    if once_key is not None:
        if once_key in _already:
            return
        _already.add(once_key)
    warnings.warn(message, category, stacklevel=3)
