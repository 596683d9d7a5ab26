"""Grading: each submission in its own process, here or on Dask workers; one writer."""
