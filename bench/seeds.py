"""`python -m bench.seeds [--count N | --seeds S,S,...] [--jobs J]`: `autograder.check(minigrad)`
against live PyTorch on many seeds (default 200 drawn afresh), as grading draws one per
student. Slow, never part of `make test`; CI checks a few fresh seeds on every run
(tests/test_fresh_seeds.py), this sweeps hundreds.

Every failure is a bug, in the scenario (a value that is not drawn as it should be, a
difference PyTorch makes between two draws) or in the engine; none is skipped. Each is printed
with its seed, so `--seeds S` replays it, and the exit status is 1 when any seed failed.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

DEFAULT_COUNT = 200


def draw(count: int) -> list[int]:
    """`count` distinct fresh seeds, as check() draws one (below 2**31)."""
    seeds: set[int] = set()
    while len(seeds) < count:
        seeds.add(secrets.randbelow(2**31))
    return sorted(seeds)


def check_seed(seed: int) -> dict:
    """check(minigrad) on the CPU catalogue at `seed`: {scenario id: its first differences}
    for each scenario that failed (PyTorch's own run failing counts), and the time it took."""
    import minigrad
    from autograder import check

    started = time.perf_counter()
    report = check(minigrad, seed=seed)
    failures = {
        r.id: [d.get("summary", str(d)) for d in r.differences[:3]] or [f"{r.status}: {r.note}"]
        for r in report.results
        if r.status != "passed"
    }
    return {"seed": seed, "failures": failures, "seconds": time.perf_counter() - started}


def sweep(seeds, jobs: int = 1, progress=None) -> list[dict]:
    """check_seed for each seed, in `jobs` processes (each imports PyTorch once)."""
    if jobs <= 1:
        results = []
        for seed in seeds:
            results.append(check_seed(seed))
            if progress:
                progress(results[-1])
        return results
    with ProcessPoolExecutor(jobs) as pool:
        results = []
        for result in pool.map(check_seed, seeds):
            results.append(result)
            if progress:
                progress(result)
        return results


def summary(results: list[dict], wall_s: float) -> dict:
    failing = [r for r in results if r["failures"]]
    by_scenario: dict[str, list[int]] = {}
    for r in failing:
        for sid in r["failures"]:
            by_scenario.setdefault(sid, []).append(r["seed"])
    return {
        "seeds": len(results),
        "failed_seeds": len(failing),
        "failures_by_scenario": {sid: sorted(s) for sid, s in sorted(by_scenario.items())},
        "wall_s": round(wall_s, 1),
        "check_s_per_seed": round(sum(r["seconds"] for r in results) / max(len(results), 1), 2),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.seeds", description=__doc__)
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help="fresh seeds to draw")
    parser.add_argument("--seeds", help="comma-separated seeds to replay instead of drawing")
    parser.add_argument("--jobs", type=int, default=1, help="processes checking seeds at once")
    parser.add_argument("--json", type=Path, help="also write the summary and every failure here")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else draw(args.count)

    def progress(result):
        mark = "FAILED " + ", ".join(result["failures"]) if result["failures"] else "ok"
        print(f"seed {result['seed']}: {mark} ({result['seconds']:.1f} s)", flush=True)

    started = time.perf_counter()
    results = sweep(seeds, args.jobs, progress)
    figures = summary(results, time.perf_counter() - started)
    for r in results:
        for sid, diffs in r["failures"].items():
            print(f"\nseed {r['seed']}, {sid}:\n  " + "\n  ".join(diffs))
    print(
        f"\n{figures['seeds']} seeds, {figures['failed_seeds']} failed, "
        f"{figures['wall_s']} s wall ({figures['check_s_per_seed']} s per check, "
        f"{args.jobs} job(s))"
    )
    if args.json:
        args.json.write_text(json.dumps({**figures, "results": results}, indent=1))
    return 1 if figures["failed_seeds"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
