"""Benchmarks for the course: minigrad against PyTorch CPU and a hand-written NumPy bound.

Run everything with `make bench` (or `python -m bench`), one benchmark with
`python -m bench chain`; the table is printed and bench/results/latest.json written.
Speed is measured here and never asserted in a test.

How the numbers are taken:
- every engine runs single-threaded (env vars, torch.set_num_threads, threadpoolctl);
- before any run is timed, each engine's result is checked against PyTorch's (or an exact
  reference), so a wrong engine stops the benchmark instead of looking fast;
- `best` is the fastest of `runs` timed runs, `median` their median; xtorch and xnumpy
  divide an engine's best by PyTorch's and by the NumPy bound's best;
- setup (building inputs, or the graph for the deep-chain backward) is not timed; the
  garbage collector stays on during a run, with everything older frozen out of its way.
"""
