"""PyTorch's warnings, including the ones it gives only once per process."""

import os
import sys
import warnings

import numpy as np

_already = set()
# Frames a warning is never attributed to: minigrad's own, and NumPy's (its errstate wrapper
# runs every op, see ops/_common.py: quiet_functions).
_INTERNAL = tuple(
    os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (sys.modules[__package__], np)
)


def warn(message, category=UserWarning, once_key=None):
    """Warn like PyTorch, from the user's line; with `once_key`, only the first time in this
    process."""
    if once_key is not None:
        if once_key in _already:
            return
        _already.add(once_key)
    level, frame = 2, sys._getframe(1)  # level 1 is this function, frame its caller's
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)
