"""`python -m bench [NAME ...]`: runs benchmarks, prints one table, writes results/latest.json."""

from bench.threads import set_env_defaults

set_env_defaults()  # before anything loads NumPy's or torch's BLAS

import argparse  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from bench import threads  # noqa: E402
from bench.engines import load_minigrad  # noqa: E402
from bench.results import format_table, write_json  # noqa: E402
from bench.suite import BENCHMARKS, run_all  # noqa: E402


def context(thread_settings: dict, minigrad_reason: str) -> dict:
    """What the numbers depend on, stored beside them."""
    import numpy
    import torch

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "commit": commit,
        "machine": {"platform": platform.platform(), "processor": platform.processor()},
        "versions": {
            "python": platform.python_version(),
            "numpy": numpy.__version__,
            "torch": torch.__version__,
        },
        "threads": thread_settings,
        "minigrad": minigrad_reason or "available",
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"one of {', '.join(BENCHMARKS)}")
    names = parser.parse_args(argv).names or list(BENCHMARKS)
    unknown = [name for name in names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")

    thread_settings = threads.limit()
    minigrad = load_minigrad()
    load_before = os.getloadavg()[0]
    rows, failed = run_all(names, minigrad)
    # Other work on a shared machine slows every engine: the load says how far to trust ratios.
    load = {
        "cores": os.cpu_count(),
        "load_1min_before": load_before,
        "load_1min_after": os.getloadavg()[0],
    }
    print(format_table(rows))
    print(
        f"\n{load['cores']} cores; 1-minute load average {load_before:.1f} before, "
        f"{load['load_1min_after']:.1f} after (this run adds about 1)"
    )
    path = write_json(rows, {**context(thread_settings, minigrad.reason), "load": load})
    print(f"written: {path}")
    return 1 if failed else 0


sys.exit(main(sys.argv[1:]))
