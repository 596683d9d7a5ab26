"""`minigrad.cuda`: whether a CUDA device (through CuPy) is usable here."""

from ._device import cuda_is_available


def is_available():
    return cuda_is_available()


def device_count():
    return 1 if cuda_is_available() else 0
