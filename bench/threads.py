"""One thread for every engine, so the ratios compare engines and not thread pools."""

import os

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def set_env_defaults():
    """Must run before NumPy or torch load their BLAS; later settings come from limit()."""
    for name in THREAD_VARS:
        os.environ.setdefault(name, "1")


def limit():
    """Pins torch and every BLAS/OpenMP pool in this process to one thread; returns what it set."""
    import torch
    from threadpoolctl import threadpool_info, threadpool_limits

    torch.set_num_threads(1)
    threadpool_limits(limits=1)
    return {
        "torch": torch.get_num_threads(),
        "pools": [
            {"library": pool["internal_api"], "threads": pool["num_threads"]}
            for pool in threadpool_info()
        ],
        "env": {name: os.environ.get(name) for name in THREAD_VARS},
    }
