"""Setup: a course directory made ready to release, and a sample class."""
