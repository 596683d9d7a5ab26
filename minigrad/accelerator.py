"""`minigrad.accelerator`: PyTorch's device-agnostic view of the accelerator (CUDA here)."""

from ._device import cuda_is_available, device


def is_available():
    return cuda_is_available()


def current_accelerator(check_available=False):
    """The accelerator's device type, or None where there is none (PyTorch's CPU build)."""
    if cuda_is_available():
        return device("cuda")
    return None


def device_count():
    return 1 if cuda_is_available() else 0
