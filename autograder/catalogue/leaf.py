"""Scenarios: leaf."""

from autograder.scenarios import scenario  # noqa: F401
