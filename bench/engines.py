"""Which engines can run: PyTorch and NumPy always, minigrad once it imports and computes."""

from types import ModuleType
from typing import NamedTuple


class Minigrad(NamedTuple):
    module: ModuleType | None
    reason: str  # why it is not available; empty when it is


def load_minigrad() -> Minigrad:
    try:
        import minigrad

        minigrad.tensor([1.0]).sum()
    except Exception as error:  # any failure means "not there yet", with the reason shown
        return Minigrad(None, f"not available ({type(error).__name__}: {error})")
    return Minigrad(minigrad, "")
