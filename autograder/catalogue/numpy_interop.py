"""Scenarios: numpy_interop."""

from autograder.scenarios import scenario  # noqa: F401
