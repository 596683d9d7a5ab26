"""Numerical cross-checks between engines (never timed)."""

import numpy as np


class Mismatch(AssertionError):
    """An engine's result differs from the reference: its timing would mean nothing."""


def to_numpy(value) -> np.ndarray:
    """NumPy copy of an ndarray (NumPy's or CuPy's), a number, a list of numbers, or a
    torch/minigrad tensor on any device."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    elif hasattr(value, "__cuda_array_interface__") and hasattr(value, "get"):
        value = value.get()  # a CuPy array: NumPy refuses to read GPU memory implicitly
    return np.array(value, copy=True)


def assert_close(what: str, reference, result, rtol: float) -> None:
    """Same shape and dtype, and every element within rtol of the reference's largest magnitude.

    The tolerance scales with the reference's magnitude because float32 sums of hundreds of
    products (matmul) differ between BLAS libraries by a few ulps of the largest terms.
    """
    if result is None:
        raise Mismatch(f"{what}: got None")
    reference, result = to_numpy(reference), to_numpy(result)
    if result.shape != reference.shape or result.dtype != reference.dtype:
        raise Mismatch(
            f"{what}: got {result.dtype} {result.shape}, expected {reference.dtype} "
            f"{reference.shape}"
        )
    scale = float(np.max(np.abs(reference))) if reference.size else 0.0
    tolerance = rtol * scale + np.finfo(np.float32).tiny
    error = float(np.max(np.abs(result.astype(np.float64) - reference))) if result.size else 0.0
    if not error <= tolerance:  # also catches NaN
        raise Mismatch(f"{what}: max difference {error:.3g} exceeds tolerance {tolerance:.3g}")


def output_and_grad(result) -> dict[str, np.ndarray | None]:
    """Snapshot of a job that returns (output y, gradient of its leaf x)."""
    y, grad = result
    return {"y": to_numpy(y), "x.grad": None if grad is None else to_numpy(grad)}
