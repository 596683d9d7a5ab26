"""Benchmarks for the course: minigrad against PyTorch CPU and a hand-written NumPy bound.

Run everything with `make bench` (or `python -m bench`), one benchmark with
`python -m bench chain`. Speed is measured here and never asserted in a test.
"""
