"""Scenarios: basics."""

from autograder.scenarios import scenario  # noqa: F401
